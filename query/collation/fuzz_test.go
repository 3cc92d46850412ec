package collation_test

import (
	"errors"
	"testing"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// FuzzParse feeds arbitrary JSON to Parse: it must return a collation or
// an *errs.Error with a hint, never panic; a message never repeats more
// than a bounded part of the input; a parsed collation's document parses
// back to an equal collation, and its keys order any two strings
// consistently. The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"locale":"fr_CA","strength":1,"caseLevel":true}`), "côte", "Cote")
	f.Add([]byte(`{"locale":"en","numericOrdering":true,"alternate":"shifted","strength":4}`), "a-10", "a 9")
	f.Fuzz(func(t *testing.T, data []byte, a, b string) {
		v, err := value.Parse(data)
		if err != nil {
			return
		}
		c, err := collation.Parse(v)
		if err != nil {
			var e *errs.Error
			if !errors.As(err, &e) || e.Hint == "" {
				t.Fatalf("Parse(%s): %T %v is not an *errs.Error with a hint", data, err, err)
			}
			if len(e.Message) > 400 {
				t.Fatalf("Parse(%.60s…): a message of %d bytes", data, len(e.Message))
			}
			return
		}
		if c == nil {
			return
		}
		back, err := collation.Parse(c.Value())
		if err != nil || !collation.Equal(back, c) {
			t.Fatalf("Parse(%s).Value() = %s does not parse back: %v", data, c.Value(), err)
		}
		ka, kb := c.Key(a), c.Key(b)
		if (ka < kb) != (kb > ka) || (ka == kb) != (c.Key(b) == c.Key(a)) {
			t.Fatalf("%s: keys of %q and %q are inconsistent", data, a, b)
		}
	})
}
