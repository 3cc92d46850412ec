package mongoengine

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Import modes other than insert, as on a store file (store.Mode).
const (
	ModeInsert = "insert"
	ModeUpsert = "upsert" // replace the matching document, or insert
	ModeMerge  = "merge"  // set the document's top-level fields in the match, or insert
	ModeDelete = "delete" // delete the matching document
)

// ImportSpec says what an ImportPlan imports.
type ImportSpec struct {
	Collection string
	Mode       string   // ModeInsert, ModeUpsert, ModeMerge or ModeDelete
	Fields     []string // the fields a document is matched by (default _id; dotted names allowed)
	Actor      string
}

// ImportPlan is an import in the modes upsert, merge and delete (or an
// --atomic one in any mode): each document is matched with the stored
// document it names (by _id, or by Fields: the first match in _id
// order), and the write it makes (an insert, a replacement with its
// before- and after-image, a deletion with its before-image) becomes an
// item of one plan, kind "import-<mode>", that Apply then writes as any
// plan: each document under its precondition, or in one transaction. So
// the import is one change, and Rollback brings back replaced, merged and
// deleted documents. Nothing is written before Apply; the plan is held in
// memory until then. A document matching a document that an earlier
// document of the same import writes is refused (a bad document): over
// MongoDB each document is written once per import. It is not safe for
// concurrent use.
type ImportPlan struct {
	d       *DB
	spec    ImportSpec
	p       *Plan
	written map[string]bool // the _ids of the documents the plan writes
	keys    map[string]bool // the match keys of their before- and after-images
	Matched int64           // documents that matched a stored one
	rules   lazyRules
}

// NewImportPlan starts an import plan into spec.Collection.
func (d *DB) NewImportPlan(spec *ImportSpec) (*ImportPlan, error) {
	if err := writable(spec.Collection); err != nil {
		return nil, err
	}
	if len(spec.Fields) == 1 && spec.Fields[0] == "_id" {
		spec.Fields = nil
	}
	p := newPlan("import-"+spec.Mode, &PlanSpec{Collection: spec.Collection, Actor: spec.Actor})
	return &ImportPlan{d: d, spec: *spec, p: p, written: map[string]bool{}, keys: map[string]bool{}}, nil
}

// ChangeID is the change's id once Apply has journaled it (empty before).
func (ip *ImportPlan) ChangeID() string {
	if ip.p.Status == StatusPending {
		return ""
	}
	return ip.p.Token
}

// Target is the deployment's URI as it may be printed.
func (ip *ImportPlan) Target() string { return ip.d.target.Redacted }

// Insert plans docs in order, as Inserter.Insert writes them: it returns
// their _ids (as far as known), how many were planned, and the index and
// error of the first refused one (-1: none).
func (ip *ImportPlan) Insert(ctx context.Context, docs []value.Value) ([]value.Value, int, int, error) {
	ids := make([]value.Value, 0, len(docs))
	for i, doc := range docs {
		id, err := ip.add(ctx, doc)
		if err != nil {
			if errs.KindOf(err) == errs.IO || ctx.Err() != nil {
				return ids, i, -1, err // the server's failure, not the document's
			}
			return ids, i, i, err
		}
		ids = append(ids, id)
	}
	return ids, len(docs), -1, nil
}

// add plans one document and returns its _id.
func (ip *ImportPlan) add(ctx context.Context, doc value.Value) (value.Value, error) {
	key, hasKey := ip.key(doc)
	if hasKey && ip.keys[key] {
		return value.Value{}, ip.twice(doc)
	}
	cur, found, err := ip.match(ctx, doc, hasKey)
	if err != nil {
		return value.Value{}, err
	}
	if found && ip.spec.Mode == ModeInsert {
		return value.Value{}, duplicate(doc.Get("_id"), ip.spec.Collection, false, "")
	}
	if found {
		return ip.matched(ctx, doc, cur)
	}
	if ip.spec.Mode == ModeDelete {
		return doc.Get("_id"), nil
	}
	if doc.Get("_id").IsMissing() {
		doc = value.ObjectValue(append([]value.Field{{Key: "_id", Value: value.ObjectIDValue(value.NewOID())}}, doc.Fields()...))
	}
	if ip.written[idKey(doc.Get("_id"))] {
		return value.Value{}, ip.twice(doc)
	}
	return doc.Get("_id"), ip.item(ctx, Item{ID: doc.Get("_id"), Op: OpInsert, After: doc})
}

// matched plans the write to the stored document cur that doc matched.
func (ip *ImportPlan) matched(ctx context.Context, doc, cur value.Value) (value.Value, error) {
	id := cur.Get("_id")
	if ip.written[idKey(id)] {
		return value.Value{}, ip.twice(doc)
	}
	if newID := doc.Get("_id"); !newID.IsMissing() && idKey(newID) != idKey(id) {
		return value.Value{}, errs.Errorf(errs.Invalid, "the document matches _id %s by %v but has _id %s", id, ip.spec.Fields, newID).
			WithHint("_id is immutable: leave _id out of the input, or match on _id")
	}
	ip.Matched++
	if ip.spec.Mode == ModeDelete {
		return id, ip.item(ctx, Item{ID: id, Op: OpDelete, Before: cur})
	}
	after := doc.With("_id", id).IDFirst()
	if ip.spec.Mode == ModeMerge {
		after = cur
		for _, f := range doc.Fields() {
			if f.Key != "_id" {
				after = after.With(f.Key, f.Value)
			}
		}
	}
	after, err := value.PrepareDocument(after)
	if err != nil {
		return value.Value{}, err
	}
	if !sameDoc(after, cur) {
		if err := ip.item(ctx, Item{ID: id, Op: OpUpdate, Before: cur, After: after}); err != nil {
			ip.Matched-- // a document its rules refuse is not counted, as on a file
			return value.Value{}, err
		}
	}
	return id, nil
}

// item adds it to the plan, and remembers what it writes; an
// after-image that breaks the collection's rules is refused.
func (ip *ImportPlan) item(ctx context.Context, it Item) error {
	if err := ip.rules.check(ctx, ip.d, ip.spec.Collection, it.After); err != nil {
		return err
	}
	ip.p.Items = append(ip.p.Items, it)
	ip.written[idKey(it.ID)] = true
	for _, img := range []value.Value{it.Before, it.After} {
		if k, ok := ip.key(img); ok && !img.IsMissing() {
			ip.keys[k] = true
		}
	}
	return nil
}

func (ip *ImportPlan) twice(doc value.Value) error {
	by := "_id"
	if ip.spec.Fields != nil {
		by = strings.Join(ip.spec.Fields, ",")
	}
	return errs.Errorf(errs.Invalid, "the document matches (by %s) a document that an earlier document of this import writes", by).
		WithHint("over MongoDB an import writes each document once: import the later document in a second run, or leave it out with --on-error skip")
}

// key is doc's match key: the canonical JSON of its match fields' values
// (false when it has none of them).
func (ip *ImportPlan) key(doc value.Value) (string, bool) {
	if ip.spec.Fields == nil {
		id := doc.Get("_id")
		return idKey(id), !id.IsMissing()
	}
	var b []byte
	found := false
	for _, name := range ip.spec.Fields {
		v := doc.ObjectPath(strings.Split(name, "."))
		found = found || !v.IsMissing()
		b = append(value.AppendJSON(append(b, name...), v), 0)
	}
	return string(b), found
}

// match reads the stored document doc matches: by _id, or the first in
// _id order whose match fields equal doc's.
func (ip *ImportPlan) match(ctx context.Context, doc value.Value, hasKey bool) (value.Value, bool, error) {
	if !hasKey {
		return value.Value{}, false, nil
	}
	filter := bson.D{}
	if ip.spec.Fields == nil {
		id, err := toBSON(doc.Get("_id"))
		if err != nil {
			return value.Value{}, false, err
		}
		filter = bson.D{{Key: "_id", Value: id}}
	}
	for _, name := range ip.spec.Fields {
		if v := doc.ObjectPath(strings.Split(name, ".")); !v.IsMissing() {
			bv, err := toBSON(v)
			if err != nil {
				return value.Value{}, false, err
			}
			filter = append(filter, bson.E{Key: name, Value: bson.D{{Key: "$eq", Value: bv}}})
		}
	}
	raw, err := ip.d.db.Collection(ip.spec.Collection).FindOne(ctx, filter, options.FindOne().SetSort(bson.D{{Key: "_id", Value: 1}})).Raw()
	if isNoDocuments(err) {
		return value.Value{}, false, nil
	}
	if err != nil {
		return value.Value{}, false, wrapErr(ip.d.target, "read from", err)
	}
	v, err := fromDoc(raw)
	return v, err == nil, err
}

// Apply stores the plan and applies it (see DB.Apply). A plan that writes
// nothing is not journaled: the result's ChangeID is then empty.
func (ip *ImportPlan) Apply(ctx context.Context) (*ApplyResult, error) {
	ip.p.Matched, ip.p.Modified = ip.Matched, int64(len(ip.p.Items))
	if len(ip.p.Items) == 0 {
		return &ApplyResult{Kind: ip.p.Kind, Collection: ip.spec.Collection}, nil
	}
	if err := ip.d.savePlan(ctx, ip.p); err != nil {
		return nil, err
	}
	ip.p.Status = StatusApplying
	return ip.d.Apply(ctx, ip.p.Token, &ApplyOptions{Actor: ip.spec.Actor})
}

// Transactions reports whether the deployment runs multi-document
// transactions (a replica set member or a mongos).
func (d *DB) Transactions(ctx context.Context) (bool, error) { return d.transactions(ctx) }
