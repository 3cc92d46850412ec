// Package golden reads and writes the data-driven test scripts under
// testdata/: a series of blocks, each a command line, argument lines, a
// "----" line and the expected output up to a blank line, with comment
// lines ('#') and blank lines between blocks. It is for tests only.
package golden

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// Block is one block of a script.
type Block struct {
	Comments []string // lines before the command
	Command  string
	Args     []string
	Want     []string
	Line     int // the command's line number
}

// Read reads the blocks of the script at path.
func Read(t testing.TB, path string) []Block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var blocks []Block
	var cur *Block
	var comments []string
	state, n := 0, 0 // 0 between blocks, 1 in arguments, 2 in expected output
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case state == 0 && (line == "" || strings.HasPrefix(line, "#")):
			comments = append(comments, line)
		case state == 0:
			blocks = append(blocks, Block{Comments: comments, Command: line, Line: n})
			cur, comments, state = &blocks[len(blocks)-1], nil, 1
		case state == 1 && line == "----":
			state = 2
		case state == 1:
			cur.Args = append(cur.Args, line)
		case line == "":
			state = 0
		default:
			cur.Want = append(cur.Want, line)
		}
	}
	if state == 1 {
		t.Fatalf("%s: block at line %d has no ---- line", path, cur.Line)
	}
	return blocks
}

// Write appends block b with the output got to out, as Read reads it.
func Write(out *strings.Builder, b Block, got []string) {
	for _, c := range b.Comments {
		out.WriteString(c + "\n")
	}
	out.WriteString(b.Command + "\n")
	for _, a := range b.Args {
		out.WriteString(a + "\n")
	}
	out.WriteString("----\n")
	for _, g := range got {
		out.WriteString(g + "\n")
	}
	out.WriteString("\n")
}

// Run runs each block of the script at path through run, compares its
// output with the expected one, and with update rewrites the script with
// the outputs got instead.
func Run(t *testing.T, path string, update bool, run func(b Block) []string) {
	t.Helper()
	var out strings.Builder
	for _, b := range Read(t, path) {
		got := run(b)
		if !update && strings.Join(got, "\n") != strings.Join(b.Want, "\n") {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, b.Line, b.Command, strings.Join(b.Args, "\n"),
				strings.Join(got, "\n"), strings.Join(b.Want, "\n"))
		}
		Write(&out, b, got)
	}
	if update {
		if err := os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
