package query_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// TestFilter_RegexStopsAtDeadline: a $regex (as an operator, a regex value,
// in $in and under $not) over a string of almost 16 MiB gives up with the context's
// error once its deadline passes, through every way a filter is matched;
// with no context it still answers.
func TestFilter_RegexStopsAtDeadline(t *testing.T) {
	doc := `{"_id":1,"s":"` + strings.Repeat("a", 16<<20-64) + `"}`
	parsed := value.MustParse(doc)
	filters := []string{
		`{"s":{"$regex":"(a{0,100}){9}b"}}`,
		`{"s":{"$regex":"/(a{0,100}){9}b/i"}}`,
		`{"s":{"$in":[1,{"$regex":"(a{0,100}){9}b"}]}}`,
		`{"s":{"$not":{"$regex":"(a{0,100}){9}b"}}}`,
		`{"n":{"$exists":false},"s":{"$regex":"(a{0,100}){9}b"}}`,
		`{"$or":[{"s":{"$regex":"(a{0,100}){9}b"}},{"t":1}]}`,
	}
	for _, src := range filters {
		f, err := query.CompileFilter(value.MustParse(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		ways := map[string]func(ctx context.Context) (bool, error){
			"MatchContext":     func(ctx context.Context) (bool, error) { return f.MatchContext(ctx, parsed) },
			"MatchErrContext":  func(ctx context.Context) (bool, error) { return f.MatchErrContext(ctx, parsed) },
			"MatchJSONContext": func(ctx context.Context) (bool, error) { return f.MatchJSONContext(ctx, []byte(doc)) },
			"JSONMatcher":      func(ctx context.Context) (bool, error) { return f.JSONMatcherContext(ctx).Match([]byte(doc)) },
		}
		for name, match := range ways {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			ok, err := match(ctx)
			cancel()
			if ok || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s %s: %v, %v; want the deadline's error", src, name, ok, err)
			}
		}
	}
	short := value.MustParse(`{"s":"aab"}`)
	f, _ := query.CompileFilter(value.MustParse(filters[0]))
	if ok, err := f.MatchContext(context.Background(), short); !ok || err != nil {
		t.Errorf("short subject: %v, %v; want a match", ok, err)
	}
}
