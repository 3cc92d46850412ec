package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func createIndex(t *testing.T, db *store.DB, coll string, spec store.BTreeSpec) error {
	t.Helper()
	return db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		_, err = c.CreateIndex(store.BTreeIndex("", spec))
		return err
	})
}

func count(t *testing.T, db *store.DB, coll string) int64 {
	t.Helper()
	var n int64
	db.View(func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			t.Fatal(err)
		}
		n = c.Count()
		return nil
	})
	return n
}

func TestBTree_UniqueRefusesInsert(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"email":"a@x"}`)
	if err := createIndex(t, db, "users", store.BTreeSpec{Fields: []store.IndexField{{Path: "email"}}, Unique: true}); err != nil {
		t.Fatal(err)
	}
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		_, err := c.Insert(value.MustParse(`{"_id":2,"email":"a@x"}`))
		return err
	})
	want := "duplicate key in unique index `email_1` of collection `users`: {\"email\":\"a@x\"} is already used by _id 1 (writing _id 2)"
	if err == nil || err.Error() != want || errs.KindOf(err) != errs.Conflict || !errors.Is(err, store.ErrDuplicateKey) {
		t.Fatalf("duplicate insert: %v\nwant: %s", err, want)
	}
	if n := count(t, db, "users"); n != 1 {
		t.Errorf("count after refused insert = %d, want 1", n)
	}
	// An update that keeps its own key, and one that moves to a free key,
	// are fine; one that takes another document's key is refused.
	storetest.Insert(t, db, "users", `{"_id":3,"email":"b@x"}`)
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		if err := c.Replace(value.LongValue(1), value.MustParse(`{"email":"a@x","n":1}`)); err != nil {
			return err
		}
		if err := c.Replace(value.LongValue(1), value.MustParse(`{"email":"c@x"}`)); err != nil {
			return err
		}
		return c.Replace(value.LongValue(3), value.MustParse(`{"email":"c@x"}`))
	})
	if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "used by _id 1 (writing _id 3)") {
		t.Fatalf("update onto a taken key: %v", err)
	}
}

func TestBTree_UniqueMissingFields(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`)
	// Not sparse: a missing field is null, and only one document may lack it.
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}, Unique: true}); err != nil {
		t.Fatal(err)
	}
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Insert(value.MustParse(`{"_id":2}`))
		return err
	})
	if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), `{"k":null}`) {
		t.Fatalf("second missing key in a unique index: %v", err)
	}
	// Sparse: documents without the field are not indexed.
	if err := createIndex(t, db, "d", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}, Unique: true, Sparse: true}); err != nil {
		t.Fatal(err)
	}
	storetest.Insert(t, db, "d", `{"_id":1}`, `{"_id":2}`, `{"_id":3,"k":1}`)
}

func TestBTree_UniqueBuildRefusesDuplicates(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":"a","tags":["x","y"]}`, `{"_id":"b","tags":["z"]}`, `{"_id":"c","tags":["y"]}`)
	err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "tags"}}, Unique: true})
	want := "duplicate key in unique index `tags_1` of collection `c`: {\"tags\":\"y\"} is already used by _id \"a\" (writing _id \"c\")"
	if err == nil || err.Error() != want {
		t.Fatalf("build over duplicates: %v\nwant: %s", err, want)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if len(c.Indexes()) != 0 {
			t.Error("refused index was created")
		}
		return nil
	})
	// The same values within one document are not duplicates.
	storetest.Insert(t, db, "d", `{"_id":1,"tags":["x","x"]}`)
	if err := createIndex(t, db, "d", store.BTreeSpec{Fields: []store.IndexField{{Path: "tags"}}, Unique: true}); err != nil {
		t.Fatal(err)
	}
}

func TestBTree_ImportSkipsRefusedLines(t *testing.T) {
	db := storetest.MustOpen(t)
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}, Unique: true}); err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader("{\"_id\":1,\"k\":1}\n{\"_id\":2,\"k\":1}\n{\"_id\":3,\"k\":2}\n")
	sum, err := db.Import(context.Background(), "c", in, &store.ImportOptions{Skip: true})
	if err != nil || sum.Inserted != 2 || sum.Skipped != 1 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0].Error, "duplicate key") {
		t.Fatalf("import: %+v, %v", sum, err)
	}
	if n := count(t, db, "c"); n != 2 {
		t.Errorf("count = %d, want 2", n)
	}
	// Atomic: nothing is written.
	in = strings.NewReader("{\"_id\":4,\"k\":4}\n{\"_id\":5,\"k\":1}\n")
	_, err = db.Import(context.Background(), "c", in, &store.ImportOptions{Atomic: true})
	if errs.KindOf(err) != errs.Conflict || count(t, db, "c") != 2 {
		t.Fatalf("atomic import with a duplicate: %v, count %d", err, count(t, db, "c"))
	}
}

// A refusing index must not leave the indexes before it changed.
func TestBTree_RefusalUndoesOtherIndexes(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}}})
	createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "b"}}, Unique: true})
	storetest.Insert(t, db, "c", `{"_id":1,"a":1,"b":1}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if _, err := c.Insert(value.MustParse(`{"_id":2,"a":2,"b":1}`)); err == nil {
			t.Error("duplicate accepted")
		}
		if err := c.Replace(value.LongValue(1), value.MustParse(`{"a":3,"b":[1,1]}`)); err != nil {
			return err
		}
		_, err := c.Insert(value.MustParse(`{"_id":3,"a":[5,6],"b":[7,1]}`))
		if err == nil {
			t.Error("duplicate in an array accepted")
		}
		return nil // commit what succeeded; verify checks every index
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBTree_ParallelArraysRefused(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "a"}, {Path: "b"}}})
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Insert(value.MustParse(`{"_id":1,"a":[1],"b":[2]}`))
		return err
	})
	want := "index `a_1_b_1` of collection `c` cannot hold document _id 1: cannot index parallel arrays [a] [b]"
	if err == nil || err.Error() != want || errs.KindOf(err) != errs.Invalid {
		t.Fatalf("parallel arrays: %v", err)
	}
}

func TestBTree_KeyTooLarge(t *testing.T) {
	db := storetest.MustOpen(t)
	createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "s"}}})
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.Insert(value.ObjectValue([]value.Field{{Key: "_id", Value: value.LongValue(1)}, {Key: "s", Value: value.StringValue(strings.Repeat("x", 20000))}}))
		return err
	})
	if errs.KindOf(err) != errs.Limit || !strings.Contains(err.Error(), "over the 16384-byte index key limit") {
		t.Fatalf("huge key: %v", err)
	}
}

func TestBTree_PrepareErrors(t *testing.T) {
	db := storetest.MustOpen(t)
	for spec, want := range map[string]store.BTreeSpec{
		"at least one field":     {},
		"appears twice":          {Fields: []store.IndexField{{Path: "a"}, {Path: "a"}}},
		"has an empty component": {Fields: []store.IndexField{{Path: "a..b"}}},
		"may not start with '$'": {Fields: []store.IndexField{{Path: "$a"}}},
	} {
		if err := createIndex(t, db, "c", want); err == nil || !strings.Contains(err.Error(), spec) {
			t.Errorf("spec %+v: %v, want %q", want, err, spec)
		}
	}
	if _, err := store.ParseKeyPattern("age:2"); err == nil || !strings.Contains(err.Error(), "direction must be 1 or -1") {
		t.Errorf("bad direction: %v", err)
	}
	fields, err := store.ParseKeyPattern("address.city,age:-1")
	if err != nil || len(fields) != 2 || !fields[1].Desc || fields[0].Path != "address.city" {
		t.Errorf("ParseKeyPattern = %+v, %v", fields, err)
	}
}

// TestBTree_BuildManyDocuments builds indexes over more documents than one
// batch of the build's workers: the entries come out in key order (Verify
// checks every one), uniqueness is checked across the workers' runs, and
// a build that fails names the first document, in _id order, that fails.
func TestBTree_BuildManyDocuments(t *testing.T) {
	const n = 5000
	db := storetest.MustOpen(t)
	var docs []string
	for i := range n {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"k":%d,"u":"u%05d","tags":["t%d","t%d"]}`, i, i%37, i, i%5, i%11))
	}
	storetest.Insert(t, db, "c", docs...)
	for _, spec := range []store.BTreeSpec{
		{Fields: []store.IndexField{{Path: "k"}}},
		{Fields: []store.IndexField{{Path: "u"}}, Unique: true},
		{Fields: []store.IndexField{{Path: "tags"}, {Path: "k", Desc: true}}},
	} {
		if err := createIndex(t, db, "c", spec); err != nil {
			t.Fatalf("%v: %v", spec.Fields, err)
		}
	}
	storetest.MustVerify(t, db) // every entry, and their count
	// Two pairs of duplicates, far apart: the pair with the smaller keys is
	// reported (its documents are the first and the last).
	storetest.Insert(t, db, "d", docs...)
	storetest.Insert(t, db, "d", `{"_id":5001,"u":"u04000"}`, `{"_id":5002,"u":"u00010"}`)
	err := createIndex(t, db, "d", store.BTreeSpec{Fields: []store.IndexField{{Path: "u"}}, Unique: true})
	want := "duplicate key in unique index `u_1` of collection `d`: {\"u\":\"u00010\"} is already used by _id 10 (writing _id 5002)"
	if err == nil || err.Error() != want {
		t.Fatalf("unique build: %v\nwant: %s", err, want)
	}
	// Keys too large in two documents: the first one, in _id order, is named.
	big := strings.Repeat("x", 20000)
	storetest.Insert(t, db, "e", docs...)
	storetest.Insert(t, db, "e", fmt.Sprintf(`{"_id":5500,"k":%q}`, big), fmt.Sprintf(`{"_id":600.5,"k":%q}`, big))
	err = createIndex(t, db, "e", store.BTreeSpec{Fields: []store.IndexField{{Path: "k"}}})
	if errs.KindOf(err) != errs.Limit || !strings.Contains(err.Error(), "document _id 600.5:") {
		t.Fatalf("huge keys: %v", err)
	}
}

// TestBTree_CreateIndexesOneScan: several indexes built together hold
// the same entries as built one by one, and a failed build leaves none.
func TestBTree_CreateIndexesOneScan(t *testing.T) {
	const n = 5000
	db := storetest.MustOpen(t)
	var docs []string
	for i := range n {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"k":%d,"u":"u%05d","tags":["t%d","t%d"],"a":{"b":%d}}`, i, i%37, i, i%5, i%11, i%3))
	}
	specs := []store.BTreeSpec{
		{Fields: []store.IndexField{{Path: "k"}}},
		{Fields: []store.IndexField{{Path: "u"}}, Unique: true},
		{Fields: []store.IndexField{{Path: "tags"}, {Path: "k", Desc: true}}},
		{Fields: []store.IndexField{{Path: "a.b"}, {Path: "a"}}, Sparse: true},
	}
	defs := func(specs ...store.BTreeSpec) []store.IndexDef {
		var out []store.IndexDef
		for _, s := range specs {
			out = append(out, store.BTreeIndex("", s))
		}
		return out
	}
	create := func(coll string, defs []store.IndexDef) error {
		return db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
			c, err := tx.CreateCollection(coll)
			if err != nil {
				return err
			}
			_, err = c.CreateBTreeIndexes(defs...)
			return err
		})
	}
	infos := func(coll string) string {
		var out []string
		db.View(func(tx *store.Tx) error {
			c, _ := tx.Collection(coll)
			ixs, err := c.IndexInfos()
			if err != nil {
				t.Fatal(err)
			}
			for _, ix := range ixs {
				out = append(out, fmt.Sprintf("%s %s %v %d %d", ix.Name, ix.Key, ix.Multikey, ix.Entries, ix.SizeBytes))
			}
			return nil
		})
		return strings.Join(out, "\n")
	}
	storetest.Insert(t, db, "one", docs...)
	storetest.Insert(t, db, "all", docs...)
	for _, s := range specs {
		if err := createIndex(t, db, "one", s); err != nil {
			t.Fatal(err)
		}
	}
	if err := create("all", defs(specs...)); err != nil {
		t.Fatal(err)
	}
	if got, want := infos("all"), infos("one"); got != want || got == "" {
		t.Fatalf("built together:\n%s\nbuilt one by one:\n%s", got, want)
	}
	storetest.MustVerify(t, db) // every entry of every index, and their count

	// A document one index cannot hold fails the whole call; of two such
	// documents in different indexes, the first in _id order is named.
	storetest.Insert(t, db, "bad", docs...)
	storetest.Insert(t, db, "bad",
		`{"_id":6000,"p":[1,2],"q":[3,4]}`,
		`{"_id":700.5,"x":[1],"y":[2]}`)
	err := create("bad", defs(append(specs,
		store.BTreeSpec{Fields: []store.IndexField{{Path: "p"}, {Path: "q"}}},
		store.BTreeSpec{Fields: []store.IndexField{{Path: "x"}, {Path: "y"}}})...))
	if err == nil || !strings.Contains(err.Error(), "index `x_1_y_1` of collection `bad` cannot hold document _id 700.5: cannot index parallel arrays") {
		t.Fatalf("parallel arrays: %v", err)
	}
	// A duplicate in the unique index: nothing is created.
	storetest.Insert(t, db, "dup", docs...)
	storetest.Insert(t, db, "dup", `{"_id":5001,"u":"u04000"}`)
	err = create("dup", defs(specs...))
	want := "duplicate key in unique index `u_1` of collection `dup`: {\"u\":\"u04000\"} is already used by _id 4000 (writing _id 5001)"
	if err == nil || err.Error() != want {
		t.Fatalf("unique build: %v\nwant: %s", err, want)
	}
	// A caller that goes on after the refusal, in the same transaction,
	// commits no index either.
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("dup")
		if _, err := c.CreateBTreeIndexes(defs(specs...)...); err == nil {
			t.Error("the duplicate is not refused")
		}
		_, err := c.Insert(value.MustParse(`{"_id":5002}`))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"bad", "dup"} {
		if got := infos(coll); got != "" {
			t.Errorf("%s: a failed build left indexes:\n%s", coll, got)
		}
	}
	// Refused before any work: a repeated key pattern, an existing one.
	if err := create("all", defs(specs[0])); errs.KindOf(err) != errs.Conflict {
		t.Errorf("existing key pattern: %v", err)
	}
	s := store.BTreeSpec{Fields: []store.IndexField{{Path: "z"}}}
	if err := create("all", defs(s, s)); errs.KindOf(err) != errs.Usage {
		t.Errorf("key pattern twice: %v", err)
	}
	storetest.MustVerify(t, db)
}

// TestCollection_ReplaceJSON: a replacement given as canonical JSON keeps
// the indexes (parsed only along their paths) and the journal (Verify,
// on cleanup, checks both), and refuses another _id or a taken unique key.
func TestCollection_ReplaceJSON(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"email":"a@x","age":30,"tags":["p","q"]}`, `{"_id":2,"email":"b@x","age":40}`)
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "email"}}, Unique: true}); err != nil {
		t.Fatal(err)
	}
	if err := createIndex(t, db, "c", store.BTreeSpec{Fields: []store.IndexField{{Path: "tags"}, {Path: "age"}}}); err != nil {
		t.Fatal(err)
	}
	replace := func(id int64, js string) error {
		return db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			return c.ReplaceJSON(value.LongValue(id), []byte(js))
		})
	}
	want := `{"_id":1,"email":"c@x","age":31,"tags":["q","r"],"more":{"x":1.5}}`
	if err := replace(1, want); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if js, err := c.GetJSON(value.LongValue(1)); err != nil || string(js) != want {
			t.Errorf("stored %s, %v; want %s", js, err, want)
		}
		return nil
	})
	if err := replace(2, `{"_id":3,"email":"d@x"}`); errs.KindOf(err) != errs.Invalid {
		t.Errorf("another _id: %v", err)
	}
	if err := replace(2, `{"_id":2,"email":"c@x"}`); !errors.Is(err, store.ErrDuplicateKey) {
		t.Errorf("taken unique key: %v", err)
	}
	if err := replace(3, `{"_id":3}`); errs.KindOf(err) != errs.NotFound {
		t.Errorf("missing document: %v", err)
	}
	storetest.MustVerify(t, db)
}
