package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// vanishingReader fails every read with err, as an engine whose
// collection was dropped by hand during a read at a revision does.
type vanishingReader struct {
	engine.Reader
	err error
}

func (r vanishingReader) Find(context.Context, string, *engine.Find, func(value.Value) error) error {
	return r.err
}

func (r vanishingReader) Count(context.Context, string, value.Value) (int64, error) { return 0, r.err }

func (r vanishingReader) Distinct(context.Context, string, string, value.Value) ([]value.Value, error) {
	return nil, r.err
}

func (r vanishingReader) Aggregate(context.Context, string, value.Value, func(value.Value) error) error {
	return r.err
}

// TestPastRead_Vanished: a not-found error of a read at a revision (the
// engine's, with a did-you-mean among every collection) becomes a
// NOT_FOUND that names only the collection read; other errors pass
// unchanged.
func TestPastRead_Vanished(t *testing.T) {
	ctx := context.Background()
	leaky := errs.Errorf(errs.NotFound, "collection `visit` not found in mongodb://***@h/app (did you mean `secrets`?)")
	r := pastRead{Reader: vanishingReader{err: leaky}, coll: "visits", rev: engine.Revision{Spec: "s0"}}
	_, countErr := r.Count(ctx, "visits", value.MissingValue)
	_, distinctErr := r.Distinct(ctx, "visits", "a", value.MissingValue)
	for name, err := range map[string]error{
		"find":      r.Find(ctx, "visits", &engine.Find{}, nil),
		"count":     countErr,
		"distinct":  distinctErr,
		"aggregate": r.Aggregate(ctx, "visits", value.MissingValue, nil),
	} {
		var te *toolError
		if !errors.As(err, &te) || te.code != CodeNotFound || strings.Contains(te.Error(), "secrets") ||
			!strings.Contains(te.msg, "`visits` at revision s0 needs was dropped or renamed while it ran") {
			t.Errorf("%s: %v", name, err)
		}
	}
	other := errs.Errorf(errs.Invalid, "bad filter")
	r.Reader = vanishingReader{err: other}
	if err := r.Find(ctx, "visits", &engine.Find{}, nil); err != other {
		t.Errorf("another error: %v", err)
	}
	r.Reader = vanishingReader{}
	if n, err := r.Count(ctx, "visits", value.MissingValue); n != 0 || err != nil {
		t.Errorf("no error: %d, %v", n, err)
	}
}
