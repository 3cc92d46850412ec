package jsonscan

import "fmt"

// A SyntaxError says what is wrong with JSON text, and where.
type SyntaxError struct {
	Offset int    // the byte the error is about
	Msg    string // what is wrong, without the offset
	Hint   string // how to repair the input, or ""
}

// Error returns the message as the parser prints it.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

func errorAt(offset int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}
