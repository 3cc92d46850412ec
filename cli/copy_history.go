package cli

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// copy --history: the source's journal is replayed into the target,
// oldest first, each change as one change of the target with the same
// id, kind, time, actor and note, and per document the same before- and
// after-images. Then the documents the journal does not account for
// (written around omgdb on a deployment) come in as one last change of
// kind "copy" per collection, the collections' indexes and rules are
// set as a copy sets them, and the verify step compares both sides.

// carriedChange is one change on its way: the engine-neutral form
// (mongoengine.Carried) plus, for a store file's change, the collection
// of each item (a change on a file may write several collections).
type carriedChange struct {
	mongoengine.Carried
	itemColls []string // the collection of each item
	colls     []string // every collection the change touches, sorted
	lastLSN   uint64   // a store file's change: the lsn of its last record
}

// historySource is a copy end whose journal can be read for carrying.
type historySource interface {
	// journal returns the changes oldest first.
	journal(ctx context.Context) ([]*carriedChange, error)
	// snapshots returns the snapshots, each naming one of chs.
	snapshots(ctx context.Context, chs []*carriedChange) ([]carriedSnap, error)
	// base returns the changes that start a target at the source's cut
	// (none when its journal was never pruned) and the cut.
	base(ctx context.Context, chs []*carriedChange) ([]*carriedChange, string, error)
}

// historyTarget is a copy end that can take carried changes.
type historyTarget interface {
	// empty refuses a target that holds documents or history.
	empty(ctx context.Context) error
	// canCarry refuses, before anything is written, a change the target
	// cannot take.
	canCarry(c *carriedChange) error
	// carry writes one change; done reports that it was already there.
	carry(ctx context.Context, c *carriedChange) (done bool, err error)
	// snapshot names a carried snapshot's revision, once.
	snapshot(ctx context.Context, s carriedSnap) error
	// pruned reports whether the target's journal was pruned.
	pruned(ctx context.Context) (bool, error)
	// keepCut prunes the target's journal through change id.
	keepCut(ctx context.Context, id string) error
	// journalIDs lists the target's changes.
	journalIDs(ctx context.Context) ([]carriedID, error)
}

// carriedID is a change of a target's journal, as --resume checks it.
type carriedID struct {
	id, kind string
	settled  bool // a last "copy" change of copy --history
}

// settleNote is the note of the last "copy" changes.
const settleNote = "copy: documents the journal does not account for"

// copyHistory is the "history" part of copy's summary.
type copyHistory struct {
	Changes int64 `json:"changes"`           // changes carried in this run
	Already int64 `json:"already,omitempty"` // found carried by an earlier run (--resume)
	Settled int64 `json:"settled,omitempty"` // documents the last "copy" changes wrote
	// Snapshots counts the snapshots carried (or found carried).
	Snapshots int `json:"snapshots,omitempty"`
	// Cut is where the source's journal was pruned ("lsn N", "seq N"),
	// which the target keeps.
	Cut string `json:"cut,omitempty"`
}

// historyRun is what a copy --history carries, read and checked before
// anything is written.
type historyRun struct {
	hs      historySource
	ht      historyTarget
	names   []string   // the source's collections
	defs    []copyDefs // their rules and indexes
	changes []*carriedChange
	base    []*carriedChange // the first changes, at the source's cut
	cut     string
}

// copyWithHistory replays the journal, carries the snapshots, settles
// each collection, sets its definitions, verifies, and keeps the cut.
func (e *env) copyWithHistory(ctx context.Context, opts *copyOptions, src copyEnd, dst copyTarget, sum *copySummary) error {
	run, err := planHistory(ctx, opts, src, dst)
	if err != nil || run == nil {
		return err
	}
	sum.History = &copyHistory{Cut: run.cut}
	if err := e.replay(ctx, run.ht, run.changes, sum.History); err != nil {
		return e.historyStopped(ctx, err, sum.History, opts)
	}
	if err := run.snapshots(ctx, sum.History); err != nil {
		return err
	}
	for i, name := range run.names {
		res := &copyResult{Name: name}
		sum.Collections = append(sum.Collections, res)
		if err := settle(ctx, src, dst, run.ht, res, sum.History); err != nil {
			return e.historyStopped(ctx, err, sum.History, opts)
		}
		if err := dst.prepare(ctx, name, run.defs[i]); err != nil {
			return err
		}
		if err := dst.finish(ctx, name, run.defs[i]); err != nil {
			return err
		}
	}
	if !opts.noVerify {
		if err := e.verifyCopy(ctx, src, dst, sum); err != nil {
			return err
		}
	}
	if len(run.base) > 0 {
		return run.ht.keepCut(ctx, run.base[len(run.base)-1].ID)
	}
	return nil
}

// planHistory reads the source's journal and definitions and refuses,
// before anything is written, what the target cannot take: a target
// that is not empty (unless --resume), a change or an index it cannot
// hold.
func planHistory(ctx context.Context, opts *copyOptions, src copyEnd, dst copyTarget) (*historyRun, error) {
	run := &historyRun{}
	var ok1, ok2 bool
	run.hs, ok1 = src.(historySource)
	run.ht, ok2 = dst.(historyTarget)
	if !ok1 || !ok2 {
		return nil, usage("--history cannot copy from %s to %s", src.where(), dst.where())
	}
	var err error
	if run.names, err = src.collections(ctx); err != nil {
		return nil, err
	}
	if run.changes, err = run.hs.journal(ctx); err != nil {
		return nil, err
	}
	if len(run.names) == 0 && len(run.changes) == 0 {
		_, err := copyNames(ctx, src, "") // says there is nothing to copy
		return nil, err
	}
	if err := run.startAtCut(ctx); err != nil {
		return nil, err
	}
	for _, c := range run.changes {
		if err := run.ht.canCarry(c); err != nil {
			return nil, err
		}
	}
	if err := run.checkTarget(ctx, opts.resume); err != nil {
		return nil, err
	}
	run.defs = make([]copyDefs, len(run.names))
	for i, name := range run.names {
		if run.defs[i], err = src.defs(ctx, name); err != nil {
			return nil, err
		}
		if err := checkDefs(dst, name, run.defs[i]); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// checkTarget refuses a target that is not empty, or with --resume one
// whose journal holds a change that is not the source's (nor a last
// "copy" change): it is not a copy --history of this source.
func (run *historyRun) checkTarget(ctx context.Context, resume bool) error {
	if !resume {
		return run.ht.empty(ctx)
	}
	ids, err := run.ht.journalIDs(ctx)
	if err != nil {
		return err
	}
	ours := map[string]bool{}
	for _, c := range run.changes {
		ours[c.ID] = true
	}
	for _, c := range ids {
		if !ours[c.id] && !c.settled {
			return errs.Errorf(errs.Conflict, "--resume: the target's journal holds change %s (%s), which is not the source's: the target is not a copy --history of this source", c.id, c.kind).
				WithHint("copy into an empty target without --resume")
		}
	}
	return nil
}

// startAtCut puts, before the kept changes of a pruned source, the
// changes that start the target at its cut, unless the target keeps the
// cut already (a resumed copy that got to its end).
func (run *historyRun) startAtCut(ctx context.Context) error {
	var err error
	if run.base, run.cut, err = run.hs.base(ctx, run.changes); err != nil || run.cut == "" {
		return err
	}
	done, err := run.ht.pruned(ctx)
	if err != nil {
		return err
	}
	if done {
		run.base = nil
	}
	run.changes = append(slices.Clip(run.base), run.changes...)
	return nil
}

// snapshots carries the source's snapshots, each once.
func (run *historyRun) snapshots(ctx context.Context, h *copyHistory) error {
	snaps, err := run.hs.snapshots(ctx, run.changes)
	if err != nil {
		return err
	}
	for _, s := range atCut(snaps, run.changes, run.base) {
		if err := run.ht.snapshot(context.WithoutCancel(ctx), s); err != nil {
			return fmt.Errorf("carry snapshot %s: %w", s.name, err)
		}
		h.Snapshots++
	}
	return nil
}

// atCut points the snapshots that name a change before the cut (gone
// from the source's journal) at the last change that starts the target
// there; without a cut they are as they are.
func atCut(snaps []carriedSnap, chs, base []*carriedChange) []carriedSnap {
	if len(base) == 0 {
		return snaps
	}
	ids := map[string]bool{}
	for _, c := range chs {
		ids[c.ID] = true
	}
	for i := range snaps {
		if !ids[snaps[i].change] {
			snaps[i].change = base[len(base)-1].ID
		}
	}
	return snaps
}

// checkDefs refuses, before anything is written, an index the target
// cannot hold (a vector or search index into MongoDB).
func checkDefs(dst copyTarget, coll string, defs copyDefs) error {
	if _, ok := dst.(*mongoEnd); !ok {
		return nil
	}
	for _, def := range defs.indexes {
		if _, err := indexToMongo(coll, def); err != nil {
			return err
		}
	}
	return nil
}

// replay carries the changes in order, each once.
func (e *env) replay(ctx context.Context, ht historyTarget, changes []*carriedChange, h *copyHistory) error {
	bar := e.progress("copying history", int64(len(changes)))
	defer bar.done()
	for i, c := range changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		done, err := ht.carry(context.WithoutCancel(ctx), c)
		if err != nil {
			return fmt.Errorf("carry change %s (%s): %w", c.ID, c.Kind, err)
		}
		if done {
			h.Already++
		} else {
			h.Changes++
		}
		bar.update(int64(i+1), int64(i+1))
	}
	return nil
}

// settle brings into the target, as one change of kind "copy", the
// documents of coll that the journal does not account for: those the
// source holds otherwise than the replay left them (or lacks); they are
// the collection's "copied" in the summary. It reads
// the target's collection into memory only when the two sides differ.
func settle(ctx context.Context, src, dst copyEnd, ht historyTarget, res *copyResult, h *copyHistory) error {
	exists, _, _, err := dst.state(ctx, res.Name)
	if err != nil {
		return err
	}
	if exists {
		if err := verifyOne(ctx, src, dst, res); err != nil || res.Verified {
			return err
		}
	}
	have := map[string]value.Value{}
	if exists {
		err := dst.scan(ctx, res.Name, value.Value{}, func(doc value.Value) error {
			have[string(value.AppendKey(nil, doc.Get("_id")))] = doc
			return nil
		})
		if err != nil {
			return err
		}
	}
	c := &carriedChange{Carried: mongoengine.Carried{ID: value.NewOID().Hex(), Kind: "copy", Collection: res.Name, Create: true, Actor: "cli",
		Time: time.Now().UTC(), Note: settleNote}, colls: []string{res.Name}}
	add := func(it mongoengine.Item) {
		c.Items = append(c.Items, it)
		c.itemColls = append(c.itemColls, res.Name)
	}
	err = src.scan(ctx, res.Name, value.Value{}, func(doc value.Value) error {
		k := string(value.AppendKey(nil, doc.Get("_id")))
		old, ok := have[k]
		delete(have, k)
		switch {
		case !ok:
			add(mongoengine.Item{ID: doc.Get("_id"), Op: mongoengine.OpInsert, After: doc})
		case string(value.JSON(old)) != string(value.JSON(doc)):
			add(mongoengine.Item{ID: doc.Get("_id"), Op: mongoengine.OpUpdate, Before: old, After: doc})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, old := range have {
		add(mongoengine.Item{ID: old.Get("_id"), Op: mongoengine.OpDelete, Before: old})
	}
	if exists && len(c.Items) == 0 {
		return nil
	}
	if _, err := ht.carry(context.WithoutCancel(ctx), c); err != nil {
		return err
	}
	h.Settled += int64(len(c.Items))
	res.Copied = int64(len(c.Items))
	return ctx.Err()
}

// historyStopped says how far a copy with history got and how to go on.
func (e *env) historyStopped(ctx context.Context, err error, h *copyHistory, opts *copyOptions) error {
	return stoppedAt(ctx, err, fmt.Sprintf("%d change(s) carried in this run", h.Changes), "the last change carried", opts.resume)
}
