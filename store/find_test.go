package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func findAll(t *testing.T, db *store.DB, q store.Query) []string {
	t.Helper()
	var out []string
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		src := c.Find(context.Background(), q)
		defer src.Close()
		for src.Next() {
			out = append(out, src.Doc().String())
		}
		return src.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFind_SortWithLimitEqualsFullSort: the bounded heap used with a limit
// returns exactly the page a full sort would, for random data and specs.
func TestFind_SortWithLimitEqualsFullSort(t *testing.T) {
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(5, 6))
	var docs []string
	for i := 0; i < 300; i++ {
		vals := []string{"1", "2.5", `"x"`, "null", "[3,1]", "[]", `{"k":1}`, "true", fmt.Sprint(r.IntN(10))}
		doc := fmt.Sprintf(`{"_id":%d,"a":%s`, i, vals[r.IntN(len(vals))])
		if r.IntN(4) > 0 {
			doc += fmt.Sprintf(`,"b":{"c":%s}`, vals[r.IntN(len(vals))])
		}
		docs = append(docs, doc+"}")
	}
	storetest.Insert(t, db, "c", docs...)
	specs := []string{`{"a":1}`, `{"a":-1}`, `{"b.c":1,"a":-1}`, `{"b.c":-1}`}
	for _, spec := range specs {
		s, err := query.CompileSort(value.MustParse(spec))
		if err != nil {
			t.Fatal(err)
		}
		full := findAll(t, db, store.Query{Sort: s})
		if len(full) != 300 {
			t.Fatalf("full sort returned %d", len(full))
		}
		for _, page := range [][2]int64{{0, 1}, {0, 10}, {5, 7}, {290, 50}, {299, 1}} {
			got := findAll(t, db, store.Query{Sort: s, Skip: page[0], Limit: page[1]})
			want := full[page[0]:min(page[0]+page[1], 300)]
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("sort %s skip %d limit %d:\n got %v\nwant %v", spec, page[0], page[1], got, want)
			}
		}
	}
}

// TestFind_SortSpillsToDisk: a sort past MaxSortBytes with a SpillDir
// returns exactly what the in-memory sort returns (ties broken by _id,
// arrays, null, missing and mixed types included), pages and projections
// too, streams the stored bytes, and leaves no file behind.
func TestFind_SortSpillsToDisk(t *testing.T) {
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(7, 8))
	var docs []string
	for i := 0; i < 600; i++ {
		vals := []string{"1", "2.5", `"x"`, "null", "[3,1]", "[]", `{"k":1}`, "true", fmt.Sprint(r.IntN(10)), `{"$date":5}`, `"` + strings.Repeat("p", r.IntN(200)) + `"`}
		doc := fmt.Sprintf(`{"_id":%d,"a":%s`, (i*7919)%600, vals[r.IntN(len(vals))])
		if r.IntN(4) > 0 {
			doc += fmt.Sprintf(`,"b":{"c":%s}`, vals[r.IntN(len(vals))])
		}
		docs = append(docs, doc+"}")
	}
	storetest.Insert(t, db, "c", docs...)
	dir := t.TempDir()
	for _, spec := range []string{`{"a":1}`, `{"a":-1}`, `{"b.c":1,"a":-1}`, `{"b.c":-1}`} {
		s := mustSort(t, spec)
		want := findAll(t, db, store.Query{Sort: s})
		got := findAll(t, db, store.Query{Sort: s, MaxSortBytes: 4000, SpillDir: dir})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sort %s spilled:\n got %.300v\nwant %.300v", spec, got, want)
		}
		for _, page := range [][2]int64{{0, 0}, {10, 0}, {590, 0}, {700, 0}} {
			got := findAll(t, db, store.Query{Sort: s, Skip: page[0], MaxSortBytes: 4000, SpillDir: dir})
			if w := want[min(page[0], 600):]; fmt.Sprint(got) != fmt.Sprint(w) {
				t.Fatalf("sort %s skip %d spilled: got %d documents, want %d", spec, page[0], len(got), len(w))
			}
		}
		p := mustProjection(t, `{"a":1}`)
		got = findAll(t, db, store.Query{Sort: s, Projection: p, MaxSortBytes: 4000, SpillDir: dir})
		want = findAll(t, db, store.Query{Sort: s, Projection: p})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("sort %s with a projection, spilled: got %.200v, want %.200v", spec, got, want)
		}
	}
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		src := c.Find(context.Background(), store.Query{Sort: mustSort(t, `{"a":1}`), MaxSortBytes: 4000, SpillDir: dir})
		defer src.Close()
		raw, ok := src.(store.RawSource)
		if !ok {
			t.Fatalf("a spilled sort's stream %T is not a RawSource", src)
		}
		for src.Next() {
			if js, doc := raw.RawJSON(), value.JSON(src.Doc()); string(js) != string(doc) {
				t.Fatalf("RawJSON %s, Doc %s", js, doc)
			}
		}
		return src.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left in the spill directory", len(left))
	}
	err = db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		src := c.Find(context.Background(), store.Query{Sort: mustSort(t, `{"a":1}`), MaxSortBytes: 4000, SpillDir: filepath.Join(dir, "missing")})
		defer src.Close()
		for src.Next() {
		}
		return src.Err()
	})
	if errs.KindOf(err) != errs.IO || errs.HintOf(err) == "" || !strings.Contains(err.Error(), "temporary files") {
		t.Errorf("a sort that cannot write its temporary files: %v (hint %q)", err, errs.HintOf(err))
	}
}

func TestFind_SortMemoryLimit(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":"xxxxxxxxxxxxxxxx"}`, `{"_id":2,"a":"yyyyyyyyyyyyyyyyyy"}`)
	s, _ := query.CompileSort(value.MustParse(`{"a":1}`))
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		src := c.Find(context.Background(), store.Query{Sort: s, MaxSortBytes: 100})
		for src.Next() {
		}
		return src.Err()
	})
	if errs.KindOf(err) != errs.Limit {
		t.Errorf("sort over the memory limit = %v", err)
	}
}

// TestFind_RedactBeforeEverything: a Redact hook runs before the filter,
// the sort and the projection, so none of them can see what it removes.
func TestFind_RedactBeforeEverything(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"s":"b","k":1}`, `{"_id":2,"s":"a","k":2}`, `{"_id":3,"k":3}`)
	noS := func(v value.Value) value.Value { return v.Without("s") }
	for _, tc := range []struct {
		q    store.Query
		want string
	}{
		{store.Query{Redact: noS}, `{"_id":1,"k":1} {"_id":2,"k":2} {"_id":3,"k":3}`},
		{store.Query{Redact: noS, Filter: mustFilter(t, `{"s":"a"}`)}, ``},
		{store.Query{Redact: noS, Filter: mustFilter(t, `{"s":{"$exists":false}}`)}, `{"_id":1,"k":1} {"_id":2,"k":2} {"_id":3,"k":3}`},
		{store.Query{Redact: noS, Sort: mustSort(t, `{"s":1,"_id":-1}`)}, `{"_id":3,"k":3} {"_id":2,"k":2} {"_id":1,"k":1}`},
		{store.Query{Redact: noS, Projection: mustProjection(t, `{"s":1}`)}, `{"_id":1} {"_id":2} {"_id":3}`},
	} {
		if got := strings.Join(findAll(t, db, tc.q), " "); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func mustSort(t *testing.T, s string) *query.Sort {
	so, err := query.CompileSort(value.MustParse(s))
	if err != nil {
		t.Fatal(err)
	}
	return so
}

func mustProjection(t *testing.T, s string) *query.Projection {
	p, err := query.CompileProjection(value.MustParse(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFind_RedactingQueryNeverUsesAnIndex: with Redact set, a filter on a
// redacted field must not be answered from an index (bounds, order or a
// covered count would reveal the hidden values).
func TestFind_RedactingQueryNeverUsesAnIndex(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"ssn":"111"}`, `{"_id":2,"ssn":"222"}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "ssn"}}}))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	redact := func(v value.Value) value.Value { return v.Without("ssn") }
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		n, err := c.CountQuery(context.Background(), store.Query{Filter: mustFilter(t, `{"ssn":"111"}`), Redact: redact})
		if err != nil || n != 0 {
			t.Errorf("redacted count = %d, %v; want 0 (the value is hidden)", n, err)
		}
		got := findAll(t, db, store.Query{Sort: mustSort(t, `{"ssn":-1}`), Redact: redact})
		if len(got) != 2 || got[0] != `{"_id":1}` {
			t.Errorf("sort on a redacted field must not follow its hidden order: %v", got)
		}
		return nil
	})
}

// TestFind_IDEqualityEqualsScan: a filter on _id equality reads one
// document by key, and must return what a full scan returns (long and
// double share a key; the rest of the filter still applies).
func TestFind_IDEqualityEqualsScan(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":5,"a":1}`, `{"_id":5.5,"a":2}`, `{"_id":"x","a":3}`,
		`{"_id":null,"a":4}`, `{"_id":{"k":1,"j":2},"a":5}`, `{"_id":{"$oid":"65f0a1b2c3d4e5f6a7b80001"},"a":6}`,
		`{"_id":true}`, `{"_id":{"$date":0}}`, `{"_id":-0.0,"a":7}`)
	filters := []string{`{"_id":5}`, `{"_id":5.0}`, `{"_id":{"$eq":5.5}}`, `{"_id":"x"}`, `{"_id":"y"}`,
		`{"_id":null}`, `{"_id":{"k":1,"j":2}}`, `{"_id":{"j":2,"k":1}}`, `{"_id":{"$oid":"65f0a1b2c3d4e5f6a7b80001"}}`,
		`{"_id":5,"a":2}`, `{"_id":5,"a":1}`, `{"a":3,"_id":"x"}`, `{"_id":true}`, `{"_id":{"$date":0}}`,
		`{"_id":0}`, `{"_id":[5]}`, `{"_id":6}`}
	for _, spec := range filters {
		fast, err := query.CompileFilter(value.MustParse(spec))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := query.CompileFilter(value.MustParse(`{"$and":[` + spec + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		got, want := findAll(t, db, store.Query{Filter: fast}), findAll(t, db, store.Query{Filter: slow})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("find %s = %v, a scan finds %v", spec, got, want)
		}
	}
}

// TestCollection_CountMatching_Parallel: a count whose batches of
// documents are matched on several goroutines counts what a scan finds,
// for several filters and _id types.
func TestCollection_CountMatching_Parallel(t *testing.T) {
	defer store.SetParallelScanMin(10)()
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(7, 8))
	var docs []string
	for i := 0; i < 500; i++ {
		id := fmt.Sprint(i * 37)
		switch r.IntN(3) {
		case 0:
			id = fmt.Sprintf(`"k%d"`, r.IntN(1e6))
		case 1:
			id = fmt.Sprintf(`{"$oid":"65f0a1b2c3d4e5f6a7b8%04x"}`, i)
		}
		docs = append(docs, fmt.Sprintf(`{"_id":%s,"a":%d,"b":{"c":[%d,%d]}}`, id, r.IntN(10), r.IntN(5), r.IntN(5)))
	}
	storetest.Insert(t, db, "c", docs...)
	for _, spec := range []string{`{"a":3}`, `{"a":{"$gte":2},"b.c":4}`, `{"a":{"$exists":true}}`, `{"zz":1}`} {
		f, err := query.CompileFilter(value.MustParse(spec))
		if err != nil {
			t.Fatal(err)
		}
		want := len(findAll(t, db, store.Query{Filter: f}))
		var got int64
		err = db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				return err
			}
			got, err = c.CountMatching(context.Background(), f)
			return err
		})
		if err != nil || got != int64(want) {
			t.Errorf("count %s = %d, %v; a scan finds %d", spec, got, err, want)
		}
	}
	// A redacting count never reads the stored bytes: it cannot see "a".
	noA := func(v value.Value) value.Value { return v.Without("a") }
	var n int64
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		n, err = c.CountQuery(context.Background(), store.Query{Filter: mustFilter(t, `{"a":3}`), Redact: noA})
		return err
	})
	if err != nil || n != 0 {
		t.Errorf("redacted count of {\"a\":3} = %d, %v; want 0", n, err)
	}
}

// TestFind_ExprErrorFailsTheQuery: a $expr that fails to evaluate on a
// document fails find and count with the expression's error, as MongoDB
// fails the query; it is neither a non-match (a silently wrong count) nor
// a corrupt document.
func TestFind_ExprErrorFailsTheQuery(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":1}`, `{"_id":2,"a":"x"}`)
	f, err := query.CompileFilter(value.MustParse(`{"$expr":{"$gt":[{"$add":["$a",1]},0]}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if _, err := c.CountMatching(context.Background(), f); err == nil || errors.Is(err, store.ErrCorrupt) || errs.KindOf(err) != errs.Invalid {
			t.Errorf("count: %v", err)
		}
		src := c.Find(context.Background(), store.Query{Filter: f})
		defer src.Close()
		for src.Next() {
		}
		if err := src.Err(); err == nil || errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "$add") {
			t.Errorf("find: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
