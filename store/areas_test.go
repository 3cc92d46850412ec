package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// dataKind is an index kind for these tests: it writes nothing itself;
// the tests write its data through Vectors and Text.
type dataKind struct{}

func (dataKind) Prepare(def store.IndexDef) (store.IndexDef, error)  { return def, nil }
func (dataKind) Update(*store.Index, value.Value, value.Value) error { return nil }

func init() { store.RegisterIndexKind("store-test-data", dataKind{}) }

// withIndex runs fn in a write transaction on index ix of collection c,
// creating both when needed.
func withIndex(t *testing.T, db *store.DB, fn func(ix *store.Index) error) {
	t.Helper()
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			if c, err = tx.CreateCollection("c"); err != nil {
				return err
			}
		}
		ix, err := c.Index("ix")
		if err != nil {
			if ix, err = c.CreateIndex(store.IndexDef{Name: "ix", Kind: "store-test-data"}); err != nil {
				return err
			}
		}
		return fn(ix)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// viewIndex runs fn in a read transaction on index ix of collection c.
func viewIndex(t *testing.T, db *store.DB, fn func(ix *store.Index)) {
	t.Helper()
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		ix, err := c.Index("ix")
		if err != nil {
			return err
		}
		fn(ix)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// has reports whether a cursor has an entry.
func has[C any, P interface {
	*C
	Next() bool
}](c C) bool {
	return P(&c).Next()
}

func key(id int64) []byte { return value.AppendKey(nil, value.LongValue(id)) }

func TestPlans_WritesAreNotJournaled(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`)
	db.View(func(tx *store.Tx) error {
		if h, ok := tx.Plans().Header("p"); ok || h != nil {
			t.Errorf("read transaction, no plans: header = %q, %v", h, ok)
		}
		return nil
	})
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		if err := tx.Plans().PutHeader("p", []byte(`{"a":1}`)); err != nil {
			return err
		}
		if err := tx.Snapshots().Put("s", []byte(`{"lsn":1}`)); err != nil {
			return err
		}
		return tx.Rollbacks().Link("c1", "r1")
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		if tx.LastLSN() != 1 {
			t.Errorf("a write to the plans, snapshots or links added a journal record (last lsn %d)", tx.LastLSN())
		}
		h, ok := tx.Plans().Header("p")
		if js, err := store.DecodeBlob(h); !ok || err != nil || string(js) != `{"a":1}` {
			t.Errorf("header = %q, %v, %v", js, ok, err)
		}
		return nil
	})
}

func TestPlans_Chunks_InSequenceWithTheAskedParts(t *testing.T) {
	db := storetest.MustOpen(t)
	blob := func(s string) store.Blob { return store.EncodeBlob([]byte(s)) }
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		p := tx.Plans()
		if err := p.Create("t1"); err != nil {
			return err
		}
		if err := p.Create("t1"); err == nil {
			t.Error("a plan was created twice")
		}
		if err := p.PutChunk("nope", store.PlanItems, 0, blob(`"x"`)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("chunk of an unknown plan = %v", err)
		}
		for _, seq := range []uint32{1, 0, 256} {
			for _, part := range []store.PlanPart{store.PlanItems, store.PlanAfters} {
				if err := p.PutChunk("t1", part, seq, blob(fmt.Sprintf(`"%c%d"`, part, seq))); err != nil {
					return err
				}
			}
		}
		if err := p.PutChunk("t1", store.PlanBefores, 1, blob(`"b1"`)); err != nil {
			return err
		}
		if err := p.PutHeader("t1", []byte(`{"h":1}`)); err != nil {
			return err
		}
		return p.PutHeader("t0", []byte(`{"h":0}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	payload := func(b store.Blob) string {
		if b == nil {
			return "-"
		}
		js, err := store.DecodeBlob(b)
		if err != nil {
			t.Fatal(err)
		}
		return string(js)
	}
	chunks := func(tx *store.Tx, parts ...store.PlanPart) string {
		var out []string
		for _, c := range tx.Plans().Chunks("t1", parts...) {
			out = append(out, fmt.Sprintf("%d:%s,%s,%s", c.Seq, payload(c.Items), payload(c.Afters), payload(c.Befores)))
		}
		return strings.Join(out, " ")
	}
	db.View(func(tx *store.Tx) error {
		if got, want := chunks(tx, store.PlanAfters), `0:"i0","a0",- 1:"i1","a1",- 256:"i256","a256",-`; got != want {
			t.Errorf("chunks with after-images = %s, want %s", got, want)
		}
		if got, want := chunks(tx, store.PlanAfters, store.PlanBefores), `0:"i0","a0",- 1:"i1","a1","b1" 256:"i256","a256",-`; got != want {
			t.Errorf("chunks with both images = %s, want %s", got, want)
		}
		var tokens []string
		tx.Plans().Each(func(token string, h store.Blob) error {
			tokens = append(tokens, token+"="+payload(h))
			return nil
		})
		if got := strings.Join(tokens, " "); got != `t0={"h":0} t1={"h":1}` {
			t.Errorf("plans = %s", got)
		}
		return nil
	})
	err = db.Update(store.Change{}, func(tx *store.Tx) error { return tx.Plans().DropChunks("t1") })
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		if got := chunks(tx); got != "" {
			t.Errorf("chunks after DropChunks: %s", got)
		}
		if h, ok := tx.Plans().Header("t1"); !ok || payload(h) != `{"h":1}` {
			t.Errorf("DropChunks lost the header")
		}
		return nil
	})
}

func TestSnapshots_PutGetEachDelete(t *testing.T) {
	db := storetest.MustOpen(t)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		for _, name := range []string{"b", "a"} {
			if err := tx.Snapshots().Put(name, []byte(`"`+name+`"`)); err != nil {
				return err
			}
		}
		return tx.Snapshots().Delete("zz") // absent: nothing to do
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Update(store.Change{}, func(tx *store.Tx) error {
		if js, err := store.DecodeBlob(tx.Snapshots().Get("a")); err != nil || string(js) != `"a"` {
			t.Errorf("get a = %s, %v", js, err)
		}
		var names []string
		tx.Snapshots().Each(func(name string, _ store.Blob) error { names = append(names, name); return nil })
		if strings.Join(names, ",") != "a,b" {
			t.Errorf("each = %v", names)
		}
		if err := tx.Snapshots().Delete("a"); err != nil || tx.Snapshots().Get("a") != nil {
			t.Errorf("delete a: %v, still %q", err, tx.Snapshots().Get("a"))
		}
		return nil
	})
}

func TestRollbacks_Link_ReadsBothWays(t *testing.T) {
	db := storetest.MustOpen(t)
	db.View(func(tx *store.Tx) error {
		if by := tx.Rollbacks().UndoneBy("c1"); by != "" {
			t.Errorf("no links yet: undone by %q", by)
		}
		return nil
	})
	if err := db.Update(store.Change{}, func(tx *store.Tx) error { return tx.Rollbacks().Link("c1", "r1") }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		if by, of := tx.Rollbacks().UndoneBy("c1"), tx.Rollbacks().Undid("r1"); by != "r1" || of != "c1" {
			t.Errorf("undone by %q, undid %q", by, of)
		}
		if by := tx.Rollbacks().UndoneBy("r1"); by != "" {
			t.Errorf("the rollback reads as undone by %q", by)
		}
		return nil
	})
}

func TestVectors_PutIsSeenAtOnceAndWrittenAtCommit(t *testing.T) {
	db := storetest.MustOpen(t)
	withIndex(t, db, func(ix *store.Index) error {
		vs := ix.Vectors()
		for _, id := range []int64{3, 1, 2} {
			vs.Put(key(id), []byte{byte(id), 0, 0, 0, 'x', 'y', 'z', ' '}, []byte{byte(id), 1, 2, 3})
		}
		if got := vs.Get(key(3)); len(got) != 8 || got[0] != 3 {
			t.Errorf("a buffered record is not seen: %v", got)
		}
		if has(vs.Records()) {
			t.Error("a cursor saw a record before the flush")
		}
		vs.Delete(key(2))
		if err := vs.SetMeta([]byte("m1  ")); err != nil {
			return err
		}
		return vs.SetCount(2)
	})
	viewIndex(t, db, func(ix *store.Index) {
		vs := ix.Vectors()
		var got []string
		for c := vs.Records(); c.Next(); {
			got = append(got, fmt.Sprintf("%x=%x", c.DocKey(), c.Record()))
		}
		want := []string{fmt.Sprintf("%x=0100000078797a20", key(1)), fmt.Sprintf("%x=0300000078797a20", key(3))}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("records = %v, want %v", got, want)
		}
		n := 0
		for c := vs.Quants(); c.Next(); n++ {
			if !bytes.Equal(c.Record(), vs.Quant(c.DocKey())) {
				t.Errorf("quant cursor and Quant disagree at %x", c.DocKey())
			}
		}
		if n != 2 || vs.Count() != 2 || string(vs.Meta()) != "m1  " || vs.Get(key(2)) != nil {
			t.Errorf("quants %d, count %d, meta %q, deleted record %v", n, vs.Count(), vs.Meta(), vs.Get(key(2)))
		}
	})
	withIndex(t, db, func(ix *store.Index) error { return ix.Vectors().Clear() })
	viewIndex(t, db, func(ix *store.Index) {
		if has(ix.Vectors().Records()) || ix.Vectors().Count() != 0 || ix.Vectors().Meta() != nil {
			t.Error("Clear left data behind")
		}
	})
}

// putText writes a small full-text index: "body" has "backup" in
// documents 1 and 2 and "bake" in document 2.
func putText(t *testing.T, db *store.DB) {
	withIndex(t, db, func(ix *store.Index) error {
		tx := ix.Text()
		tx.PutPosting("body", "backup", key(2), 5, []uint32{0, 3})
		tx.PutPosting("body", "backup", key(1), 2, []uint32{1})
		tx.PutPosting("body", "bake", key(2), 5, []uint32{4})
		tx.PutDoc(key(1), []uint64{2}, []byte("1"))
		tx.PutDoc(key(2), []uint64{5}, []byte("2"))
		if !tx.HasDoc(key(2)) {
			t.Error("a buffered document is not seen")
		}
		for term, n := range map[string]uint64{"backup": 2, "bake": 1} {
			if err := tx.SetDocFreq("body", term, n); err != nil {
				return err
			}
		}
		return tx.SetStats([]store.FieldStats{{Docs: 2, Tokens: 7, Terms: 2}})
	})
}

func TestTextIndex_PostingsTermsAndDocs(t *testing.T) {
	db := storetest.MustOpen(t)
	putText(t, db)
	viewIndex(t, db, func(ix *store.Index) {
		tx := ix.Text()
		var got []string
		for c := tx.Postings("body", "backup"); c.Next(); {
			length, tf := c.Freq()
			got = append(got, fmt.Sprintf("%x:%d,%d,%v", c.Key(), length, tf, c.Positions(nil)))
		}
		want := []string{fmt.Sprintf("%x:2,1,[1]", key(1)), fmt.Sprintf("%x:5,2,[0 3]", key(2))}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("postings of backup = %v, want %v", got, want)
		}
		var terms []string
		for c := tx.Terms("body", "ba"); c.Next(); {
			terms = append(terms, string(c.Key()))
		}
		if strings.Join(terms, ",") != "backup,bake" || !has(tx.Terms("body", "bac")) || has(tx.Terms("title", "")) {
			t.Errorf("terms = %v", terms)
		}
		if tx.DocFreq("body", "backup") != 2 || tx.DocFreq("body", "nope") != 0 {
			t.Errorf("doc freq = %d", tx.DocFreq("body", "backup"))
		}
		lengths, id, ok := tx.Doc(key(2), 1)
		if !ok || !reflect.DeepEqual(lengths, []uint64{5}) || string(id) != "2" {
			t.Errorf("doc 2 = %v %q %v", lengths, id, ok)
		}
		n := 0
		for c := tx.Docs(); c.Next(); n++ {
		}
		if st := tx.Stats(2); n != 2 || st[0] != (store.FieldStats{Docs: 2, Tokens: 7, Terms: 2}) || st[1] != (store.FieldStats{}) {
			t.Errorf("docs %d, stats %v", n, st)
		}
	})
	withIndex(t, db, func(ix *store.Index) error {
		ix.Text().DeletePosting("body", "bake", key(2))
		return ix.Text().SetDocFreq("body", "bake", 0)
	})
	viewIndex(t, db, func(ix *store.Index) {
		if has(ix.Text().Postings("body", "bake")) || has(ix.Text().Terms("body", "bak")) {
			t.Error("the deleted term is still there")
		}
	})
}

func TestTextIndex_WriteAndCompare(t *testing.T) {
	db := storetest.MustOpen(t)
	build := func(pos uint32) *store.TextBuild {
		b := &store.TextBuild{}
		b.AddPosting("body", "zstd", key(1), 3, []uint32{pos})
		b.AddDoc(key(1), []uint64{3}, []byte("1"))
		b.AddDocFreq("body", "zstd", 1)
		b.SetStats([]store.FieldStats{{Docs: 1, Tokens: 3, Terms: 1}})
		return b
	}
	putText(t, db)
	withIndex(t, db, func(ix *store.Index) error { return ix.Text().Write(build(2)) })
	viewIndex(t, db, func(ix *store.Index) {
		var ps []string
		ix.Text().Compare(build(2), func(f string, a ...any) { ps = append(ps, fmt.Sprintf(f, a...)) })
		if len(ps) != 0 || has(ix.Text().Postings("body", "backup")) {
			t.Errorf("after Write: %v (or the old postings are left)", ps)
		}
		ix.Text().Compare(build(1), func(f string, a ...any) { ps = append(ps, fmt.Sprintf(f, a...)) })
		if len(ps) != 1 || !strings.HasPrefix(ps[0], `entry "pbody\x00zstd\x00`) {
			t.Errorf("compare with another posting = %q", ps)
		}
	})
}
