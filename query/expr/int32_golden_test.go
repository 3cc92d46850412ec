package expr_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/query/value/valuetest"
)

// int32Differs lists the expressions whose answers rightly depend on
// whether a whole number is an int32 or a long.
var int32Differs = map[string]string{
	`{"$type":[1]}`: "$type names the type",
	`{"$convert":{"input":1000,"to":"date"}}`: "MongoDB converts a long to a date, not an int",
}

// TestExpr_GoldenInt32 evaluates every expression golden line again with
// each whole number in the expression and its document an int32 instead
// of a long, and checks the answer is the same number (or an error again).
// The tables were written when omgdb had no int32.
func TestExpr_GoldenInt32(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc := value.MustParse(`{}`)
		for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			switch {
			case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
				continue
			case strings.HasPrefix(line, "doc "):
				doc = value.MustParse(line[4:])
				continue
			}
			text, _, _ := splitExprLine(line)
			if _, ok := int32Differs[text]; ok {
				continue
			}
			got := evalExprText(nil, t, text, doc)
			itext := string(value.JSON(valuetest.AsInt32(value.MustParse(text))))
			igot := evalExprText(nil, t, itext, valuetest.AsInt32(doc))
			if !sameAnswer(got, igot) {
				t.Errorf("%s:%d: %s\nwith longs:  %s\nwith int32s: %s", file, i+1, text, got, igot)
			}
		}
	}
}

// sameAnswer compares two evalExprText answers by numeric value.
func sameAnswer(a, b string) bool {
	if strings.HasPrefix(a, "!! ") || strings.HasPrefix(b, "!! ") {
		return strings.HasPrefix(a, "!! ") && strings.HasPrefix(b, "!! ")
	}
	if a == "=> missing" || b == "=> missing" {
		return a == b
	}
	return valuetest.SameNumbers(value.MustParse(a[3:]), value.MustParse(b[3:]))
}
