package changes

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// KindAggregate is a plan-aggregate: the writes of a pipeline that ends
// in $out or $merge.
const KindAggregate = "aggregate"

// PlanAggregate plans the writes of a pipeline over coll that ends in $out
// or $merge, as MongoDB would make them, without writing them: the
// pipeline before its last stage runs now, and each document it returns
// becomes an item of the plan in the target collection. $out replaces the
// target's documents with the results (inserting, replacing, and deleting
// the target's documents not among them). $merge matches each result to a
// target document on its "on" fields (_id by default; others need a unique
// index on them, as in MongoDB) and, per whenMatched ("merge" by default,
// "replace", "keepExisting" or "fail") and whenNotMatched ("insert" by
// default, "discard" or "fail"), plans an update, an insert or nothing.
// A result without _id gets a new ObjectId. Apply the plan with Apply; it
// is one change, and Rollback undoes it.
func PlanAggregate(ctx context.Context, db *store.DB, coll string, pipeline value.Value, opts *PlanOptions) (*PlanResult, error) {
	if opts == nil {
		opts = &PlanOptions{}
	}
	w, rest, err := parseWriteStage(pipeline)
	if err != nil {
		return nil, err
	}
	p, err := agg.CompilePipeline(rest, nil)
	if err != nil {
		return nil, err
	}
	b := newBuilder(KindAggregate, opts)
	b.p.Collection, b.p.Source, b.p.Pipeline = w.target, coll, &Doc{pipeline}
	w.now, w.ctx = b.p.Created, ctx
	err = db.Update(store.Change{Kind: "plan"}, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		results, err := runPipeline(ctx, c, p)
		if err != nil {
			return err
		}
		if err := b.begin(tx); err != nil {
			return err
		}
		defer b.w.finish()
		if w.out {
			if _, err := tx.Collection(w.target); isNotFound(err) {
				b.p.CreateTarget = true
			}
		}
		if err := w.plan(tx, results, b); err != nil {
			return err
		}
		return b.save(tx)
	})
	if err != nil {
		return nil, err
	}
	return b.result(), nil
}

// runPipeline returns the results of p over c, each with an _id.
func runPipeline(ctx context.Context, c *store.Collection, p *agg.Pipeline) ([]value.Value, error) {
	src := c.Aggregate(ctx, p, nil)
	defer src.Close()
	var out []value.Value
	for src.Next() {
		out = append(out, withID(src.Doc()))
	}
	return out, src.Err()
}

// withID returns a result with a new ObjectId as _id when it has none.
func withID(d value.Value) value.Value {
	if d.Get("_id").IsMissing() {
		d = value.ObjectValue(append([]value.Field{{Key: "_id", Value: value.ObjectIDValue(value.NewOID())}}, d.Fields()...))
	}
	return d
}

// writeStage is a parsed $out or $merge.
type writeStage struct {
	out            bool
	target         string
	on             []string
	whenMatched    string
	whenNotMatched string
	pipeline       *agg.MergeUpdate // whenMatched as a pipeline ("pipeline" in whenMatched)
	now            time.Time        // $$NOW of the pipeline: the plan's creation
	ctx            context.Context  // the planning call's: the pipeline stops when it is done
}

var mergeFields = []string{"into", "on", "whenMatched", "whenNotMatched", "let"}

// parseWriteStage splits a pipeline into its last stage, which must be
// $out or $merge, and the stages before it.
func parseWriteStage(pipeline value.Value) (*writeStage, value.Value, error) {
	if pipeline.Kind() != value.Array || pipeline.Len() == 0 {
		return nil, value.Value{}, errs.Errorf(errs.Invalid, "plan-aggregate takes a pipeline (an array of stages), found %s", pipeline).
			WithHint(`write the pipeline as an array, e.g. [{"$match":{…}},{"$out":"target"}]`)
	}
	stages := pipeline.Array()
	last := stages[len(stages)-1]
	if last.Kind() != value.Object || last.Len() != 1 || (last.Fields()[0].Key != "$out" && last.Fields()[0].Key != "$merge") {
		return nil, value.Value{}, errs.Errorf(errs.Invalid, "the pipeline of a plan-aggregate must end in $out or $merge").
			WithHint(`end it with {"$out":"summary"} or {"$merge":{"into":"summary"}}; run a pipeline that writes nothing with aggregate`)
	}
	w := &writeStage{out: last.Fields()[0].Key == "$out", on: []string{"_id"}, whenMatched: "merge", whenNotMatched: "insert"}
	spec := last.Fields()[0].Value
	var err error
	if w.out {
		w.target, err = targetName("$out", spec, "coll")
	} else {
		err = w.parseMerge(spec)
	}
	if err != nil {
		return nil, value.Value{}, err
	}
	return w, value.ArrayValue(stages[:len(stages)-1]), nil
}

// targetName reads a target collection: a name, or {db, <key>: name}.
func targetName(stage string, v value.Value, key string) (string, error) {
	if v.Kind() == value.Object {
		if db := v.Get("db"); !db.IsMissing() && db.Kind() != value.String {
			return "", errs.Errorf(errs.Invalid, "%s: 'db' must be a string, found %s", stage, db).
				WithHint(`give the database as a string, or leave db out: a store has one database`)
		}
		v = v.Get(key)
	}
	if v.Kind() != value.String || v.Str() == "" {
		return "", errs.Errorf(errs.Invalid, "%s needs the target collection's name, found %s", stage, v).
			WithHint(`write {"%s":"summary"}`, stage)
	}
	return v.Str(), nil
}

func (w *writeStage) parseMerge(spec value.Value) error {
	if spec.Kind() == value.String {
		w.target = spec.Str()
		return nil
	}
	if spec.Kind() != value.Object {
		return errs.Errorf(errs.Invalid, "$merge takes a collection name or an object with 'into', found %s", spec).
			WithHint(`write {"$merge":"target"} or {"$merge":{"into":"target","on":"_id"}}`)
	}
	for _, f := range spec.Fields() {
		if !slices.Contains(mergeFields, f.Key) {
			return errs.Errorf(errs.Invalid, "$merge: unknown field %s%s", f.Key, errs.DidYouMean(f.Key, mergeFields)).
				WithHint("$merge takes into, on, whenMatched, whenNotMatched and let")
		}
	}
	var err error
	if w.target, err = targetName("$merge", spec.Get("into"), "coll"); err != nil {
		return err
	}
	if on := spec.Get("on"); !on.IsMissing() {
		w.on = nil
		for _, f := range append([]value.Value{}, onList(on)...) {
			if f.Kind() != value.String || f.Str() == "" {
				return errs.Errorf(errs.Invalid, "$merge: 'on' must be a field name or an array of them, found %s", on).
					WithHint(`write "on":"email" or "on":["city","name"]`)
			}
			w.on = append(w.on, f.Str())
		}
		if len(w.on) == 0 {
			return errs.Errorf(errs.Invalid, "$merge: 'on' must name at least one field").
				WithHint(`leave on out to match on _id, or name the fields: "on":["email"]`)
		}
	}
	if wm := spec.Get("whenMatched"); !wm.IsMissing() {
		if wm.Kind() == value.Array {
			w.whenMatched = "pipeline"
			w.pipeline, err = agg.CompileMergeUpdate(wm, spec.Get("let"))
			if err != nil {
				return errs.Errorf(errs.Invalid, "$merge: whenMatched pipeline: %v", err).WithHint("%s", errs.HintOf(err))
			}
		} else if wm.Kind() != value.String || !slices.Contains([]string{"merge", "replace", "keepExisting", "fail"}, wm.Str()) {
			return errs.Errorf(errs.Invalid, "$merge: whenMatched must be \"merge\", \"replace\", \"keepExisting\", \"fail\" or a pipeline, found %s", wm).
				WithHint("a pipeline is an array of $set, $unset, $project, $replaceWith… stages")
		} else {
			w.whenMatched = wm.Str()
		}
	}
	if wn := spec.Get("whenNotMatched"); !wn.IsMissing() {
		if wn.Kind() != value.String || !slices.Contains([]string{"insert", "discard", "fail"}, wn.Str()) {
			return errs.Errorf(errs.Invalid, "$merge: whenNotMatched must be \"insert\", \"discard\" or \"fail\", found %s", wn).
				WithHint("whenNotMatched says what to do with a result no target document matches")
		}
		w.whenNotMatched = wn.Str()
	}
	if let := spec.Get("let"); !let.IsMissing() && let.Kind() != value.Null && w.pipeline == nil {
		return errs.Errorf(errs.Invalid, "$merge: 'let' serves a whenMatched pipeline, and whenMatched is %q", w.whenMatched).
			WithHint(`give whenMatched as a pipeline, such as [{"$set":{"total":"$$total"}}], or drop 'let'`)
	}
	return nil
}

func onList(v value.Value) []value.Value {
	if v.Kind() == value.Array {
		return v.Array()
	}
	return []value.Value{v}
}

// targetDoc is a document of the target, as stored and as planned so far.
type targetDoc struct {
	js      []byte
	before  value.Value
	after   value.Value
	deleted bool
}

// plan adds the items of the writes to b.
func (w *writeStage) plan(tx *store.Tx, results []value.Value, b *builder) error {
	target, err := w.loadTarget(tx)
	if err != nil {
		return err
	}
	docs, order, err := w.compute(target, results, &b.p.Matched)
	if err != nil {
		return err
	}
	return w.addItems(b, docs, order)
}

// compute plans the writes of the results over the target's documents
// (in _id order), counting the results in matched: the $out and $merge
// semantics, shared by a store file and a MongoDB store (writestage.go).
// It returns the target's documents and the new ones by _id key, in the
// target's order and then the results'.
func (w *writeStage) compute(target []*targetDoc, results []value.Value, matched *int64) (map[string]*targetDoc, []string, error) {
	docs := map[string]*targetDoc{} // by _id key
	byOn := map[string]string{}     // key of the on fields -> _id key
	var order []string
	for _, t := range target {
		k := string(value.AppendKey(nil, t.before.Get("_id")))
		docs[k], order = t, append(order, k)
		if ok, key := w.onKey(t.before); ok {
			byOn[key] = k
		}
	}
	seen := map[string]bool{}
	for _, r := range results {
		*matched++
		if w.out {
			k := string(value.AppendKey(nil, r.Get("_id")))
			if seen[k] {
				return nil, nil, errs.Errorf(errs.Conflict, "$out: the pipeline returns _id %s twice", r.Get("_id")).
					WithHint("a collection holds one document per _id; group or project the results so that their _ids differ")
			}
			seen[k] = true
			if t := docs[k]; t != nil {
				t.after = r
			} else {
				docs[k], order = &targetDoc{after: r}, append(order, k)
			}
			continue
		}
		if err := w.merge(r, docs, byOn, &order); err != nil {
			return nil, nil, err
		}
	}
	if w.out { // what the results do not hold is deleted
		for _, k := range order {
			if t := docs[k]; t.js != nil && t.after.IsMissing() {
				t.deleted = true
			}
		}
	}
	return docs, order, nil
}

// loadTarget reads the target collection, if it exists.
func (w *writeStage) loadTarget(tx *store.Tx) ([]*targetDoc, error) {
	c, err := tx.Collection(w.target)
	if isNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if !w.out && !slices.Equal(w.on, []string{"_id"}) {
		var fields []store.IndexField
		for _, f := range w.on {
			fields = append(fields, store.IndexField{Path: f})
		}
		if !w.hasUniqueIndex(c, fields) {
			return nil, w.noUniqueIndex()
		}
	}
	var out []*targetDoc
	cur := c.Scan()
	defer cur.Close()
	for cur.Next() {
		js, err := cur.JSON()
		if err != nil {
			return nil, err
		}
		d := cur.Doc()
		if err := cur.Err(); err != nil {
			return nil, err
		}
		out = append(out, &targetDoc{js: append([]byte(nil), js...), before: d})
	}
	return out, cur.Err()
}

// noUniqueIndex is the error of a $merge whose 'on' fields are not
// those of a unique index of the target, as MongoDB requires.
func (w *writeStage) noUniqueIndex() error {
	return errs.Errorf(errs.Invalid, "$merge: cannot find a unique index on %v of `%s` to verify that the 'on' fields identify one document", w.on, w.target).
		WithHint("create one: omgdb create-index <store> %s %s --unique", w.target, strings.Join(w.on, ","))
}

func (w *writeStage) hasUniqueIndex(c *store.Collection, fields []store.IndexField) bool {
	name := c.FindBTreeIndex(fields)
	for _, def := range c.Indexes() {
		if def.Name == name {
			spec, err := store.ParseBTreeSpec(def)
			return err == nil && spec.Unique
		}
	}
	return false
}

// onKey returns the key of a document's "on" fields; ok is false when
// one is missing, null or an array, which MongoDB refuses in results.
func (w *writeStage) onKey(d value.Value) (bool, string) {
	var key []byte
	for _, f := range w.on {
		v := d
		for _, part := range strings.Split(f, ".") {
			v = v.Get(part)
		}
		if v.IsMissing() || v.Kind() == value.Null || v.Kind() == value.Array {
			return false, ""
		}
		key = value.AppendKey(key, v)
	}
	return true, string(key)
}

// merge plans one result of a $merge.
func (w *writeStage) merge(r value.Value, docs map[string]*targetDoc, byOn map[string]string, order *[]string) error {
	ok, key := w.onKey(r)
	if !ok {
		return errs.Errorf(errs.Invalid, "$merge: the 'on' fields %v of a result cannot be missing, null or an array: %.200s", w.on, r.String()).
			WithHint("every result needs a value (not an array) in each of the on fields; add them with $set or $project before $merge")
	}
	k, matched := byOn[key]
	if matched && docs[k].deleted {
		matched = false
	}
	if !matched {
		switch w.whenNotMatched {
		case "fail":
			return errs.Errorf(errs.Conflict, "$merge: whenNotMatched is \"fail\" and no document of `%s` matches %.200s", w.target, r.String()).
				WithHint(`use whenNotMatched "insert" or "discard", or match the target first`)
		case "discard":
			return nil
		}
		if w.pipeline != nil { // an upsert: the pipeline over the 'on' fields
			var err error
			if r, err = w.upsertDoc(r); err != nil {
				return err
			}
		}
		k = string(value.AppendKey(nil, r.Get("_id")))
		if t := docs[k]; t != nil && (t.js != nil || !t.after.IsMissing()) {
			return errs.Errorf(errs.Conflict, "$merge: _id %s is already in `%s` with other 'on' values", r.Get("_id"), w.target).
				WithHint(`a result keeps its _id; drop it with {"$unset":"_id"} to let the target keep its own`)
		}
		docs[k], byOn[key] = &targetDoc{after: r}, k
		*order = append(*order, k)
		return nil
	}
	t := docs[k]
	cur := t.after
	if cur.IsMissing() {
		cur = t.before
	}
	switch w.whenMatched {
	case "fail":
		return errs.Errorf(errs.Conflict, "$merge: whenMatched is \"fail\" and _id %s of `%s` matches a result", cur.Get("_id"), w.target).
			WithHint(`use whenMatched "merge", "replace" or "keepExisting" to write over it`)
	case "keepExisting":
		return nil
	case "pipeline":
		out, err := w.applyPipeline(cur, r)
		if err != nil {
			return err
		}
		t.after = out
	case "replace":
		if id := r.Get("_id"); !slices.Equal(w.on, []string{"_id"}) && value.Compare(id, cur.Get("_id")) != 0 {
			r = r.With("_id", cur.Get("_id"))
		}
		t.after = r
	default: // merge: the result's top-level fields over the document's
		out := cur
		for _, f := range r.Fields() {
			if f.Key != "_id" {
				out = out.With(f.Key, f.Value)
			}
		}
		t.after = out
	}
	return nil
}

// addItems adds the planned documents, in the target's order and then the
// order of the results.
func (w *writeStage) addItems(b *builder, docs map[string]*targetDoc, order []string) error {
	for _, k := range order {
		it, ok, err := w.itemOf(docs[k])
		if err != nil {
			return err
		}
		if !ok {
			continue // untouched
		}
		if err := b.add(it); err != nil {
			return err
		}
	}
	return nil
}

// itemOf returns the item of a target document, ok false when the
// writes leave it untouched; an update that gives the same bytes is
// opNone.
func (w *writeStage) itemOf(t *targetDoc) (item, bool, error) {
	switch {
	case t.deleted:
		return item{coll: w.target, id: t.before.Get("_id"), op: opDelete, digest: digest(t.js), before: t.before}, true, nil
	case t.after.IsMissing():
		return item{}, false, nil
	}
	after, err := value.PrepareDocument(t.after)
	if err != nil {
		return item{}, false, errs.Errorf(errs.Invalid, "a result cannot be stored in `%s`: %v", w.target, err).
			WithHint("fix the result with $project or $set before the write stage")
	}
	if t.js == nil {
		return item{coll: w.target, id: after.Get("_id"), op: opInsert, after: after}, true, nil
	}
	it := item{coll: w.target, id: t.before.Get("_id"), op: opUpdate, digest: digest(t.js), before: t.before, after: after}
	if string(value.JSON(after)) == string(t.js) {
		it.op, it.after, it.before = opNone, value.Value{}, value.Value{}
	}
	return it, true, nil
}

// applyPipeline runs the whenMatched pipeline on a matched document of
// the target, with the result's variables. The document keeps its _id:
// a pipeline that drops it gets it back, one that changes it is refused.
func (w *writeStage) applyPipeline(doc, result value.Value) (value.Value, error) {
	out, err := w.pipeline.Apply(w.ctx, doc, result, w.now)
	if err != nil && w.ctx != nil && w.ctx.Err() != nil {
		return value.Value{}, w.ctx.Err()
	}
	if err != nil {
		return value.Value{}, errs.Errorf(errs.Invalid, "$merge: whenMatched pipeline on _id %s of `%s`: %v", doc.Get("_id"), w.target, err).
			WithHint("%s", errs.HintOf(err))
	}
	if out.Kind() != value.Object {
		return value.Value{}, errs.Errorf(errs.Invalid, "$merge: the whenMatched pipeline returned %s, not a document", out.TypeName()).
			WithHint("end the whenMatched pipeline with a stage that returns a document")
	}
	id := doc.Get("_id")
	switch got := out.Get("_id"); {
	case got.IsMissing() && !id.IsMissing():
		out = value.ObjectValue(append([]value.Field{{Key: "_id", Value: id}}, out.Fields()...))
	case !id.IsMissing() && value.Compare(got, id) != 0:
		return value.Value{}, errs.Errorf(errs.Invalid, "$merge: the whenMatched pipeline would change _id %s of `%s` to %s: _id is immutable", id, w.target, got).
			WithHint("leave _id alone in the pipeline")
	}
	return out, nil
}

// upsertDoc is the document a whenMatched pipeline inserts for a result
// that matches nothing (whenNotMatched "insert"): the pipeline run on the
// result's 'on' fields, as MongoDB's upsert does; the document gets a new
// ObjectId unless _id is one of the 'on' fields.
func (w *writeStage) upsertDoc(r value.Value) (value.Value, error) {
	var eqs []value.Field
	for _, f := range w.on {
		v := r
		for _, part := range strings.Split(f, ".") {
			v = v.Get(part)
		}
		eqs = append(eqs, value.Field{Key: f, Value: v})
	}
	seed, err := query.UpsertSeed(value.ObjectValue(eqs))
	if err != nil {
		return value.Value{}, err
	}
	if seed.Get("_id").IsMissing() {
		seed = value.ObjectValue(append([]value.Field{{Key: "_id", Value: value.ObjectIDValue(value.NewOID())}}, seed.Fields()...))
	}
	return w.applyPipeline(seed, r)
}
