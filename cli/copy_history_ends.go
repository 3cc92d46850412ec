package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The two ends of copy --history: a store file's journal read and
// written record by record, a deployment's through mongoengine.Carry.

// journal reads the file's journal, oldest first, one carried change per
// change id (an import's batches are one change), each document with the
// image it had before the change and the one it had after: the
// before-image of the next operation on it, or the current document.
// The journal is held in memory.
func (f *fileEnd) journal(ctx context.Context) ([]*carriedChange, error) {
	var out []*carriedChange
	err := f.db.View(func(tx *store.Tx) error {
		var recs []*store.Record
		err := tx.Journal(1, func(r *store.Record) (bool, error) {
			recs = append(recs, r)
			return true, ctx.Err()
		})
		if err != nil {
			return err
		}
		afters, err := fileAfters(tx, recs)
		if err != nil {
			return err
		}
		out, err = groupRecords(tx, recs, afters)
		return err
	})
	return out, err
}

func isDocOp(op *store.Op) bool {
	return op.Op == store.OpInsert || op.Op == store.OpUpdate || op.Op == store.OpDelete
}

func opKey(coll string, id value.Value) string {
	return coll + "\x00" + string(value.AppendKey(nil, id))
}

// fileAfters returns, for each document operation of recs, the document
// right after it, walking the journal from its end back.
func fileAfters(tx *store.Tx, recs []*store.Record) ([][]value.Value, error) {
	afters := make([][]value.Value, len(recs))
	state := map[string]value.Value{}
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		afters[i] = make([]value.Value, len(r.Ops))
		for j := len(r.Ops) - 1; j >= 0; j-- {
			op := &r.Ops[j]
			if !isDocOp(op) {
				continue
			}
			k := opKey(op.Coll, op.ID)
			cur, seen := state[k]
			if !seen {
				var err error
				if cur, err = currentDoc(tx, op.Coll, op.ID); err != nil {
					return nil, err
				}
			}
			afters[i][j] = cur
			state[k] = op.Before // Missing before an insert
		}
	}
	return afters, nil
}

// currentDoc returns the document coll holds under id, or Missing.
func currentDoc(tx *store.Tx, coll string, id value.Value) (value.Value, error) {
	c, err := tx.Collection(coll)
	if errs.KindOf(err) == errs.NotFound {
		return value.Value{}, nil
	}
	if err != nil {
		return value.Value{}, err
	}
	doc, err := c.Get(id)
	if errs.KindOf(err) == errs.NotFound {
		return value.Value{}, nil
	}
	return doc, err
}

// groupRecords makes one carried change of each change's records, which
// must follow each other in the journal.
func groupRecords(tx *store.Tx, recs []*store.Record, afters [][]value.Value) ([]*carriedChange, error) {
	var out []*carriedChange
	seen := map[string]bool{}
	var cur *changeBuilder
	for i, r := range recs {
		if cur == nil || cur.c.ID != r.Change {
			if seen[r.Change] {
				return nil, errs.Errorf(errs.Invalid, "change %s of %s has records apart in the journal (lsn %d comes after another change's): copy --history cannot carry it", r.Change, tx.DB().Path(), r.LSN).
					WithHint("copy without --history")
			}
			seen[r.Change] = true
			if cur != nil {
				out = append(out, cur.done())
			}
			cur = newChangeBuilder(tx, r)
		}
		cur.add(r, afters[i])
	}
	if cur != nil {
		out = append(out, cur.done())
	}
	return out, nil
}

// changeBuilder gathers one change's records.
type changeBuilder struct {
	c      *carriedChange
	byKey  map[string]int // item index by collection and _id
	schema []value.Value  // operations on collections, indexes and rules
	colls  map[string]bool
}

func newChangeBuilder(tx *store.Tx, r *store.Record) *changeBuilder {
	c := &carriedChange{Carried: mongoengine.Carried{ID: r.Change, Kind: r.Kind, Actor: r.Actor, Note: r.Note,
		RollbackOf: tx.Rollbacks().Undid(r.Change)}}
	return &changeBuilder{c: c, byKey: map[string]int{}, colls: map[string]bool{}}
}

// add takes one record: each document's first before-image and last
// after-image, and the other operations as they are.
func (b *changeBuilder) add(r *store.Record, afters []value.Value) {
	b.c.Time, b.c.lastLSN = r.Time, r.LSN
	for j := range r.Ops {
		op := &r.Ops[j]
		b.colls[op.Coll] = true
		if !isDocOp(op) {
			rec := store.Record{Ops: []store.Op{*op}}
			b.schema = append(b.schema, rec.Value().Get("ops").Array()[0])
			switch op.Op {
			case store.OpCreateCollection:
				b.c.Create, b.c.Creates = true, true
			case store.OpDropCollection:
				b.c.Drop = true
			}
			continue
		}
		k := opKey(op.Coll, op.ID)
		if i, ok := b.byKey[k]; ok {
			b.c.Items[i].After = afters[j]
			continue
		}
		b.byKey[k] = len(b.c.Items)
		b.c.Items = append(b.c.Items, mongoengine.Item{ID: op.ID, Before: op.Before, After: afters[j]})
		b.c.itemColls = append(b.c.itemColls, op.Coll)
	}
}

// done names each item's operation from its images and drops the
// documents the change put back as they were absent.
func (b *changeBuilder) done() *carriedChange {
	c := b.c
	items, colls := c.Items[:0], c.itemColls[:0]
	for i, it := range c.Items {
		switch {
		case it.Before.IsMissing() && it.After.IsMissing():
			continue
		case it.Before.IsMissing():
			it.Op = mongoengine.OpInsert
		case it.After.IsMissing():
			it.Op = mongoengine.OpDelete
		default:
			it.Op = mongoengine.OpUpdate
		}
		items, colls = append(items, it), append(colls, c.itemColls[i])
	}
	c.Items, c.itemColls = items, colls
	for k := range b.colls {
		c.colls = append(c.colls, k)
	}
	slices.Sort(c.colls)
	if len(c.colls) == 1 {
		c.Collection = c.colls[0]
	}
	if len(b.schema) > 0 {
		c.FileOps = string(value.JSON(value.ArrayValue(b.schema)))
	}
	return c
}

// empty refuses a store file that holds a collection or a journal.
func (f *fileEnd) empty(context.Context) error {
	return f.db.View(func(tx *store.Tx) error {
		if n := len(tx.Collections()); n > 0 || tx.LastLSN() > 0 {
			return errs.Errorf(errs.Conflict, "%s is not empty (%d collection(s), journal through lsn %d): copy --history replays the source's journal into an empty store", f.path, n, tx.LastLSN()).
				WithHint("copy into a new store file, or add --resume to go on with a copy --history that stopped")
		}
		return nil
	})
}

// canCarry takes every change: a file replays each schema step of a
// change made over MongoDB (carrySteps).
func (f *fileEnd) canCarry(*carriedChange) error { return nil }

// carry writes the change as one transaction under its own id, kind,
// actor, note and time: its documents, then its other operations in
// order, then the rollback link. A change already in the journal (an
// earlier run of a resumed copy) is left as it is.
func (f *fileEnd) carry(ctx context.Context, c *carriedChange) (bool, error) {
	done := false
	ch := store.Change{ID: c.ID, Kind: c.Kind, Actor: c.Actor, Note: c.Note, Time: c.Time}
	err := f.db.Update(ch, func(tx *store.Tx) error {
		if recs, err := tx.ChangeRecords(c.ID); err != nil || len(recs) > 0 {
			done = len(recs) > 0
			return err
		}
		if c.Create && c.Collection != "" && c.FileOps == "" {
			if _, err := tx.CreateCollection(c.Collection); err != nil {
				return err
			}
		}
		for i, it := range c.Items {
			if err := carryDoc(tx, c.itemColls[i], it); err != nil {
				return err
			}
		}
		if err := carryFileOps(tx, c.FileOps); err != nil {
			return err
		}
		if c.FileOps == "" { // a file's change carried there and back has both
			if err := carrySteps(ctx, tx, c.Steps); err != nil {
				return err
			}
		}
		if c.RollbackOf != "" {
			return tx.Rollbacks().Link(c.RollbackOf, c.ID)
		}
		return nil
	})
	return done, err
}

// carryDoc writes one document's after-image (or deletes it).
func carryDoc(tx *store.Tx, coll string, it mongoengine.Item) error {
	c, err := tx.CreateCollection(coll)
	if err != nil {
		return err
	}
	switch {
	case it.After.IsMissing():
		return c.Delete(it.ID)
	case it.Before.IsMissing():
		_, err = c.Insert(it.After)
		return err
	}
	return c.Replace(it.ID, it.After)
}

// carryFileOps replays a store file's operations on collections, indexes
// and rules (the journal's form: {op, coll, index, rules}).
func carryFileOps(tx *store.Tx, ops string) error {
	if ops == "" {
		return nil
	}
	list, err := value.ParseString(ops)
	if err != nil {
		return errs.Errorf(errs.IO, "unreadable operations of a carried change: %v", err)
	}
	for _, o := range list.Array() {
		if err := carryFileOp(tx, o); err != nil {
			return err
		}
	}
	return nil
}

func carryFileOp(tx *store.Tx, o value.Value) error {
	coll := o.Get("coll").Str()
	if o.Get("op").Str() == store.OpDropCollection {
		return tx.DropCollection(coll)
	}
	c, err := tx.CreateCollection(coll)
	if err != nil {
		return err
	}
	ix := o.Get("index")
	switch o.Get("op").Str() {
	case store.OpCreateIndex:
		_, err = c.CreateIndexes(store.IndexDef{Name: ix.Get("name").Str(), Kind: ix.Get("kind").Str(), Spec: value.JSON(ix.Get("spec"))})
	case store.OpDropIndex:
		err = c.DropIndex(ix.Get("name").Str())
	case store.OpDefine:
		rules := o.Get("rules")
		if rules.IsMissing() {
			rules = value.ObjectValue(nil)
		}
		_, err = c.Define(rules)
	}
	return err
}

// carrySteps replays the schema steps of a change made over MongoDB:
// index steps as index operations, a collection created, a rename as a
// file's rename, a rename aside (a drop) as a drop, and a rename back
// from aside (the rollback of a drop) as the restore of what the drop
// removed.
func carrySteps(ctx context.Context, tx *store.Tx, steps []value.Value) error {
	for _, s := range steps {
		coll, to, spec := s.Get("coll").Str(), s.Get("to").Str(), s.Get("spec")
		var err error
		switch s.Get("op").Str() {
		case "rename":
			err = carryRename(ctx, tx, coll, to)
		case "create":
			_, err = tx.CreateCollection(coll)
		case "create_index":
			var def store.IndexDef
			var c *store.Collection
			if def, err = indexFromMongo(spec); err == nil {
				if c, err = tx.CreateCollection(coll); err == nil {
					_, err = c.CreateIndexes(def)
				}
			}
		case "drop_index":
			var c *store.Collection
			if c, err = tx.Collection(coll); err == nil {
				err = c.DropIndex(spec.Get("name").Str())
			}
		default:
			err = errs.Errorf(errs.IO, "unknown schema step %q", s.Get("op").Str())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// carryRename replays a rename step.
func carryRename(ctx context.Context, tx *store.Tx, from, to string) error {
	switch {
	case strings.HasPrefix(to, mongoengine.DroppedPrefix): // a drop: kept aside there
		if _, err := tx.Collection(from); errs.KindOf(err) == errs.NotFound {
			return nil // never journaled here: nothing to drop
		}
		return tx.DropCollection(from)
	case strings.HasPrefix(from, mongoengine.DroppedPrefix): // its rollback
		return restoreAside(tx, strings.TrimPrefix(from, mongoengine.DroppedPrefix), to)
	}
	return changes.RenameInTx(ctx, tx, from, to, false)
}

// restoreAside brings coll back as the carried change id dropped it: its
// documents, indexes and rules, from that change's journal operations on
// coll (up to its drop_collection).
func restoreAside(tx *store.Tx, id, coll string) error {
	recs, err := tx.ChangeRecords(id)
	if err != nil {
		return err
	}
	var ops []store.Op
	for _, r := range recs {
		for _, op := range r.Ops {
			if op.Coll == coll {
				ops = append(ops, op)
			}
		}
	}
	if i := slices.IndexFunc(ops, func(op store.Op) bool { return op.Op == store.OpDropCollection }); i >= 0 {
		ops = ops[:i]
	} else {
		return errs.Errorf(errs.Invalid, "collection `%s` comes back from change %s, which did not drop it in the target's journal", coll, id).
			WithHint("copy without --history")
	}
	c, err := tx.CreateCollection(coll)
	if err != nil {
		return err
	}
	var defs []store.IndexDef
	var rules value.Value
	for _, op := range ops {
		switch op.Op {
		case store.OpDelete:
			if _, err := c.Insert(op.Before); err != nil {
				return err
			}
		case store.OpDropIndex:
			defs = append(defs, *op.Index)
		case store.OpDefine:
			rules = op.Before
		}
	}
	if _, err := c.CreateIndexes(defs...); err != nil {
		return err
	}
	if !rules.IsMissing() {
		_, err = c.Define(rules)
	}
	return err
}

// journal reads the deployment's journal, oldest first.
func (m *mongoEnd) journal(ctx context.Context) ([]*carriedChange, error) {
	var out []*carriedChange
	err := m.db.CarryOut(ctx, func(c *mongoengine.Carried) error {
		cc := &carriedChange{Carried: *c}
		cc.Note = mongoChangeNote(c.Change) // as history shows it
		for range c.Items {
			cc.itemColls = append(cc.itemColls, c.Collection)
		}
		if c.Collection != "" {
			cc.colls = []string{c.Collection}
		}
		out = append(out, cc)
		return nil
	})
	return out, err
}

// empty refuses a database that holds a collection or a journal.
func (m *mongoEnd) empty(ctx context.Context) error {
	names, err := m.db.Collections(ctx)
	if err != nil {
		return err
	}
	hist, err := m.db.HasHistory(ctx)
	if err != nil {
		return err
	}
	if len(names) > 0 || hist {
		what := fmt.Sprintf("%d collection(s)", len(names))
		if hist {
			what += " and omgdb history"
		}
		return errs.Errorf(errs.Conflict, "%s is not empty (%s): copy --history replays the source's journal into an empty database", m.where(), what).
			WithHint("copy into a new database (the URI's last part), or add --resume to go on with a copy --history that stopped")
	}
	return nil
}

// canCarry refuses a change that writes several collections (a change
// over MongoDB writes one, a file's rename aside) and a change id that
// is not an ObjectId.
func (m *mongoEnd) canCarry(c *carriedChange) error {
	if _, _, _, ok := fileRename(c); len(c.colls) > 1 && !ok {
		return usage("change %s (%s) of the source writes %d collections (%s): a change over MongoDB writes one, so copy --history cannot carry it into MongoDB", c.ID, c.Kind, len(c.colls), strings.Join(c.colls, ", ")).
			WithHint("copy without --history (the target's history then starts with the copy)")
	}
	if _, ok := value.ParseOID(c.ID); !ok {
		return errs.Errorf(errs.Invalid, "change id %q of the source is not an ObjectId: a change over MongoDB is named by one", c.ID).
			WithHint("copy without --history")
	}
	if len(c.Steps) > 0 {
		return nil // a deployment's schema change: its steps as they are
	}
	_, _, err := indexSteps(c)
	return err
}

// carry writes the change through the engine's Carry, with a file's
// index operations as steps the deployment runs: journaled as the
// change's own when it changed indexes only, so that rollback there
// undoes them as it undoes a create-index made over MongoDB.
func (m *mongoEnd) carry(ctx context.Context, c *carriedChange) (bool, error) {
	mc := c.Carried
	if len(c.Steps) > 0 { // from a deployment: its own steps, run again here
		mc.OwnSteps, mc.RenamedTo = true, c.Change.RenamedTo
		if c.Kind == mongoengine.KindDrop {
			mc.StepsMove, mc.Aside = true, mongoengine.DroppedPrefix+c.ID
		}
		return m.db.Carry(ctx, &mc)
	}
	if from, to, dropTarget, ok := fileRename(c); ok {
		return m.db.Carry(ctx, renameOver(mc, from, to, dropTarget))
	}
	if c.Kind == changes.KindDrop && c.Drop && len(c.colls) == 1 {
		return m.db.Carry(ctx, dropOver(mc))
	}
	steps, only, err := indexSteps(c)
	if err != nil {
		return false, err
	}
	mc.Steps, mc.OwnSteps = steps, only && len(steps) > 0 && len(c.Items) == 0
	return m.db.Carry(ctx, &mc)
}

// fileRename recognizes a file's rename (changes.RenameCollection): its
// source is the collection it drops last, its target the one it creates,
// which it dropped first when it replaced it (--drop-target).
func fileRename(c *carriedChange) (from, to string, dropTarget, ok bool) {
	if c.Kind != changes.KindRename || len(c.colls) != 2 || c.FileOps == "" {
		return "", "", false, false
	}
	ops, err := value.ParseString(c.FileOps)
	if err != nil {
		return "", "", false, false
	}
	dropped := map[string]bool{}
	for _, o := range ops.Array() {
		switch o.Get("op").Str() {
		case store.OpCreateCollection:
			to = o.Get("coll").Str()
		case store.OpDropCollection:
			from = o.Get("coll").Str()
			dropped[from] = true
		}
	}
	return from, to, dropped[to], from != "" && to != "" && from != to
}

// renameOver is a file's rename as MongoDB makes it: the target renamed
// aside when it is replaced, then the collection renamed in place, its
// documents moved by the server (the file's items, in two collections,
// are left out); a copy back replays it as the file's rename.
func renameOver(c mongoengine.Carried, from, to string, dropTarget bool) *mongoengine.Carried {
	c.Collection, c.RenamedTo, c.Items, c.FileOps, c.Create, c.Drop, c.Creates = from, to, nil, "", false, false, false
	c.Steps = nil
	if dropTarget {
		c.Steps = append(c.Steps, renameStep(to, mongoengine.DroppedPrefix+c.ID))
	}
	c.Steps, c.OwnSteps = append(c.Steps, renameStep(from, to)), true
	return &c
}

// dropOver is a file's drop as MongoDB makes it: the collection renamed
// aside (rollback renames it back, with its documents and indexes); the
// items say what it held.
func dropOver(c mongoengine.Carried) *mongoengine.Carried {
	c.Aside = mongoengine.DroppedPrefix + c.ID
	c.Steps, c.OwnSteps, c.StepsMove, c.Drop = []value.Value{renameStep(c.Collection, c.Aside)}, true, true, false
	return &c
}

func renameStep(from, to string) value.Value {
	return value.ObjectValue([]value.Field{{Key: "op", Value: value.StringValue("rename")},
		{Key: "coll", Value: value.StringValue(from)}, {Key: "to", Value: value.StringValue(to)}})
}

// indexSteps converts a file's index operations in c to MongoDB's
// schema steps ({op, coll, spec}); only reports that c has no other
// operation but index ones.
func indexSteps(c *carriedChange) (steps []value.Value, only bool, err error) {
	if c.FileOps == "" {
		return nil, false, nil
	}
	ops, err := value.ParseString(c.FileOps)
	if err != nil {
		return nil, false, errs.Errorf(errs.IO, "unreadable operations of change %s: %v", c.ID, err)
	}
	only = true
	for _, o := range ops.Array() {
		op := o.Get("op").Str()
		if op != store.OpCreateIndex && op != store.OpDropIndex {
			only = false
			continue
		}
		ix := o.Get("index")
		def := store.IndexDef{Name: ix.Get("name").Str(), Kind: ix.Get("kind").Str(), Spec: value.JSON(ix.Get("spec"))}
		spec, err := indexToMongo(o.Get("coll").Str(), def)
		if err != nil {
			return nil, false, fmt.Errorf("change %s (%s) of the source: %w", c.ID, c.Kind, err)
		}
		steps = append(steps, value.ObjectValue([]value.Field{{Key: "op", Value: value.StringValue(op)},
			{Key: "coll", Value: o.Get("coll")}, {Key: "spec", Value: spec}}))
	}
	return steps, only, nil
}

// carriedSnap is a snapshot on its way: its name, the change whose state
// it names ("" before the first change) and who made it.
type carriedSnap struct{ name, change, actor string }

// snapshots lists the file's snapshots, each naming the last change
// whose records are at or before its lsn.
func (f *fileEnd) snapshots(ctx context.Context, chs []*carriedChange) ([]carriedSnap, error) {
	snaps, err := changes.Snapshots(ctx, f.db)
	out := make([]carriedSnap, 0, len(snaps))
	for _, s := range snaps {
		cs := carriedSnap{name: s.Name, actor: s.Actor}
		for _, c := range chs {
			if c.lastLSN <= s.LSN {
				cs.change = c.ID
			}
		}
		out = append(out, cs)
	}
	return out, err
}

// snapshots lists the deployment's snapshots.
func (m *mongoEnd) snapshots(ctx context.Context, _ []*carriedChange) ([]carriedSnap, error) {
	snaps, err := m.db.Snapshots(ctx)
	out := make([]carriedSnap, 0, len(snaps))
	for _, s := range snaps {
		out = append(out, carriedSnap{name: s.Name, change: s.Change, actor: s.Actor})
	}
	return out, err
}

// snapAt is the revision a carried snapshot names on the target: its
// change, or 0 (before the first change).
func (s carriedSnap) at() string {
	if s.change == "" {
		return "0"
	}
	return s.change
}

// snapshot names the carried snapshot's revision on the file, unless a
// snapshot of that name is there (an earlier run of a resumed copy).
func (f *fileEnd) snapshot(ctx context.Context, s carriedSnap) error {
	have, err := changes.Snapshots(ctx, f.db)
	if err != nil || slices.ContainsFunc(have, func(h changes.Snapshot) bool { return h.Name == s.name }) {
		return err
	}
	_, err = changes.CreateSnapshot(ctx, f.db, s.name, &changes.SnapshotOptions{At: s.at(), Actor: s.actor})
	return err
}

// snapshot names the carried snapshot's revision on the deployment,
// unless a snapshot of that name is there.
func (m *mongoEnd) snapshot(ctx context.Context, s carriedSnap) error {
	have, err := m.db.Snapshots(ctx)
	if err != nil || slices.ContainsFunc(have, func(h mongoengine.Snapshot) bool { return h.Name == s.name }) {
		return err
	}
	_, err = m.db.CreateSnapshot(ctx, s.name, s.at(), s.actor)
	return err
}

// journalIDs lists the file's changes: id and kind, and whether it is a
// last "copy" change of copy --history.
func (f *fileEnd) journalIDs(ctx context.Context) ([]carriedID, error) {
	hist, err := changes.History(ctx, f.db, nil)
	out := make([]carriedID, len(hist))
	for i, h := range hist {
		out[i] = carriedID{id: h.ID, kind: h.Kind, settled: h.Kind == "copy" && h.Note == settleNote}
	}
	return out, err
}

// journalIDs lists the deployment's changes.
func (m *mongoEnd) journalIDs(ctx context.Context) ([]carriedID, error) {
	hist, err := m.db.History(ctx, "", 0)
	out := make([]carriedID, len(hist))
	for i, h := range hist {
		out[i] = carriedID{id: h.ID, kind: h.Kind, settled: h.Kind == "copy" && h.Note == settleNote}
	}
	return out, err
}
