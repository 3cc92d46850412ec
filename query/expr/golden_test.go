package expr_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden files under testdata/")

// The expression golden files (testdata/*.txt) are tables:
//
//	# a comment
//	doc {"a":5,"b":[1,2]}                  (the $$ROOT of the lines below)
//	{"$add":["$a",1]} => 6
//	{"$size":"$a"} !! the argument to $size must be an array, but was of type: long
//	"$nope" => missing
//
// "=>" gives the result as canonical JSON ("missing" for no value), "!!"
// the exact error message.
//
// Every file runs twice: evaluated without a context, and under a live
// context with every regular-expression match forced through the
// interruptible reader path that long strings take under a deadline
// (regex_deadline.go); both must give the expected answers. -update
// writes from the first run only.

func TestExpr_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) { runExprFile(nil, t, file) })
		if *update {
			continue
		}
		t.Run(name+"/reader", func(t *testing.T) {
			defer expr.ReaderPathForTests()()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			runExprFile(ctx, t, file)
		})
	}
}

// runExprFile checks one golden file, evaluating under ctx when it is not
// nil.
func runExprFile(ctx context.Context, t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	doc := value.MustParse(`{}`)
	for i, line := range lines {
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "doc "):
			if doc, err = value.ParseString(line[4:]); err != nil {
				t.Fatalf("%s:%d: bad doc: %v", file, i+1, err)
			}
			continue
		}
		text, sep, want := splitExprLine(line)
		if sep == "" {
			t.Fatalf("%s:%d: no => or !! in %q", file, i+1, line)
		}
		got := evalExprText(ctx, t, text, doc)
		if *update {
			lines[i] = text + " " + got
			continue
		}
		if got != sep+" "+want {
			t.Errorf("%s:%d: %s\n got: %s\nwant: %s %s", file, i+1, text, got, sep, want)
		}
	}
	if *update {
		if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// splitExprLine splits at the last " => " or " !! ".
func splitExprLine(line string) (text, sep, want string) {
	i, j := strings.LastIndex(line, " => "), strings.LastIndex(line, " !! ")
	switch {
	case i < 0 && j < 0:
		return line, "", ""
	case i > j:
		return line[:i], "=>", line[i+4:]
	}
	return line[:j], "!!", line[j+4:]
}

// evalExprText compiles and evaluates an expression (under ctx when it is
// not nil), returning "=> value" or "!! error".
func evalExprText(ctx context.Context, t *testing.T, text string, doc value.Value) string {
	spec, err := value.ParseString(text)
	if err != nil {
		t.Fatalf("bad expression JSON %q: %v", text, err)
	}
	e, err := expr.Compile(spec)
	if err != nil {
		return "!! " + err.Error()
	}
	var v value.Value
	if ctx == nil {
		v, err = e.Eval(doc)
	} else {
		v, err = e.EvalContext(ctx, doc, time.Time{})
	}
	switch {
	case err != nil:
		return "!! " + err.Error()
	case v.IsMissing():
		return "=> missing"
	}
	return "=> " + string(value.JSON(v))
}
