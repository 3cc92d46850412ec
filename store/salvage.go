package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// SalvageReport says what Salvage could and could not read. It is printed
// by `omgdb salvage` as JSON; fields are only ever added.
type SalvageReport struct {
	Source      string               `json:"source"`
	Output      string               `json:"output"`
	Meta        string               `json:"meta"` // the commit the tree was read from
	Collections []*SalvageCollection `json:"collections"`
	Recovered   int64                `json:"recovered"`  // documents copied, in all collections
	Unreadable  int64                `json:"unreadable"` // documents seen but not copied
	Problems    []string             `json:"problems"`   // damage outside any one document
	Complete    bool                 `json:"complete"`   // no damage met and every count record matched
	// LeftBehind names what the source holds and salvage does not carry
	// over, and why: plans, snapshots and rollback links, which refer to
	// the journal.
	LeftBehind []string `json:"left_behind"`
}

// SalvageCollection is what Salvage read of one collection.
type SalvageCollection struct {
	Name       string        `json:"name"`
	Expected   int64         `json:"expected"` // its count record; -1 when unreadable
	Recovered  int64         `json:"recovered"`
	Unreadable []SalvageLoss `json:"unreadable"`
	Indexes    []string      `json:"indexes"` // indexes created again and built over the recovered documents
}

// SalvageLoss is a document, or a page of documents, that could not be
// read. Key is the stored key in hex: of the document, or of the first
// document the lost page should hold (empty when unknown).
type SalvageLoss struct {
	Key    string `json:"key"`
	Page   uint64 `json:"page,omitempty"`
	Reason string `json:"reason"`
}

// salvageBatch is how many documents go into one transaction of the output.
const salvageBatch = 10000

// maxSalvageLosses bounds the losses listed per collection.
const maxSalvageLosses = 1000

// Salvage copies every readable document of the store file damaged into a
// new store at out, and reports what it could and could not read. It does
// not use bbolt to read: it walks the file's tree itself, reading pages
// with ReadAt and checking every offset (see rawfile.go), from the newest
// valid meta page, never following a page twice and never reading free
// pages (which may hold old versions of documents). A document is copied
// only when its checksum holds, it decodes, and it sits under the key of
// its _id, so what is copied is never wrong, only possibly incomplete.
// The collections' indexes are created again from their definitions and
// built over the recovered documents, so vector and full-text data is
// derived anew, never copied from a damaged file. The journal is not
// carried over: the new store's history starts with the salvage; nor are
// the plans, snapshots and rollback links, which refer to it (the report
// lists them under LeftBehind). The output is built in a temporary file and linked into
// place; out must not exist. Stop writers of the damaged store first: it
// is read without taking its lock.
func Salvage(ctx context.Context, damaged, out string) (*SalvageReport, error) {
	if _, err := os.Stat(out); err == nil {
		return nil, errs.Errorf(errs.Conflict, "%s already exists; salvage never overwrites a file", out).
			WithHint("give a new file name for the salvaged store")
	}
	f, err := os.Open(damaged)
	if err != nil {
		e := wrap(errs.NotFound, ErrNotFound, "cannot read %s: %v", damaged, err)
		if !errors.Is(err, os.ErrNotExist) {
			e.Kind = errs.IO
		}
		return nil, e
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, wrap(errs.IO, err, "cannot read %s: %v", damaged, err)
	}
	rep := &SalvageReport{Source: damaged, Output: out, Collections: []*SalvageCollection{}, Problems: []string{}, LeftBehind: []string{}}
	rf, err := salvageFile(f, fi.Size(), rep)
	if err != nil {
		return rep, err
	}
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".salvage-"+value.NewOID().Hex())
	defer os.Remove(tmp)
	db, err := Open(tmp, &Options{Create: true, Actor: "salvage"})
	if err != nil {
		return rep, err
	}
	s := &salvager{ctx: ctx, rf: rf, w: rf.walker(), db: db, rep: rep}
	err = s.run()
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return rep, err
	}
	if err := os.Link(tmp, out); err != nil {
		return rep, wrap(errs.IO, err, "cannot create %s: %v", out, err)
	}
	if err := syncDir(filepath.Dir(out)); err != nil {
		return rep, wrap(errs.IO, err, "cannot create %s: %v", out, err)
	}
	rep.Complete = len(rep.Problems) == 0 && rep.Unreadable == 0
	for _, c := range rep.Collections {
		rep.Complete = rep.Complete && c.Expected == c.Recovered
	}
	return rep, nil
}

// salvageFile finds the newest valid meta page and the free pages.
func salvageFile(f *os.File, size int64, rep *SalvageReport) (*rawFile, error) {
	metas := readMetas(f, size)
	meta, ok := bestMeta(metas)
	for _, m := range metas {
		if m.err != "" {
			rep.Problems = append(rep.Problems, fmt.Sprintf("meta page %d: %s", m.page, m.err))
		}
	}
	if !ok {
		return nil, wrap(errs.IO, ErrCorrupt, "cannot salvage %s: both meta pages are damaged, so the tree cannot be found", rep.Source).
			WithHint("restore the store from a backup")
	}
	rep.Meta = fmt.Sprintf("meta page %d (transaction %d)", meta.page, meta.txid)
	rf := &rawFile{r: f, size: size, pageSize: meta.pageSize, highWater: meta.pgid}
	if max := uint64(size) / uint64(meta.pageSize); max < rf.highWater {
		rep.Problems = append(rep.Problems, fmt.Sprintf("file is truncated: it has %d pages, its meta page says %d", max, rf.highWater))
		rf.highWater = max
	}
	rf.root = meta.root
	rf.free = map[uint64]bool{}
	if meta.freelist != ^uint64(0) {
		if err := rf.readFreelist(meta.freelist); err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("freelist: %v (free pages cannot be told apart)", err))
		}
	}
	return rf, nil
}

// salvager copies documents into the new store.
type salvager struct {
	ctx   context.Context
	rf    *rawFile
	w     *rawWalk
	db    *DB
	rep   *SalvageReport
	coll  *SalvageCollection
	batch []value.Value
}

func (s *salvager) run() error {
	top := map[string]rawElem{} // the top-level buckets, read once
	s.problems("/", s.w.forEach(rawBucket{root: s.rf.root}, func(e rawElem) {
		if _, dup := top[string(e.key)]; !dup && e.flags&bucketLeafFlag != 0 {
			top[string(e.key)] = e
		}
	}))
	s.leftBehind(top)
	colls, ok := s.top(top, "collections")
	if !ok {
		return nil
	}
	var names []rawElem
	s.problems("/collections", s.w.forEach(colls, func(e rawElem) {
		if e.flags&bucketLeafFlag != 0 {
			names = append(names, e)
		}
	}))
	for _, e := range names {
		if err := s.collection(e); err != nil {
			return err
		}
	}
	return nil
}

// top returns the top-level bucket name.
func (s *salvager) top(top map[string]rawElem, name string) (rawBucket, bool) {
	e, ok := top[name]
	if !ok {
		s.rep.Problems = append(s.rep.Problems, fmt.Sprintf("bucket /%s: not found", name))
		return rawBucket{}, false
	}
	sub, err := bucketOf(e)
	if err != nil {
		s.rep.Problems = append(s.rep.Problems, fmt.Sprintf("bucket /%s: %v", name, err))
		return rawBucket{}, false
	}
	return sub, true
}

// leftBehind notes the plans, snapshots and rollback links of the source:
// they name journal positions and change ids of a history the new store
// does not have, so carrying them over would make them lie.
func (s *salvager) leftBehind(top map[string]rawElem) {
	for _, area := range []struct {
		bucket []byte
		what   string
		count  func(rawElem) bool
	}{
		{bucketPlans, "plan(s)", func(e rawElem) bool { return e.flags&bucketLeafFlag != 0 }},
		{bucketSnapshots, "snapshot(s)", func(rawElem) bool { return true }},
		{bucketRollbacks, "rollback link(s)", func(e rawElem) bool { return bytes.HasPrefix(e.key, linkBy) }},
	} {
		e, found := top[string(area.bucket)]
		if !found {
			continue
		}
		n := 0
		if b, err := bucketOf(e); err == nil {
			s.problems("/"+string(area.bucket), s.w.forEach(b, func(e rawElem) {
				if area.count(e) {
					n++
				}
			}))
		}
		s.rep.LeftBehind = append(s.rep.LeftBehind, fmt.Sprintf("%d %s in /%s: they refer to the journal, which salvage does not carry over", n, area.what, area.bucket))
	}
}

func (s *salvager) problems(where string, ps []rawProblem) {
	for _, p := range ps {
		s.rep.Problems = append(s.rep.Problems, fmt.Sprintf("bucket %s: %v", where, p))
	}
}

// collection copies one collection's documents.
func (s *salvager) collection(e rawElem) (err error) {
	name := string(e.key)
	s.coll = &SalvageCollection{Name: name, Expected: -1, Unreadable: []SalvageLoss{}, Indexes: []string{}}
	s.rep.Collections = append(s.rep.Collections, s.coll)
	if ValidateCollectionName(name) != nil {
		s.lose(e.key, 0, "collection name is not valid (damaged?)")
		return nil
	}
	b, err := bucketOf(e)
	if err != nil {
		s.lose(nil, 0, err.Error())
		return nil
	}
	var docs *rawElem
	var meta []byte
	s.problems("/collections/"+name, s.w.forEach(b, func(e rawElem) {
		switch {
		case string(e.key) == "docs" && e.flags&bucketLeafFlag != 0:
			docs = &e
		case string(e.key) == "count":
			if n, err := decodeCount(e.value); err == nil {
				s.coll.Expected = n
			}
		case string(e.key) == string(keyCollMeta) && e.flags&bucketLeafFlag == 0:
			meta = e.value
		}
	}))
	defer func() {
		if err == nil {
			err = s.indexes(name, meta)
		}
	}()
	if docs == nil {
		s.lose(nil, 0, "the collection's documents bucket is missing")
		return s.flush()
	}
	db, err := bucketOf(*docs)
	if err != nil {
		s.lose(nil, 0, err.Error())
		return s.flush()
	}
	var werr error
	ps := s.w.forEach(db, func(e rawElem) {
		if werr == nil {
			werr = s.document(e)
		}
	})
	for _, p := range ps {
		s.lose(p.firstKey, p.page, p.err.Error()+"; the documents in this part of the tree are lost")
	}
	if werr != nil {
		return werr
	}
	return s.flush()
}

// document checks one stored document and queues it for copying.
func (s *salvager) document(e rawElem) error {
	if e.flags&bucketLeafFlag != 0 {
		s.lose(e.key, 0, "a nested bucket where a document should be")
		return nil
	}
	doc, err := decodeDoc(e.value)
	if err != nil {
		s.lose(e.key, 0, err.Error())
		return nil
	}
	if want := value.AppendKey(nil, doc.Get("_id")); !bytes.Equal(want, e.key) {
		s.lose(e.key, 0, fmt.Sprintf("document with _id %s is stored under the wrong key", doc.Get("_id")))
		return nil
	}
	s.batch = append(s.batch, doc)
	if len(s.batch) >= salvageBatch {
		return s.flush()
	}
	return s.ctx.Err()
}

func (s *salvager) lose(key []byte, page uint64, reason string) {
	s.rep.Unreadable++
	if len(s.coll.Unreadable) < maxSalvageLosses {
		s.coll.Unreadable = append(s.coll.Unreadable, SalvageLoss{Key: hex.EncodeToString(key), Page: page, Reason: reason})
	}
}

// flush writes the queued documents into the new store.
func (s *salvager) flush() error {
	batch := s.batch
	s.batch = s.batch[:0]
	return s.db.Update(Change{Kind: "salvage", Note: "salvaged from " + s.rep.Source}, func(tx *Tx) error {
		c, err := tx.CreateCollection(s.coll.Name)
		if err != nil {
			return err
		}
		for _, doc := range batch {
			if _, err := c.Insert(doc); errors.Is(err, ErrDuplicateID) {
				s.lose(value.AppendKey(nil, doc.Get("_id")), 0, "a second document under the same key")
				continue
			} else if err != nil {
				return err
			}
			s.coll.Recovered++
			s.rep.Recovered++
		}
		return nil
	})
}

// indexes creates the collection's indexes again, from the definitions in
// its metadata record, and builds them over the recovered documents. An
// index that cannot be made is a problem of the report, not a failure.
func (s *salvager) indexes(name string, meta []byte) error {
	if meta == nil {
		s.rep.Problems = append(s.rep.Problems, fmt.Sprintf("collection %s: no metadata record; its indexes, if any, are lost", name))
		return nil
	}
	m, err := decodeMeta(meta, name)
	if err != nil {
		s.rep.Problems = append(s.rep.Problems, fmt.Sprintf("collection %s: metadata: %v; its indexes, if any, are lost", name, err))
		return nil
	}
	for _, def := range m.Indexes {
		err := s.db.Update(Change{Kind: "salvage", Note: "index " + def.Name + " rebuilt by salvage"}, func(tx *Tx) error {
			c, err := tx.Collection(name)
			if err != nil {
				return err
			}
			_, err = c.CreateIndex(def)
			return err
		})
		if err != nil {
			if errors.Is(err, ErrFailed) || errors.Is(err, ErrClosed) {
				return err
			}
			s.rep.Problems = append(s.rep.Problems, fmt.Sprintf("collection %s: index %s could not be built again: %v", name, def.Name, err))
			continue
		}
		s.coll.Indexes = append(s.coll.Indexes, def.Name)
	}
	return s.ctx.Err()
}
