package changes

import (
	"context"
	"slices"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// WriteStage is the $out or $merge stage that ends a pipeline, for an
// engine that runs the stages before it elsewhere (a MongoDB store) and
// plans the writes with the same semantics as PlanAggregate on a store
// file: the same parsing, the same refusals, the same items.
type WriteStage struct{ w *writeStage }

// ParseWriteStage splits a pipeline into its last stage, which must be
// $out or $merge (parsed and checked as PlanAggregate does), and the
// stages before it, which the caller compiles and runs. now is the
// planning time: $$NOW of a whenMatched pipeline.
func ParseWriteStage(ctx context.Context, pipeline value.Value, now time.Time) (*WriteStage, value.Value, error) {
	w, rest, err := parseWriteStage(pipeline)
	if err != nil {
		return nil, value.Value{}, err
	}
	w.now, w.ctx = now, ctx
	return &WriteStage{w}, rest, nil
}

// Target is the collection the stage writes.
func (s *WriteStage) Target() string { return s.w.target }

// Out reports whether the stage is $out (it replaces the target).
func (s *WriteStage) Out() bool { return s.w.out }

// Target is the state of a write stage's target collection.
type Target struct {
	Exists bool
	Docs   []value.Value // its documents, in _id order
	// UniqueOn reports whether a unique index of the target is on exactly
	// these fields: a $merge on other fields than _id needs one.
	UniqueOn func(fields []string) bool
}

// Write is one document a write stage writes: Op is "insert" (Before
// missing), "update" or "delete" (After missing).
type Write struct {
	ID            value.Value
	Op            string
	Before, After value.Value
}

// Plan returns the writes of the results (the documents the stages before
// the write stage returned, in order; one without _id gets a new
// ObjectId) in the target, in the target's order and then the results',
// and how many results there were. Target documents the stage leaves as
// they are (byte for byte) are not among the writes.
func (s *WriteStage) Plan(t *Target, results []value.Value) ([]Write, int64, error) {
	w := s.w
	if t.Exists && !w.out && !slices.Equal(w.on, []string{"_id"}) && (t.UniqueOn == nil || !t.UniqueOn(w.on)) {
		return nil, 0, w.noUniqueIndex()
	}
	target := make([]*targetDoc, 0, len(t.Docs))
	for _, d := range t.Docs {
		target = append(target, &targetDoc{js: value.JSON(d), before: d})
	}
	withIDs := make([]value.Value, len(results))
	for i, r := range results {
		withIDs[i] = withID(r)
	}
	var matched int64
	docs, order, err := w.compute(target, withIDs, &matched)
	if err != nil {
		return nil, 0, err
	}
	var out []Write
	for _, k := range order {
		it, ok, err := w.itemOf(docs[k])
		if err != nil {
			return nil, 0, err
		}
		if ok && it.op != opNone {
			out = append(out, Write{ID: it.id, Op: it.op, Before: it.before, After: it.after})
		}
	}
	return out, matched, nil
}
