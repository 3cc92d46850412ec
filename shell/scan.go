package shell

import (
	"bufio"
	"io"
	"strings"
)

// lineScanner reads lines of any length.
type lineScanner struct{ r *bufio.Reader }

func newLineScanner(r io.Reader) *lineScanner { return &lineScanner{r: bufio.NewReader(r)} }

func (l *lineScanner) next() (string, error) {
	line, err := l.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	return strings.TrimRight(line, "\r\n"), err
}
