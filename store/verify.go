package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/value"
)

// maxProblems bounds how many problems Verify lists.
const maxProblems = 100

// VerifyReport is what Verify found.
type VerifyReport struct {
	Path           string   `json:"path"`
	Collections    int      `json:"collections"`
	Documents      int64    `json:"documents"`
	JournalRecords int64    `json:"journal_records"`
	Problems       []string `json:"problems"`
	OK             bool     `json:"ok"`
}

func (r *VerifyReport) problem(format string, args ...any) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	} else if len(r.Problems) == maxProblems {
		r.Problems = append(r.Problems, "… more problems not listed")
	}
}

// Verify checks the store: bbolt's page consistency, that every document
// decodes and sits under the key of its _id, that counts agree, that the
// data of vector and full-text indexes is laid out as the store writes it
// (and, through IndexChecker, agrees with the documents), that every plan
// and snapshot blob decodes and every rollback link has its reverse, that
// every journal record decodes, and that the journal accounts for every
// document (undoing it from the current state leaves an empty store). It
// returns a report; the error is non-nil only when Verify itself could not
// run. A report with problems has OK false.
func (db *DB) Verify(ctx context.Context) (*VerifyReport, error) {
	r := &VerifyReport{Path: db.path, Problems: []string{}}
	step := progressOf(ctx)
	err := db.View(func(tx *Tx) error {
		pageSize := db.bolt.Info().PageSize
		step("checking pages", 0, 0)
		if ps := checkPages(db.path, uint64(tx.btx.ID()), uint64(tx.btx.Size())/uint64(pageSize)); len(ps) > 0 {
			for _, p := range ps {
				r.problem("%s", p)
			}
			return nil
		}
		// Walk every page first, in this goroutine, where a fault on a damaged
		// page becomes an error; bbolt's own check runs in a goroutine of its
		// own, where it would crash the process.
		step("reading every page", 0, 0)
		if err := walkTree(tx); err != nil {
			r.problem("page walk: %v", err)
			return nil
		}
		step("checking the tree", 0, 0)
		for err := range tx.btx.Check() {
			r.problem("page check: %v", err)
		}
		if len(r.Problems) > 0 {
			return nil // the tree is damaged: reading it further could mislead
		}
		docs := documentsStep(tx, step)
		for _, name := range tx.Collections() {
			if err := ctx.Err(); err != nil {
				return err
			}
			r.Collections++
			verifyCollection(tx, name, r, docs)
		}
		verifyAreas(tx, r)
		return verifyJournal(ctx, tx, r)
	})
	r.OK = len(r.Problems) == 0
	return r, err
}

// walkTree visits every key of every bucket.
func walkTree(tx *Tx) (err error) {
	defer tx.db.recoverPanic(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var walk func(b *bolt.Bucket) error
	walk = func(b *bolt.Bucket) error {
		return b.ForEach(func(k, v []byte) error {
			if v == nil {
				if sub := b.Bucket(k); sub != nil {
					return walk(sub)
				}
			}
			return nil
		})
	}
	return tx.btx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if b == nil {
			return fmt.Errorf("bucket /%s: not a bucket (its leaf element's flags are damaged)", name)
		}
		return walk(b)
	})
}

// documentsStep returns the function verifyCollection reports each
// document it checked to, which reports the "documents" step of Verify.
func documentsStep(tx *Tx, step Progress) func() {
	var done, total int64
	for _, name := range tx.Collections() {
		if c, err := tx.Collection(name); err == nil {
			total += c.count
		}
	}
	step("documents", 0, total)
	return func() {
		if done++; done%1024 == 0 || done == total {
			step("documents", done, total)
		}
	}
}

func verifyCollection(tx *Tx, name string, r *VerifyReport, checked func()) {
	c, err := tx.Collection(name)
	if err != nil {
		r.problem("collection %s: %v", name, err)
		return
	}
	var n int64
	cur := c.docs.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		n++
		checked()
		doc, err := decodeDoc(v)
		if err != nil {
			r.problem("collection %s: document at key %x: %v", name, k, err)
			continue
		}
		if want := value.AppendKey(nil, doc.Get("_id")); !bytes.Equal(k, want) {
			r.problem("collection %s: document %s is stored under key %x, want %x", name, doc.Get("_id"), k, want)
		}
	}
	r.Documents += n
	if n != c.count {
		r.problem("collection %s: count record says %d documents, found %d", name, c.count, n)
	}
	for _, def := range c.meta.Indexes {
		ix, err := c.openIndex(def)
		if err != nil {
			r.problem("collection %s: %v", name, err)
			continue
		}
		if def.Kind != BTreeKind && def.Kind != TextKind {
			verifyIndexData(ix, func(format string, args ...any) {
				r.problem("collection %s: index %s: %s", name, def.Name, fmt.Sprintf(format, args...))
			})
		}
		if checker, ok := ix.kind.(IndexChecker); ok {
			for _, p := range checker.Check(ix) {
				r.problem("collection %s: index %s: %s", name, def.Name, p)
			}
		}
	}
}

// verifyJournal undoes the journal, newest first, over a presence map of
// documents, and checks each step is possible and the end state is empty.
func verifyJournal(ctx context.Context, tx *Tx, r *VerifyReport) error {
	present := map[string]bool{} // coll + "\x00" + key -> exists at this point of the undo
	exists := func(coll string, key []byte) bool {
		k := coll + "\x00" + string(key)
		if p, ok := present[k]; ok {
			return p
		}
		c, err := tx.Collection(coll)
		return err == nil && c.docs.Get(key) != nil
	}
	var prev uint64
	changes := tx.btx.Bucket(bucketChanges)
	step, total := progressOf(ctx), int64(tx.LastLSN())
	err := tx.JournalReverse(0, func(rec *Record) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		r.JournalRecords++
		step("journal records", r.JournalRecords, total)
		if changes == nil || changes.Get(changeKey(rec.Change, rec.LSN)) == nil {
			r.problem("journal record %d: missing from the change index under change %s", rec.LSN, rec.Change)
		}
		if prev != 0 && rec.LSN != prev-1 {
			r.problem("journal: record %d follows record %d (gap)", prev, rec.LSN)
		}
		prev = rec.LSN
		for i := len(rec.Ops) - 1; i >= 0; i-- {
			undoCheck(rec, rec.Ops[i], exists, present, r)
		}
		return true, nil
	})
	if err != nil {
		r.problem("%v", err)
		return nil
	}
	if n := countKeys(changes); n != r.JournalRecords && !tx.historyPruned() {
		r.problem("journal: the change index has %d entries for %d records", n, r.JournalRecords)
	}
	if prev > 1 && !tx.historyPruned() {
		r.problem("journal: starts at record %d, but no history was pruned", prev)
	}
	if tx.historyPruned() {
		return nil
	}
	for k, p := range present {
		if p {
			coll, key, _ := bytes.Cut([]byte(k), []byte{0})
			r.problem("journal: document at key %x of collection %s exists before the first record", key, coll)
		}
	}
	for _, name := range tx.Collections() {
		c, _ := tx.Collection(name)
		cur := c.docs.Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			if _, touched := present[name+"\x00"+string(k)]; !touched {
				r.problem("journal: document at key %x of collection %s was never recorded", k, name)
			}
		}
	}
	return nil
}

func undoCheck(rec *Record, op Op, exists func(string, []byte) bool, present map[string]bool, r *VerifyReport) {
	switch op.Op {
	case OpCreateCollection, OpDropCollection, OpCreateIndex, OpDropIndex, OpDefine:
		return
	}
	key := value.AppendKey(nil, op.ID)
	k := op.Coll + "\x00" + string(key)
	switch op.Op {
	case OpInsert:
		if !exists(op.Coll, key) {
			r.problem("journal record %d: inserted document %s of %s is missing later", rec.LSN, op.ID, op.Coll)
		}
		present[k] = false
	case OpUpdate, OpDelete:
		if got := op.Before.Get("_id"); !value.Equal(got, op.ID) {
			r.problem("journal record %d: before-image of %s has _id %s", rec.LSN, op.ID, got)
		}
		if op.Op == OpUpdate && !exists(op.Coll, key) {
			r.problem("journal record %d: updated document %s of %s is missing later", rec.LSN, op.ID, op.Coll)
		}
		if op.Op == OpDelete && exists(op.Coll, key) {
			r.problem("journal record %d: deleted document %s of %s exists later", rec.LSN, op.ID, op.Coll)
		}
		present[k] = true
	}
}

// historyPruned reports whether compaction dropped early journal records.
func (tx *Tx) historyPruned() bool {
	m := tx.btx.Bucket(bucketMeta)
	return m != nil && len(m.Get(keyPrunedLSN)) == 8 && binary.BigEndian.Uint64(m.Get(keyPrunedLSN)) > 0
}

var keyPrunedLSN = []byte("pruned_lsn")

func countKeys(b *bolt.Bucket) int64 {
	if b == nil {
		return 0
	}
	return int64(b.Stats().KeyN)
}
