package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// A pruned journal (compact --history-before) starts at a cut: the state
// there is all that is left of the changes before it. copy --history
// starts the target with that state, one change of kind "copy" per
// collection that existed at the cut, then carries the kept changes,
// and at the end prunes the target's journal through those first
// changes, so that the target keeps the cut: a revision before it is
// refused there too.

// baseNote is the note of a change that starts a target at a cut.
func baseNote(cut string) string {
	return "copy: the state at " + cut + " of the source, where its journal was pruned"
}

// baseID is the change id of the first change of coll at a cut: the same
// on every run, so that a resumed copy carries it once.
func baseID(cut, coll string) string {
	h := sha256.Sum256([]byte("omgdb copy --history\x00" + cut + "\x00" + coll))
	return hex.EncodeToString(h[:12])
}

// baseChanges makes the first changes of a target whose source was cut
// at cut: for each collection of names that scan finds there (a
// NotFound error: it did not exist), one change inserting its documents
// as they were. when is their time (the first kept change's).
func baseChanges(names []string, cut string, when time.Time, scan func(coll string, each func(value.Value) error) error) ([]*carriedChange, error) {
	var out []*carriedChange
	for _, name := range names {
		c := &carriedChange{Carried: mongoengine.Carried{ID: baseID(cut, name), Kind: "copy", Collection: name, Create: true, Actor: "cli",
			Time: when, Note: baseNote(cut)}, colls: []string{name}}
		err := scan(name, func(doc value.Value) error {
			c.Items = append(c.Items, mongoengine.Item{ID: doc.Get("_id"), Op: mongoengine.OpInsert, After: doc})
			c.itemColls = append(c.itemColls, name)
			return nil
		})
		if errs.KindOf(err) == errs.NotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// cutNames are the collections that may have existed at the cut: those
// there now and those the kept changes write.
func cutNames(now []string, chs []*carriedChange) []string {
	names := slices.Clone(now)
	for _, c := range chs {
		names = append(names, c.colls...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// firstTime is the time of the first kept change, or now.
func firstTime(chs []*carriedChange) time.Time {
	if len(chs) > 0 {
		return chs[0].Time
	}
	return time.Now().UTC()
}

// base returns the changes that start the target at the file's cut
// (none when its journal was never pruned), and the cut ("lsn N").
func (f *fileEnd) base(ctx context.Context, chs []*carriedChange) ([]*carriedChange, string, error) {
	var out []*carriedChange
	cut := ""
	err := f.db.View(func(tx *store.Tx) error {
		lsn := tx.PrunedLSN()
		if lsn == 0 {
			return nil
		}
		cut = fmt.Sprintf("lsn %d", lsn)
		rev, err := changes.ResolveRevision(tx, fmt.Sprint(lsn))
		if err != nil {
			return err
		}
		out, err = baseChanges(cutNames(tx.Collections(), chs), cut, firstTime(chs), func(coll string, each func(value.Value) error) error {
			src, err := changes.ScanAt(ctx, tx, coll, rev)
			if err != nil {
				return err
			}
			defer src.Close()
			for src.Next() {
				if err := each(src.Doc()); err != nil {
					return err
				}
			}
			return src.Err()
		})
		for _, c := range out {
			c.lastLSN = lsn
		}
		return err
	})
	return out, cut, err
}

// base returns the changes that start the target at the deployment's
// cut (none when its journal was never pruned), and the cut ("seq N").
func (m *mongoEnd) base(ctx context.Context, chs []*carriedChange) ([]*carriedChange, string, error) {
	seq, err := m.db.PrunedThrough(ctx)
	if err != nil || seq == 0 {
		return nil, "", err
	}
	cut := fmt.Sprintf("seq %d", seq)
	r, _, err := m.db.At(ctx, fmt.Sprint(seq))
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	now, err := m.db.Collections(ctx)
	if err != nil {
		return nil, "", err
	}
	out, err := baseChanges(cutNames(now, chs), cut, firstTime(chs), func(coll string, each func(value.Value) error) error {
		return r.Find(ctx, coll, &engine.Find{}, each)
	})
	return out, cut, err
}

// pruned reports whether the file's journal was pruned: a copy --history
// that pruned it to keep the source's cut has carried everything before.
func (f *fileEnd) pruned(context.Context) (bool, error) {
	var lsn uint64
	err := f.db.View(func(tx *store.Tx) error {
		lsn = tx.PrunedLSN()
		return nil
	})
	return lsn > 0, err
}

// pruned reports whether the deployment's journal was pruned.
func (m *mongoEnd) pruned(ctx context.Context) (bool, error) {
	seq, err := m.db.PrunedThrough(ctx)
	return seq > 0, err
}

// keepCut prunes the file's journal through change id: the store is
// compacted (closed, rewritten, renamed over), so the copy ends there.
func (f *fileEnd) keepCut(ctx context.Context, id string) error {
	var lsn uint64
	err := f.db.View(func(tx *store.Tx) error {
		recs, err := tx.ChangeRecords(id)
		if len(recs) > 0 {
			lsn = recs[len(recs)-1].LSN
		}
		return err
	})
	if err != nil || lsn == 0 {
		return err
	}
	if err := f.db.Close(); err != nil {
		return err
	}
	_, err = store.Compact(ctx, f.path, &store.CompactOptions{HistoryBefore: lsn})
	return err
}

// keepCut prunes the deployment's journal through change id.
func (m *mongoEnd) keepCut(ctx context.Context, id string) error {
	_, err := m.db.PruneHistory(ctx, id)
	return err
}
