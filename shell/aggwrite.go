package shell

import (
	"slices"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// writesTo reports whether a pipeline ends in $out or $merge; a $out or
// $merge before the last stage is refused with MongoDB's error.
func (s *Shell) writesTo(stages value.Value) bool {
	a := stages.Array()
	for i, st := range a {
		name := stageName(st)
		if name != "$out" && name != "$merge" {
			continue
		}
		if i < len(a)-1 {
			s.throw(errs.Errorf(errs.Invalid, "%s can only be the final stage in the pipeline", name).
				WithHint("move it to the end: db.users.aggregate([{$match: {}}, {$out: 'copy'}])"))
		}
		return true
	}
	return false
}

// stageName returns the name of a stage ({$out: …} → "$out"), or "" when
// st is not an object of one field.
func stageName(st value.Value) string {
	if st.Kind() != value.Object || st.Len() != 1 {
		return ""
	}
	return st.Fields()[0].Key
}

// aggregateWrite runs an aggregate that ends in $out or $merge as a
// one-step write: it plans the pipeline's writes (changes.PlanAggregate,
// as omgdb plan-aggregate) and applies the plan at once, one journaled
// change whose id it prints. As in mongosh, the aggregate then returns an
// empty cursor.
func (s *Shell) aggregateWrite(coll string, stages value.Value) {
	if s.opts.Engine != nil { // over MongoDB: the engine's writer plans and applies
		aw, ok := s.writer().(AggregateWriter)
		if !ok {
			s.throw(s.notOnEngine())
		}
		change, err := aw.AggregateWrite(s.ctx, coll, stages)
		s.note(change) // also when some documents conflicted: it undoes the others
		s.must(err)
		return
	}
	change := s.planApply(false, func(db *store.DB) (*changes.PlanResult, error) {
		return changes.PlanAggregate(s.ctx, db, coll, stages, &changes.PlanOptions{Actor: "shell", Sample: -1})
	})
	s.note(change)
}

// textIndexOptions are createIndex's options of a text index.
var textIndexOptions = []string{"name", "weights", "default_language", "language_override"}

// textIndex returns the text index a key pattern asks for ({title:
// 'text'}), with createIndex's options weights, default_language,
// language_override and name; ok is false for other key patterns. Other
// options are refused, so a misspelt one is not silently ignored.
func (s *Shell) textIndex(keys, opts value.Value) (store.IndexDef, bool) {
	fields, ok, err := store.TextPattern(string(value.JSON(keys)))
	if !ok {
		return store.IndexDef{}, false
	}
	s.must(err)
	for _, f := range opts.Fields() {
		switch {
		case f.Key == "unique" || f.Key == "sparse":
			s.throw(errs.Errorf(errs.Invalid, "createIndex: %s does not apply to a text index", f.Key).
				WithHint("drop the option"))
		case !slices.Contains(textIndexOptions, f.Key):
			s.throw(errs.Errorf(errs.Invalid, "createIndex: unknown option %s for a text index%s", f.Key, errs.DidYouMean(f.Key, textIndexOptions)).
				WithHint("a text index takes {weights: {title: 10}, default_language: 'english', language_override: 'language', name}"))
		case f.Key != "weights" && f.Value.Kind() != value.String:
			s.throw(errs.Errorf(errs.Invalid, "createIndex: %s must be a string, got %s", f.Key, f.Value.TypeName()).
				WithHint("write it as a string, such as {default_language: 'spanish'}"))
		}
	}
	def, err := store.TextIndexDef(opts.Get("name").Str(), fields, opts.Get("weights"), opts.Get("default_language").Str(), opts.Get("language_override").Str())
	s.must(err)
	return def, true
}
