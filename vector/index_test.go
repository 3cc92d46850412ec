package vector

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

var words = strings.Fields(`backup restore nightly snapshot log rotate compress zstd debug level
	query index vector search token budget agent cache store file page journal commit rollback
	apply plan filter field array object string number date error hint retry lock reader writer`)

func randomText(r *rand.Rand) string {
	n := 1 + r.Intn(12)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.Intn(len(words))]
	}
	return strings.Join(ws, " ")
}

// randomDoc returns a document whose body is text, an array of texts, a
// number or missing, so that indexes meet every shape.
func randomDoc(r *rand.Rand, id int) value.Value {
	f := []value.Field{{Key: "_id", Value: value.LongValue(int64(id))}, {Key: "title", Value: value.StringValue(randomText(r))}}
	switch r.Intn(5) {
	case 0:
		f = append(f, value.Field{Key: "body", Value: value.ArrayValue([]value.Value{value.StringValue(randomText(r)), value.StringValue(randomText(r))})})
	case 1:
		f = append(f, value.Field{Key: "body", Value: value.LongValue(7)})
	case 2:
	default:
		f = append(f, value.Field{Key: "body", Value: value.StringValue(randomText(r))})
	}
	f = append(f, value.Field{Key: "team", Value: value.StringValue([]string{"ops", "dev"}[r.Intn(2)])})
	return value.ObjectValue(f)
}

var errAbort = errors.New("abort")

func createIndexes(t *testing.T, db *store.DB, coll string) {
	t.Helper()
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for _, def := range []store.IndexDef{
			NewVectorIndexDef("vec", "body", 64),
			NewSearchIndexDef("text", []string{"title", "body"}, "en"),
		} {
			if _, err := c.CreateIndex(def); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// indexContents returns every entry an index keeps, read through the
// store's typed API: a vector index's metadata, count and records; a
// search index's statistics, document frequencies, postings and lengths.
func indexContents(t *testing.T, c *store.Collection, name string) map[string]string {
	ix, err := c.Index(name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	if ix.Def.Kind == KindVector {
		vs := ix.Vectors()
		out["meta"], out["count"] = string(vs.Meta()), fmt.Sprint(vs.Count())
		for cur := vs.Records(); cur.Next(); {
			out["v"+string(cur.DocKey())] = string(cur.Record())
		}
		for cur := vs.Quants(); cur.Next(); {
			out["q"+string(cur.DocKey())] = string(cur.Record())
		}
		return out
	}
	fi, err := openFTS(ix)
	if err != nil {
		t.Fatal(err)
	}
	text := ix.Text()
	out["stats"] = fmt.Sprint(text.Stats(len(fi.fields)))
	for _, f := range fi.fields {
		for terms := text.Terms(f, ""); terms.Next(); {
			term := string(terms.Key())
			out["t"+termRef(f, term)] = fmt.Sprint(text.DocFreq(f, term))
			for p := text.Postings(f, term); p.Next(); {
				length, tf := p.Freq()
				out["p"+termRef(f, term)+"\x00"+string(p.Key())] = fmt.Sprint(length, tf, p.Positions(nil))
			}
		}
	}
	for d := text.Docs(); d.Next(); {
		lengths, id, _ := text.Doc(d.Key(), len(fi.fields))
		out["l"+string(d.Key())] = fmt.Sprint(lengths, string(id))
	}
	return out
}

func hitsString(res *Result) string {
	var b strings.Builder
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "%s:%v ", h.ID, h.Score)
	}
	return b.String()
}

// TestIndexes_MatchRebuildAfterRandomWrites is the property test: after
// random inserts, replaces and deletes, some in transactions that roll
// back, the vector and search indexes hold exactly what an index built
// from scratch over the same documents holds, and answer the same.
func TestIndexes_MatchRebuildAfterRandomWrites(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			db := storetest.MustOpen(t)
			createIndexes(t, db, "c")
			for i := 0; i < 40; i++ {
				abort := r.Intn(5) == 0
				err := db.Update(store.Change{}, func(tx *store.Tx) error {
					c, _ := tx.Collection("c")
					for j := 0; j < 1+r.Intn(4); j++ {
						id := r.Intn(25)
						_, err := c.Get(value.LongValue(int64(id)))
						switch exists := err == nil; {
						case !exists:
							_, err = c.Insert(randomDoc(r, id))
						case r.Intn(2) == 0:
							err = c.Replace(value.LongValue(int64(id)), randomDoc(r, id))
						default:
							err = c.Delete(value.LongValue(int64(id)))
						}
						if err != nil {
							return err
						}
					}
					if abort {
						return errAbort
					}
					return nil
				})
				if err != nil && !errors.Is(err, errAbort) {
					t.Fatal(err)
				}
			}
			// Copy the documents into a fresh collection, then index it.
			err := db.Update(store.Change{}, func(tx *store.Tx) error {
				c, _ := tx.Collection("c")
				fresh, err := tx.CreateCollection("fresh")
				if err != nil {
					return err
				}
				cur := c.Scan()
				for cur.Next() {
					if _, err := fresh.Insert(cur.Doc()); err != nil {
						return err
					}
				}
				return cur.Err()
			})
			if err != nil {
				t.Fatal(err)
			}
			createIndexes(t, db, "fresh")
			db.View(func(tx *store.Tx) error {
				c, _ := tx.Collection("c")
				fresh, _ := tx.Collection("fresh")
				for _, name := range []string{"vec", "text"} {
					got, want := indexContents(t, c, name), indexContents(t, fresh, name)
					if len(got) != len(want) {
						t.Errorf("index %s: %d entries, rebuilt has %d", name, len(got), len(want))
					}
					for k, v := range want {
						if got[k] != v {
							t.Errorf("index %s: entry %q = %x, rebuilt has %x", name, k, got[k], v)
						}
					}
				}
				ctx := context.Background()
				filter, _ := query.CompileFilter(value.MustParse(`{"team":"ops"}`))
				for _, q := range []string{"backup restore", "log rotate compress", "agent token budget", "zstd"} {
					for _, opts := range []*SearchOptions{{K: 5}, {K: 3, Filter: filter}} {
						a, err1 := VectorSearch(ctx, c, "body", q, opts)
						b, err2 := VectorSearch(ctx, fresh, "body", q, opts)
						if err1 != nil || err2 != nil || hitsString(a) != hitsString(b) {
							t.Errorf("vsearch %q: %s (%v), rebuilt: %s (%v)", q, hitsString(a), err1, hitsString(b), err2)
						}
						a, err1 = TextSearch(ctx, c, q, opts)
						b, err2 = TextSearch(ctx, fresh, q, opts)
						if err1 != nil || err2 != nil || hitsString(a) != hitsString(b) {
							t.Errorf("search %q: %s (%v), rebuilt: %s (%v)", q, hitsString(a), err1, hitsString(b), err2)
						}
					}
				}
				return nil
			})
		})
	}
}

func TestVerify_CatchesDamagedIndexes(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndexes(t, db, "c")
	storetest.Insert(t, db, "c", `{"_id":1,"title":"nightly backup","body":"restore from the snapshot"}`, `{"_id":2,"title":"logs","body":"rotate logs daily"}`)
	for _, damage := range []struct {
		index, want string
		fn          func(ix *store.Index) error
	}{
		{"vec", "vector of document 1 differs", func(ix *store.Index) error {
			k := value.AppendKey(nil, value.LongValue(1))
			v := append([]byte(nil), ix.Vectors().Get(k)...)
			v[0] ^= 0x40
			ix.Vectors().Put(k, v, ix.Vectors().Quant(k))
			return nil
		}},
		{"vec", "document 2 has no vector", func(ix *store.Index) error {
			ix.Vectors().Delete(value.AppendKey(nil, value.LongValue(2)))
			return ix.Vectors().SetCount(1)
		}},
		{"text", "missing entry", func(ix *store.Index) error {
			ix.Text().DeletePosting("body", "restor", value.AppendKey(nil, value.LongValue(1)))
			return nil
		}},
	} {
		db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			ix, _ := c.Index(damage.index)
			return damage.fn(ix)
		})
		rep, err := db.Verify(context.Background())
		if err != nil || rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), damage.want) {
			t.Errorf("verify after damaging %s: %v %v, want a problem %q", damage.index, err, rep.Problems, damage.want)
		}
		err = db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			_, err := Reindex(c)
			return err
		})
		if rep, _ := db.Verify(context.Background()); err != nil || !rep.OK {
			t.Fatalf("reindex did not repair: %v %v", err, rep.Problems)
		}
	}
}

// TestVectorIndex_ChangedEmbedderIsNeverMixed marks the stored vectors as
// made by another embedder: searches embed on the fly and say so, and the
// next write rebuilds the index instead of mixing vectors.
func TestVectorIndex_ChangedEmbedderIsNeverMixed(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndexes(t, db, "c")
	storetest.Insert(t, db, "c", `{"_id":1,"body":"restore from the snapshot"}`, `{"_id":2,"body":"rotate logs daily"}`)
	db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ix, _ := c.Index("vec")
		return ix.Vectors().SetMeta(pad4([]byte(`{"model":"hashing-fnv1a-v2-d64","probe":"0000000000000000"}`), ' '))
	})
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		res, err := VectorSearch(context.Background(), c, "body", "snapshot restore", nil)
		if err != nil || !res.OnTheFly || !strings.Contains(res.Note, "another embedder") || len(res.Hits) == 0 || res.Hits[0].ID.Long() != 1 {
			t.Errorf("search over stale vectors: %+v %v", res, err)
		}
		return nil
	})
	storetest.Insert(t, db, "c", `{"_id":3,"body":"compress with zstd"}`)
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ix, _ := c.Index("vec")
		if vi, _ := openVec(ix); !vi.current(ix.Vectors()) || ix.Vectors().Count() != 3 {
			t.Errorf("write did not rebuild the stale index: meta %s, count %d", ix.Vectors().Meta(), ix.Vectors().Count())
		}
		res, err := VectorSearch(context.Background(), c, "body", "zstd", nil)
		if err != nil || res.OnTheFly || len(res.Hits) == 0 || res.Hits[0].ID.Long() != 3 {
			t.Errorf("search after rebuild: %+v %v", res, err)
		}
		return nil
	})
}

func TestEmbedder_Deterministic(t *testing.T) {
	e := NewEmbedder(0)
	if e.ModelID() != "hashing-fnv1a-v2-d256" {
		t.Errorf("model id %s", e.ModelID())
	}
	a, b := e.Embed("Nightly backups of the store, compressed"), e.Embed("Nightly backups of the store, compressed")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("same text, different vectors")
	}
	if dot(a, a) < 0.999 || dot(a, a) > 1.001 {
		t.Errorf("not unit length: %v", dot(a, a))
	}
	for _, v := range [][]float32{e.Embed(""), e.Embed("   ...  "), (&Embedder{Version: 1}).Embed("!!")} {
		for _, x := range v {
			if x != 0 {
				t.Fatal("text without words must give the zero vector")
			}
		}
	}
	// The probe pins the algorithm: docs/retrieval.md describes it exactly.
	if got := probe(e); got != pinnedProbe {
		t.Errorf("embedder output changed: probe %s, pinned %s; bump the model version if intended", got, pinnedProbe)
	}
	// OMGDB's baseline: "b" alone hashes to FNV-1a("b") mod dim with weight 1.
	base := (&Embedder{Dim: 16, Version: 1}).Embed("B b")
	if base[fnv1a(fnvOffset, "b")%16] != 1 {
		t.Errorf("baseline vector %v", base)
	}
}

const pinnedProbe = "b7387c57d484039a"

// TestVectorScan_PathsAgree checks that the three scans (int8 first pass
// with exact re-ranking, in-place float32 stream, cached matrix) return
// the same hits, ties included, with a vocabulary small enough for many
// near-ties.
func TestVectorScan_PathsAgree(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndexes(t, db, "c")
	r := rand.New(rand.NewSource(7))
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		for i := 0; i < 600; i++ {
			doc := value.ObjectValue([]value.Field{{Key: "_id", Value: value.LongValue(int64(i))}, {Key: "body", Value: value.StringValue(randomText(r))}})
			if _, err := c.Insert(doc); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ix, _ := c.Index("vec")
		vi, _ := openVec(ix)
		m := readMatrix(ix.Vectors(), vi.spec.Dim)
		for i := 0; i < 60; i++ {
			q := vi.emb.Embed(randomText(r))
			for _, k := range []int{1, 5, 40} {
				a, b, c := newTopK(k), newTopK(k), newTopK(k)
				quantScan(ix.Vectors(), q, a)
				streamScan(ix.Vectors(), q, b)
				m.scan(context.Background(), q, c)
				ha, hb, hc := hitsString(&Result{Hits: a.hits(keepAll)}), hitsString(&Result{Hits: b.hits(keepAll)}), hitsString(&Result{Hits: c.hits(keepAll)})
				if ha != hb || hb != hc {
					t.Fatalf("k=%d: int8+rerank %s\nstream %s\nmatrix %s", k, ha, hb, hc)
				}
			}
		}
		return nil
	})
}

func keepAll(float64) bool { return true }

// TestVectorSearch_CacheNeverStale searches through every path (int8
// stream, matrix load, cached matrix), each time from a newly opened
// store as the MCP server does, and checks a write is seen at once.
func TestVectorSearch_CacheNeverStale(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndexes(t, db, "c")
	storetest.Insert(t, db, "c", `{"_id":1,"body":"restore from the snapshot"}`, `{"_id":2,"body":"rotate logs daily"}`)
	path := db.Path()
	db.Close()
	top := func() string {
		ro, err := store.Open(path, &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		var id string
		ro.View(func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			res, err := VectorSearch(context.Background(), c, "body", "zstd compression dictionaries", &SearchOptions{K: 1, MinScore: new(float64)})
			if err != nil || len(res.Hits) == 0 {
				t.Fatalf("search: %v %v", res, err)
			}
			id = res.Hits[0].ID.String()
			return nil
		})
		return id
	}
	for i := 0; i < 3; i++ {
		if got := top(); got == "3" {
			t.Fatalf("search %d found a document not written yet", i)
		}
	}
	w, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Insert(t, w, "c", `{"_id":3,"body":"zstd compression dictionaries"}`)
	w.Close()
	for i := 0; i < 3; i++ {
		if got := top(); got != "3" {
			t.Fatalf("search %d after the write: top hit %s, want 3", i, got)
		}
	}
}

// TestIndexes_CompactKeepsAndSalvageRebuilds: compaction copies the data
// of vector and search indexes as it is; salvage builds them again over
// the recovered documents, to the same content.
func TestIndexes_CompactKeepsAndSalvageRebuilds(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndexes(t, db, "c")
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 30; i++ {
		storetest.Insert(t, db, "c", string(value.AppendJSON(nil, randomDoc(r, i))))
	}
	contents := func(path string) map[string]map[string]string {
		sdb, err := store.Open(path, &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer sdb.Close()
		out := map[string]map[string]string{}
		sdb.View(func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"vec", "text"} {
				out[name] = indexContents(t, c, name)
			}
			return nil
		})
		return out
	}
	path := db.Path()
	db.Close()
	want := contents(path)
	if len(want["vec"]) < 10 || len(want["text"]) < 30 {
		t.Fatalf("the indexes hold too little: %d and %d entries", len(want["vec"]), len(want["text"]))
	}
	if _, err := store.Compact(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	if got := contents(path); !reflect.DeepEqual(got, want) {
		t.Error("compaction changed the indexes' data")
	}
	out := filepath.Join(t.TempDir(), "s.omgdb")
	rep, err := store.Salvage(context.Background(), path, out)
	if err != nil || !rep.Complete || strings.Join(rep.Collections[0].Indexes, ",") != "vec,text" {
		t.Fatalf("salvage: %+v %v", rep, err)
	}
	if got := contents(out); !reflect.DeepEqual(got, want) {
		t.Error("salvage built other indexes")
	}
}
