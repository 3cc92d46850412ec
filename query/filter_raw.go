package query

import (
	"context"

	"github.com/omgdb/omgdb/query/value"
)

// MatchJSON reports whether the document whose JSON text is data satisfies
// the filter: the same answer as Match on the parsed document, for a
// fraction of the cost. It decodes only the fields the filter refers to
// (their whole values, along the filter's paths), skips the rest of the
// text, and builds what it decodes in reused scratch memory whose strings
// alias data, so a scan allocates nothing per document. A filter with
// $expr, which may read any field, parses the whole document; as with
// Match, a $expr that fails to evaluate does not match. data must be a
// valid document, as stored documents are: MatchJSON reports the errors it
// meets in the parts it reads, and does not look at the parts it skips
// beyond finding where they end.
func (f *Filter) MatchJSON(data []byte) (bool, error) {
	return f.MatchJSONContext(nil, data)
}

// MatchJSONContext is MatchJSON that stops evaluating a $expr, or matching
// a regex over a long string, when ctx is done, and then returns ctx's
// error. A nil ctx is never done.
func (f *Filter) MatchJSONContext(ctx context.Context, data []byte) (bool, error) {
	if f.whole {
		doc, err := value.Parse(data)
		if err != nil {
			return false, err
		}
		return f.MatchContext(ctx, doc)
	}
	if len(f.root) == 0 {
		return true, nil
	}
	d := value.PooledDecoder()
	defer d.Release()
	return f.matchRaw(ctx, d, data)
}

// matchRaw is MatchJSON with the decoder d: through the filter's paths'
// values alone when it can (Filter.direct), else on the pruned document.
// ctx interrupts the filter's regex conditions.
func (f *Filter) matchRaw(ctx context.Context, d *value.Decoder, data []byte) (bool, error) {
	var c *matchCtx
	if f.regex && ctx != nil {
		c = &matchCtx{key: -1, ctx: ctx}
	}
	ok, err := f.matchDecoded(c, d, data)
	if c != nil && c.stop != nil {
		return false, c.stop
	}
	return ok, err
}

func (f *Filter) matchDecoded(c *matchCtx, d *value.Decoder, data []byte) (bool, error) {
	if slots, ok := d.ReadSlots(data, &f.direct); ok {
		for _, p := range f.directs {
			if p.n.matchAt(slots[p.slot], c) == p.not {
				return false, nil
			}
		}
		return true, nil
	}
	doc, err := d.DecodeFields(data, f.prune)
	if err != nil {
		return false, err
	}
	return f.root.match(doc, c), nil
}

// A JSONMatcher is MatchJSON with scratch memory of its own, for one
// goroutine that matches many documents (a scan's worker): it saves
// taking and returning the shared pool's for each document.
type JSONMatcher struct {
	f   *Filter
	d   *value.Decoder
	ctx context.Context // may be nil
}

// JSONMatcher returns a matcher for the filter, for one goroutine.
func (f *Filter) JSONMatcher() *JSONMatcher { return f.JSONMatcherContext(nil) }

// JSONMatcherContext returns a matcher for the filter, for one goroutine,
// whose Match is f.MatchJSONContext(ctx, data).
func (f *Filter) JSONMatcherContext(ctx context.Context) *JSONMatcher {
	return &JSONMatcher{f: f, d: value.NewDecoder(true), ctx: ctx}
}

// Match is f.MatchJSONContext(ctx, data), with the matcher's context.
func (m *JSONMatcher) Match(data []byte) (bool, error) {
	f := m.f
	if f.whole || len(f.root) == 0 {
		return f.MatchJSONContext(m.ctx, data)
	}
	d := m.d
	defer d.Reset()
	return f.matchRaw(m.ctx, d, data)
}
