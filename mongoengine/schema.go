package mongoengine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Schema changes: creating, dropping and renaming collections, creating
// and dropping indexes. Each is one change in the journal
// (omgdb.changes) that lists its steps ("ops"), each a server operation
// whose inverse omgdb knows:
//
//	{op: "rename", coll, to}           undone by renaming to back to coll
//	{op: "create_index", coll, spec}   undone by dropping the index
//	{op: "drop_index", coll, spec}     undone by creating it from spec
//	{op: "create", coll}               undone by renaming coll aside
//	{op: "define", coll, spec}         undone by a define of spec.before (rules.go)
//
// A drop renames the collection aside, to DroppedPrefix + the change id
// (omgdb_dropped_<id>: FerretDB cannot rename to a name with a second
// dot, so not omgdb.dropped.<id>; Collections hides it all the same),
// with its documents, indexes and validator, instead of dropping it: the
// rename is one server operation, and rollback renames it back. The
// space is kept until the aside collection is dropped (by hand, or by
// pruning history). The change is journaled (applying) before its first
// step, "done" counts the steps carried out, and it is marked applied
// after the last; a step the server refuses undoes the ones before it
// and removes the change. After a crash the journal lists the steps and
// Rollback finds, by looking at the collections and indexes, which were
// carried out, and undoes them.

// Schema change kinds (the journal's kind).
const (
	KindCreateCollection = "create_collection"
	KindDrop             = "drop"
	KindRename           = "rename"
	KindCreateIndex      = "create_index"
	KindDropIndex        = "drop_index"
)

// DroppedPrefix starts the name of a dropped collection kept for
// rollback: omgdb_dropped_<change id>. Such collections are hidden and
// not writable, as omgdb.* ones are.
const DroppedPrefix = "omgdb_dropped_"

// Schema step operations.
const (
	stepRename      = "rename"
	stepCreateIndex = "create_index"
	stepDropIndex   = "drop_index"
	stepCreate      = "create"
)

// step is one server operation of a schema change.
type step struct {
	Op   string
	Coll string
	To   string      // rename: the new name
	Spec value.Value // create_index, drop_index: the index's specification; define: the rules after and before
	out  *rulesOut   // define: what the server did with the rules (nil: not wanted)
}

// SchemaResult is what a schema change did.
type SchemaResult struct {
	ChangeID   string
	Kind       string
	Collection string
	RenamedTo  string // rename: the new name
	Documents  int64  // drop and rename: the collection's documents
	Indexes    int    // drop and rename: its indexes (_id_ left out)
	// DroppedTarget counts the documents of the collection a rename with
	// dropTarget replaced (renamed aside); nil when there was none.
	DroppedTarget *int64
	IndexNames    []string // create_index, drop_index: the indexes
	Aside         string   // drop: where the collection is kept
}

// schemaChange is a schema change being made.
type schemaChange struct {
	id    bson.ObjectID
	kind  string
	coll  string
	note  string
	actor string
	steps []step
	extra bson.D // counts and names for history
}

// Drop drops coll, keeping it for rollback: it is renamed aside, with
// its documents, indexes and validator, to DroppedPrefix + the change id.
func (d *DB) Drop(ctx context.Context, coll, actor string) (*SchemaResult, error) {
	if err := writable(coll); err != nil {
		return nil, err
	}
	if _, err := d.collection(ctx, coll); err != nil {
		return nil, err
	}
	n, ix, err := d.sizes(ctx, coll)
	if err != nil {
		return nil, err
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindDrop, coll: coll, note: "drop " + coll, actor: actor}
	aside := DroppedPrefix + sc.id.Hex()
	sc.steps = []step{{Op: stepRename, Coll: coll, To: aside}}
	sc.extra = bson.D{{Key: "deleted", Value: n}, {Key: "indexes", Value: int64(ix)}, {Key: "aside", Value: aside}}
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, err
	}
	return &SchemaResult{ChangeID: sc.id.Hex(), Kind: KindDrop, Collection: coll, Documents: n, Indexes: ix, Aside: aside}, nil
}

// sizes counts coll's documents and indexes (the _id index left out).
func (d *DB) sizes(ctx context.Context, coll string) (int64, int, error) {
	n, err := d.db.Collection(coll).CountDocuments(ctx, bson.D{})
	if err != nil {
		return 0, 0, wrapErr(d.target, "count the documents of", err)
	}
	specs, err := d.IndexSpecs(ctx, coll)
	return n, len(specs), err
}

// Rename renames from to to (MongoDB's renameCollection, in place: the
// documents, indexes and validator move). An existing to is a conflict
// unless dropTarget, which first renames it aside as Drop does, in the
// same change.
func (d *DB) Rename(ctx context.Context, from, to string, dropTarget bool, actor string) (*SchemaResult, error) {
	for _, c := range []string{from, to} {
		if err := writable(c); err != nil {
			return nil, err
		}
	}
	if _, err := d.collection(ctx, from); err != nil {
		return nil, err
	}
	if from == to {
		return nil, errs.Errorf(errs.Invalid, "cannot rename collection `%s` to itself", from).WithHint("give a different new name")
	}
	n, ix, err := d.sizes(ctx, from)
	if err != nil {
		return nil, err
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindRename, coll: from, note: "rename " + from + " to " + to, actor: actor}
	res := &SchemaResult{ChangeID: sc.id.Hex(), Kind: KindRename, Collection: from, RenamedTo: to, Documents: n, Indexes: ix}
	exists, err := d.HasCollection(ctx, to)
	switch {
	case err != nil:
		return nil, err
	case exists && !dropTarget:
		return nil, errs.Errorf(errs.Conflict, "cannot rename `%s` to `%s`: collection `%s` already exists", from, to, to).
			WithHint("choose another name, or pass --drop-target to drop `%s` first (rollback brings it back)", to)
	case exists:
		tn, _, err := d.sizes(ctx, to)
		if err != nil {
			return nil, err
		}
		res.DroppedTarget = &tn
		sc.steps = append(sc.steps, step{Op: stepRename, Coll: to, To: DroppedPrefix + sc.id.Hex()})
	}
	sc.steps = append(sc.steps, step{Op: stepRename, Coll: from, To: to})
	sc.extra = bson.D{{Key: "renamed_to", Value: to}, {Key: "documents", Value: n}, {Key: "indexes", Value: int64(ix)}}
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, err
	}
	return res, nil
}

// Create creates an empty collection, journaled: rollback renames it
// aside (with whatever it holds by then).
func (d *DB) Create(ctx context.Context, coll, actor string) (*SchemaResult, error) {
	if err := writable(coll); err != nil {
		return nil, err
	}
	exists, err := d.HasCollection(ctx, coll)
	if err != nil {
		return nil, err
	}
	if exists {
		return nil, errs.Errorf(errs.Conflict, "collection `%s` already exists", coll).
			WithHint("use it as it is, or choose another name")
	}
	sc := &schemaChange{id: bson.NewObjectID(), kind: KindCreateCollection, coll: coll, note: "create " + coll, actor: actor,
		steps: []step{{Op: stepCreate, Coll: coll}}}
	if err := d.runSchema(ctx, sc); err != nil {
		return nil, err
	}
	return &SchemaResult{ChangeID: sc.id.Hex(), Kind: KindCreateCollection, Collection: coll}, nil
}

// runSchema journals sc as applying, carries out its steps, counting
// them in "done", and marks it applied. A step the server refuses undoes
// the steps before it and removes the change: nothing is left half-done.
func (d *DB) runSchema(ctx context.Context, sc *schemaChange) error {
	steps := bson.A{}
	for _, s := range sc.steps {
		doc, err := stepDoc(s)
		if err != nil {
			return err
		}
		steps = append(steps, doc)
	}
	seq, err := d.nextSeq(ctx, sc.id) // its place in the journal, as every change's
	if err != nil {
		return err
	}
	doc := bson.D{{Key: "_id", Value: sc.id}, {Key: "seq", Value: seq}, {Key: "kind", Value: sc.kind}, {Key: "plan_kind", Value: sc.kind},
		{Key: "collection", Value: sc.coll}, {Key: "actor", Value: sc.actor},
		{Key: "time", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "status", Value: StatusApplying},
		{Key: "note", Value: sc.note}, {Key: "ops", Value: steps}, {Key: "done", Value: int64(0)}}
	doc = append(doc, sc.extra...)
	changes := d.db.Collection(ChangesColl)
	if _, err := changes.InsertOne(ctx, doc); err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	for i, s := range sc.steps {
		if err := d.runStep(ctx, s); err != nil {
			d.undoSteps(context.WithoutCancel(ctx), sc.steps[:i])
			d.forget(context.WithoutCancel(ctx), sc.id)
			return err
		}
		if _, err := changes.UpdateOne(ctx, bson.D{{Key: "_id", Value: sc.id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "done", Value: int64(i + 1)}}}}); err != nil {
			return wrapErr(d.target, "journal the change in", err)
		}
	}
	set := bson.D{{Key: "status", Value: StatusApplied}, {Key: "time", Value: bson.NewDateTimeFromTime(time.Now())}}
	if _, err := changes.UpdateOne(ctx, bson.D{{Key: "_id", Value: sc.id}}, bson.D{{Key: "$set", Value: set}}); err != nil {
		return wrapErr(d.target, "journal the change in", err)
	}
	return nil
}

func stepDoc(s step) (bson.D, error) {
	doc := bson.D{{Key: "op", Value: s.Op}, {Key: "coll", Value: s.Coll}}
	if s.To != "" {
		doc = append(doc, bson.E{Key: "to", Value: s.To})
	}
	if !s.Spec.IsMissing() {
		spec, err := docToBSON(s.Spec)
		if err != nil {
			return nil, err
		}
		doc = append(doc, bson.E{Key: "spec", Value: spec})
	}
	return doc, nil
}

func stepOf(v value.Value) step {
	return step{Op: v.Get("op").Str(), Coll: v.Get("coll").Str(), To: v.Get("to").Str(), Spec: v.Get("spec")}
}

// runStep carries out one step on the server.
func (d *DB) runStep(ctx context.Context, s step) error {
	switch s.Op {
	case stepRename:
		cmd := bson.D{{Key: "renameCollection", Value: d.target.DB + "." + s.Coll}, {Key: "to", Value: d.target.DB + "." + s.To}}
		if err := d.client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			return d.schemaErr(err, fmt.Sprintf("rename `%s` to `%s`", s.Coll, s.To), s.To)
		}
		return d.moveRules(ctx, s.Coll, s.To)
	case stepDefine:
		return d.runDefine(ctx, s)
	case stepCreate:
		if err := d.db.CreateCollection(ctx, s.Coll); err != nil {
			return d.schemaErr(err, fmt.Sprintf("create collection `%s`", s.Coll), s.Coll)
		}
	case stepCreateIndex:
		spec, err := docToBSON(s.Spec)
		if err != nil {
			return err
		}
		cmd := bson.D{{Key: "createIndexes", Value: s.Coll}, {Key: "indexes", Value: bson.A{spec}}}
		if err := d.db.RunCommand(ctx, cmd).Err(); err != nil {
			return d.indexErr(err, s)
		}
	case stepDropIndex:
		cmd := bson.D{{Key: "dropIndexes", Value: s.Coll}, {Key: "index", Value: s.Spec.Get("name").Str()}}
		if err := d.db.RunCommand(ctx, cmd).Err(); err != nil {
			return d.schemaErr(err, fmt.Sprintf("drop index `%s` of `%s`", s.Spec.Get("name").Str(), s.Coll), s.Coll)
		}
	default:
		return errs.Errorf(errs.IO, "the journal of %s holds an unknown step %q", d.target.Redacted, s.Op).
			WithHint("the change was written by a newer omgdb; use that version")
	}
	return nil
}

// schemaErr is a refused schema step, without the server's credentials.
func (d *DB) schemaErr(err error, doing, target string) error {
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 48 || ce.Name == "NamespaceExists") {
		return errs.Errorf(errs.Conflict, "cannot %s: collection `%s` exists in %s", doing, target, d.target.Redacted).
			WithHint("nothing was changed; rename or drop that collection first")
	}
	if refused := d.noCollations(err); refused != nil {
		return refused
	}
	if errors.As(err, &ce) {
		return errs.Errorf(errs.Invalid, "MongoDB at %s refused to %s: %s", d.target.Redacted, doing, Redact(err.Error(), d.target.URI)).
			WithHint("nothing was changed; see `omgdb docs mongodb` for what each server supports")
	}
	return wrapErr(d.target, doing+" in", err)
}

// indexErr maps a refused index build: a unique index the documents
// break is a conflict (exit 69). Its message does not quote the key the
// server names, which may be a redacted value.
func (d *DB) indexErr(err error, s step) error {
	name := s.Spec.Get("name").Str()
	// FerretDB's SQLite gives "UNIQUE constraint failed" where MongoDB
	// gives E11000.
	if mongo.IsDuplicateKeyError(err) || strings.Contains(err.Error(), "E11000") || strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return errs.Errorf(errs.Conflict, "cannot create unique index `%s` on `%s`: some documents have the same key %s", name, s.Coll, keyString(s.Spec.Get("key"))).
			WithHint("find them with `omgdb aggregate` and a $group on the key's fields with $sum and a $match on a count above 1, change or remove them, then create the index again; nothing was created")
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 85 || ce.Code == 86 || ce.Name == "IndexOptionsConflict" || ce.Name == "IndexKeySpecsConflict") {
		return errs.Errorf(errs.Conflict, "cannot create index `%s` on `%s`: %s", name, s.Coll, Redact(err.Error(), d.target.URI)).
			WithHint("an index with the same key or name exists with other options; drop it first (omgdb drop-index) or give another --name")
	}
	return d.schemaErr(err, fmt.Sprintf("create index `%s` on `%s`", name, s.Coll), s.Coll)
}

func keyString(key value.Value) string {
	return string(value.AppendEJSON(nil, key, value.EJSONRelaxed))
}

// inverse is the step that undoes s (a create is undone by renaming the
// collection aside to aside).
func inverse(s step, aside string) step {
	switch s.Op {
	case stepRename:
		return step{Op: stepRename, Coll: s.To, To: s.Coll}
	case stepCreateIndex:
		return step{Op: stepDropIndex, Coll: s.Coll, Spec: s.Spec}
	case stepDropIndex:
		return step{Op: stepCreateIndex, Coll: s.Coll, Spec: s.Spec}
	case stepDefine:
		return step{Op: stepDefine, Coll: s.Coll, Spec: defineSpec(s.Spec.Get("before").Str(), s.Spec.Get("after").Str())}
	}
	return step{Op: stepRename, Coll: s.Coll, To: aside}
}

// undoSteps undoes steps, last first, after a later step failed. What
// cannot be undone stays as it is; the error that stopped the change is
// the one reported.
func (d *DB) undoSteps(ctx context.Context, steps []step) {
	for i := len(steps) - 1; i >= 0; i-- {
		d.runStep(ctx, inverse(steps[i], DroppedPrefix+bson.NewObjectID().Hex()))
	}
}
