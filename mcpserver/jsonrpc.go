package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/value"
)

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeServerBusy     = -32000 // implementation-defined: too many requests in flight
)

// MaxLineBytes is the longest JSON-RPC message accepted, in bytes (one
// line on stdio, one body over HTTP).
const MaxLineBytes = 4 << 20

// rpcError is a JSON-RPC error object.
type rpcError struct {
	code int
	msg  string
	data value.Value // optional
}

func rpcErrorf(code int, format string, args ...any) *rpcError {
	return &rpcError{code: code, msg: fmt.Sprintf(format, args...)}
}

// checkID accepts a string or a number as an id. An absent id is nil (a
// notification); null, objects, arrays and booleans are refused, as MCP
// requires.
func checkID(id json.RawMessage) (json.RawMessage, *rpcError) {
	if id == nil {
		return nil, nil
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return id, nil
	}
	return nil, rpcErrorf(codeInvalidRequest, "invalid request: id must be a string or a number, got %s", truncate(string(id), 40))
}

func parseError(err error) *rpcError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return rpcErrorf(codeParseError, "parse error at byte %d: %s", se.Offset, se.Error())
	}
	return rpcErrorf(codeParseError, "parse error: %v", err)
}

// checkUTF8 refuses a message that is not valid UTF-8, naming the byte.
func checkUTF8(line []byte) *rpcError {
	if utf8.Valid(line) {
		return nil
	}
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && n <= 1 {
			return rpcErrorf(codeParseError, "parse error: invalid UTF-8 at byte %d", i)
		}
		i += n
	}
	return rpcErrorf(codeParseError, "parse error: invalid UTF-8")
}

// resultMessage encodes a JSON-RPC response with a result.
func resultMessage(id json.RawMessage, result []byte) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), idBytes(id)...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// errorMessage encodes a JSON-RPC response with an error.
func errorMessage(id json.RawMessage, e *rpcError) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), idBytes(id)...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(e.code), 10)
	b = append(b, `,"message":`...)
	b = value.AppendString(b, e.msg)
	if !e.data.IsMissing() {
		b = append(b, `,"data":`...)
		b = value.AppendJSON(b, e.data)
	}
	return append(b, "}}"...)
}

func idBytes(id json.RawMessage) []byte {
	if id == nil {
		return []byte("null")
	}
	return id
}

// lineReader reads newline-delimited messages of at most max bytes each,
// never holding more than max+1 bytes of one line in memory.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its line ending. tooLong reports a
// line over the limit, whose bytes were read and thrown away. At the end
// of the input it returns io.EOF; a last line without a newline is still
// returned first.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if cap(lr.buf) > 1<<20 {
		lr.buf = nil // do not keep a huge buffer after a huge line
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if !tooLong && len(lr.buf)+len(chunk) > lr.max+2 { // +2: room for "\r\n"
			tooLong, lr.buf = true, lr.buf[:0]
		}
		if !tooLong {
			lr.buf = append(lr.buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && len(lr.buf) == 0 && !tooLong:
			return nil, false, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(lr.buf, []byte("\n")), []byte("\r"))
		if len(line) > lr.max {
			return nil, true, nil
		}
		return line, tooLong, nil
	}
}

// lineWriter writes one message per line and flushes after each. It is
// safe for concurrent use.
type lineWriter struct {
	mu  sync.Mutex // guards w and err
	w   *bufio.Writer
	err error // the first write error; later writes are dropped
}

func (lw *lineWriter) write(msg []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return
	}
	lw.w.Write(msg)
	lw.w.WriteByte('\n')
	lw.err = lw.w.Flush()
}

func (lw *lineWriter) error() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
