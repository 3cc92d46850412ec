package mongoengine

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
)

// Validation rules over MongoDB. A collection's rules (package
// query/rules, as omgdb define writes them) are kept as omgdb's canonical
// JSON text in the "rules" field of the collection's record in
// CopyMetaCollection (omgdb.copy, _id the collection's name: the record
// omgdb copy writes), and omgdb checks them itself on every write it
// makes (plans when they are stored and again when they are applied,
// inserts and imports before a batch is sent), with the store file's
// message. Define also sends them to the server as the collection's
// validator (collMod, rules.Validator), so that writes made around omgdb
// are checked too where the server can; a server that has no collMod or
// no validators (FerretDB) keeps the rules in omgdb's record only, and
// Define says so (DefineResult.ServerEnforces, Note).
//
// Define is one schema change: a "define" step (undone by a define of the
// rules it replaced), after a "create" step when the collection is new.
// A rename step moves the record with the collection (a drop renames
// both aside, and its rollback renames both back).

// KindDefine is the journal's kind of a define.
const KindDefine = "define"

// stepDefine sets a collection's rules: spec {after, before}, each the
// rules' canonical JSON text, or missing for none.
const stepDefine = "define"

// DefineResult is what Define did.
type DefineResult struct {
	ChangeID string
	Report   *rules.Report // the existing documents checked against the new rules
	// ServerEnforces says whether the server took the rules as its
	// validator; when it did not, Note says why and what is not checked.
	ServerEnforces bool
	Note           string
}

// rulesOut receives what a define step learnt of the server.
type rulesOut struct {
	enforces bool
	note     string
}

// Rules returns coll's rules, or nil when it has none.
func (d *DB) Rules(ctx context.Context, coll string) (*rules.Rules, error) {
	text, err := d.rulesText(ctx, coll)
	if err != nil || text == "" {
		return nil, err
	}
	spec, err := value.ParseString(text)
	var r *rules.Rules
	if err == nil {
		r, err = rules.Compile(spec)
	}
	if err != nil {
		return nil, errs.Errorf(errs.IO, "%s in %s: unreadable rules of `%s`: %v", CopyMetaCollection, d.target.Redacted, coll, err).
			WithHint("define the rules again with `omgdb define`")
	}
	return r, nil
}

// rulesText reads the text of coll's rules ("" for none).
func (d *DB) rulesText(ctx context.Context, coll string) (string, error) {
	meta, err := d.CopyMeta(ctx, coll)
	if err != nil {
		return "", err
	}
	return meta.Get("rules").Str(), nil
}

// checkItems checks the after-image of each item against coll's rules:
// the first document that breaks them is the error, as a store file's.
func (d *DB) checkItems(ctx context.Context, coll string, items []Item) error {
	r, err := d.Rules(ctx, coll)
	if err != nil || r == nil {
		return err
	}
	for _, it := range items {
		if !it.After.IsMissing() {
			if err := r.Check(coll, it.After); err != nil {
				return err
			}
		}
	}
	return nil
}

// Define replaces coll's rules with spec (rules.Compile; the empty
// document clears them), creating coll if it does not exist, as one
// journaled change that Rollback undoes. The existing documents are all
// read first and checked against the new rules: those that break them
// are counted in the report, not changed, and do not stop the define (as
// on a store file). A "collation" key is refused: MongoDB fixes a
// collection's collation when it is created.
func (d *DB) Define(ctx context.Context, coll string, spec value.Value, actor string) (*DefineResult, error) {
	if err := writable(coll); err != nil {
		return nil, err
	}
	compiled, err := rules.Compile(spec)
	if err != nil {
		return nil, err
	}
	if !spec.Get("collation").IsMissing() {
		return nil, errs.Errorf(errs.Usage, "rules with a `collation` are not supported over MongoDB").
			WithHint("MongoDB fixes a collection's collation when the collection is created; define the rules without it, and pass --collation to each query")
	}
	before, err := d.rulesText(ctx, coll)
	if err != nil {
		return nil, err
	}
	exists, err := d.HasCollection(ctx, coll)
	if err != nil {
		return nil, err
	}
	var after []byte
	if compiled != nil {
		after = value.JSON(compiled.Spec())
	}
	rep := rules.NewReport(coll, after)
	if exists && compiled != nil {
		if err := d.countBreaking(ctx, compiled, rep); err != nil {
			return nil, err
		}
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindDefine, coll: coll, note: "define " + coll, actor: actor}
	if !exists {
		sc.steps = append(sc.steps, step{Op: stepCreate, Coll: coll})
	}
	out := &rulesOut{}
	sc.steps = append(sc.steps, step{Op: stepDefine, Coll: coll, Spec: defineSpec(string(after), before), out: out})
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, err
	}
	return &DefineResult{ChangeID: sc.id.Hex(), Report: rep, ServerEnforces: out.enforces, Note: out.note}, nil
}

// defineSpec is a define step's spec: the rules' texts after and before.
func defineSpec(after, before string) value.Value {
	var f []value.Field
	if after != "" {
		f = append(f, value.Field{Key: "after", Value: value.StringValue(after)})
	}
	if before != "" {
		f = append(f, value.Field{Key: "before", Value: value.StringValue(before)})
	}
	return value.ObjectValue(f)
}

// countBreaking reads every document of coll, in _id order, and counts
// in rep those that break r.
func (d *DB) countBreaking(ctx context.Context, r *rules.Rules, rep *rules.Report) error {
	cur, err := d.db.Collection(rep.Collection).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return wrapErr(d.target, "read", err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		doc, err := fromDoc(cur.Current)
		if err != nil {
			return err
		}
		rep.Count(r, doc)
	}
	return wrapIfErr(d.target, "read", cur.Err())
}

// runDefine carries out a define step: the server's validator first
// (collMod), so that a server refusing the rules leaves nothing written,
// then omgdb's record. A server without collMod or validators is no
// error: the rules are then omgdb's only, and s.out says so.
func (d *DB) runDefine(ctx context.Context, s step) error {
	text := s.Spec.Get("after").Str()
	enforces, note, err := d.setValidator(ctx, s.Coll, text)
	if err != nil {
		return err
	}
	if s.out != nil {
		s.out.enforces, s.out.note = enforces, note
	}
	var upd bson.D
	if text == "" {
		upd = bson.D{{Key: "$unset", Value: bson.D{{Key: "rules", Value: ""}}}}
	} else {
		upd = bson.D{{Key: "$set", Value: bson.D{{Key: "rules", Value: text}}}}
	}
	_, err = d.db.Collection(CopyMetaCollection).UpdateOne(ctx, bson.D{{Key: "_id", Value: s.Coll}}, upd, options.UpdateOne().SetUpsert(text != ""))
	return wrapIfErr(d.target, "record the rules in", err)
}

// setValidator sends the rules (text; "" for none) to the server as
// coll's validator with collMod. It reports whether the server enforces
// them, and otherwise why not.
func (d *DB) setValidator(ctx context.Context, coll, text string) (bool, string, error) {
	var spec value.Value
	if text != "" {
		var err error
		if spec, err = value.ParseString(text); err != nil {
			return false, "", errs.Errorf(errs.IO, "unreadable rules of `%s` in the journal of %s: %v", coll, d.target.Redacted, err)
		}
	}
	validator, untranslated := rules.Validator(spec)
	if validator.IsMissing() {
		validator = value.ObjectValue(nil)
	}
	v, err := docToBSON(validator)
	if err != nil {
		return false, "", err
	}
	cmd := bson.D{{Key: "collMod", Value: coll}, {Key: "validator", Value: v}}
	err = d.db.RunCommand(ctx, cmd).Err()
	switch {
	case noValidators(err) && text == "":
		return false, "", nil // no rules, none to check
	case noValidators(err):
		return false, fmt.Sprintf("MongoDB at %s does not take validators (%s): omgdb checks the rules of `%s` on every write it makes, but writes made around omgdb are not checked on this deployment",
			d.target.Redacted, Redact(err.Error(), d.target.URI), coll), nil
	case err != nil:
		return false, "", d.schemaErr(err, fmt.Sprintf("set the validator of `%s`", coll), coll)
	case untranslated != "":
		return true, fmt.Sprintf("the rules of `%s` have %s, which a MongoDB validator cannot express: omgdb checks them on every write it makes, the server does not", coll, untranslated), nil
	}
	return true, "", nil
}

// noValidators reports a server that has no collMod or no validators:
// NotImplemented (FerretDB), CommandNotFound, CommandNotSupported.
func noValidators(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && (ce.Code == 238 || ce.Code == 59 || ce.Code == 115 ||
		ce.Name == "NotImplemented" || ce.Name == "CommandNotFound" || ce.Name == "CommandNotSupported")
}

// moveRules moves the record of from (rules and copy's index
// definitions) to to, with a renamed collection; a collection without a
// record moves nothing, and a record of to is replaced.
func (d *DB) moveRules(ctx context.Context, from, to string) error {
	meta, err := d.CopyMeta(ctx, from)
	if err != nil || meta.IsMissing() {
		return err
	}
	fields := []value.Field{{Key: "_id", Value: value.StringValue(to)}}
	for _, f := range meta.Fields() {
		if f.Key != "_id" {
			fields = append(fields, f)
		}
	}
	if err := d.SetCopyMeta(ctx, to, value.ObjectValue(fields)); err != nil {
		return err
	}
	_, err = d.db.Collection(CopyMetaCollection).DeleteOne(ctx, bson.D{{Key: "_id", Value: from}})
	return wrapIfErr(d.target, "write to", err)
}

// lazyRules reads a collection's rules once, when a write first needs
// them (an insert or import reads them at its first batch).
type lazyRules struct {
	r    *rules.Rules
	read bool
}

func (l *lazyRules) get(ctx context.Context, d *DB, coll string) (*rules.Rules, error) {
	if !l.read {
		r, err := d.Rules(ctx, coll)
		if err != nil {
			return nil, err
		}
		l.r, l.read = r, true
	}
	return l.r, nil
}

// check checks doc (Missing: nothing written) against coll's rules.
func (l *lazyRules) check(ctx context.Context, d *DB, coll string, doc value.Value) error {
	r, err := l.get(ctx, d, coll)
	if err != nil || r == nil || doc.IsMissing() {
		return err
	}
	return r.Check(coll, doc)
}

// first returns the index of the first of docs that breaks coll's rules
// and its error, or -1 (with the error of reading the rules, if any).
func (l *lazyRules) first(ctx context.Context, d *DB, coll string, docs []value.Value) (int, error) {
	for i, doc := range docs {
		if err := l.check(ctx, d, coll, doc); err != nil {
			if errors.Is(err, rules.ErrViolation) {
				return i, err
			}
			return -1, err
		}
	}
	return -1, nil
}

// WithIDs gives each document without an _id a new ObjectId, first.
func WithIDs(docs []value.Value) []value.Value {
	out := docs
	for i, doc := range docs {
		if doc.Get("_id").IsMissing() {
			if &out[0] == &docs[0] {
				out = append([]value.Value(nil), docs...)
			}
			out[i] = value.ObjectValue(append([]value.Field{{Key: "_id", Value: value.ObjectIDValue(value.NewOID())}}, doc.Fields()...))
		}
	}
	return out
}
