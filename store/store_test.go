package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func TestOpen_MissingStoreIsNotFound(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "app.omgdb"), nil, 0o644)
	path := filepath.Join(dir, "ap.omgdb")
	_, err := store.Open(path, &store.Options{ReadOnly: true})
	if !errors.Is(err, store.ErrNotFound) || errs.KindOf(err) != errs.NotFound {
		t.Fatalf("open missing = %v, want not found", err)
	}
	if h := errs.HintOf(err); !strings.Contains(h, "app.omgdb") {
		t.Errorf("hint %q should suggest app.omgdb", h)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("a read-only open created the file")
	}
	// Without Create a writer does not create it either.
	if _, err := store.Open(path, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("open missing without Create = %v", err)
	}
}

func TestOpen_ForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte(strings.Repeat("hello world\n", 1000)), 0o644)
	_, err := store.Open(path, &store.Options{ReadOnly: true})
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "not a valid omgdb store") {
		t.Fatalf("open text file = %v", err)
	}
}

func TestCollection_CRUD(t *testing.T) {
	db := storetest.MustOpen(t)
	ids := storetest.Insert(t, db, "users",
		`{"name":"ada","big":9007199254740993}`,
		`{"_id":7,"name":"bob"}`,
		`{"name":"cy","_id":"c"}`)
	if ids[1].Long() != 7 || ids[2].Str() != "c" || ids[0].Kind() != value.ObjectID {
		t.Fatalf("ids = %v", ids)
	}
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("users")
		if err != nil {
			return err
		}
		if c.Count() != 3 {
			t.Errorf("count = %d", c.Count())
		}
		doc, err := c.Get(ids[0])
		if err != nil {
			return err
		}
		want := `{"_id":` + ids[0].String() + `,"name":"ada","big":9007199254740993}`
		if got := doc.String(); got != want {
			t.Errorf("get = %s, want %s", got, want)
		}
		if doc, _ := c.Get(value.StringValue("c")); doc.String() != `{"_id":"c","name":"cy"}` {
			t.Errorf("_id must come first: %s", doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		if err := c.Replace(value.LongValue(7), value.MustParse(`{"name":"bobby"}`)); err != nil {
			return err
		}
		// 7.0 names the same document as 7.
		return c.Delete(value.DoubleValue(7))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		if _, err := c.Get(value.LongValue(7)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get deleted = %v", err)
		}
		if c.Count() != 2 {
			t.Errorf("count after delete = %d", c.Count())
		}
		return nil
	})
}

func TestCollection_InsertDuplicateIsConflictAndWritesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if _, err := c.Insert(value.MustParse(`{"_id":2}`)); err != nil {
			return err
		}
		_, err := c.Insert(value.MustParse(`{"_id":1.0}`))
		return err
	})
	if !errors.Is(err, store.ErrDuplicateID) || errs.KindOf(err) != errs.Conflict {
		t.Fatalf("duplicate insert = %v", err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if c.Count() != 1 {
			t.Errorf("a failed transaction left %d documents", c.Count())
		}
		return nil
	})
}

func TestCollection_BadDocuments(t *testing.T) {
	db := storetest.MustOpen(t)
	for _, doc := range []string{`[1]`, `{"$set":1}`, `{"a.b":1}`, `{"_id":[1]}`, `{"a":{"$x":1}}`} {
		err := db.Update(store.Change{}, func(tx *store.Tx) error {
			c, err := tx.CreateCollection("c")
			if err != nil {
				return err
			}
			_, err = c.Insert(value.MustParse(doc))
			return err
		})
		if errs.KindOf(err) != errs.Invalid {
			t.Errorf("insert %s = %v, want invalid", doc, err)
		}
	}
}

func TestTx_MissingCollectionDidYouMean(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{}`)
	err := db.View(func(tx *store.Tx) error { _, err := tx.Collection("user"); return err })
	if errs.KindOf(err) != errs.NotFound || !strings.Contains(err.Error(), "did you mean `users`?") {
		t.Errorf("missing collection = %v", err)
	}
}

func TestDB_ReadOnlyCannotWrite(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{}`)
	path := db.Path()
	db.Close()
	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = ro.Update(store.Change{}, func(tx *store.Tx) error { return nil })
	if !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("update on read-only = %v", err)
	}
}

func TestDB_WriterWaitsThenIsBusy(t *testing.T) {
	db := storetest.MustOpen(t)
	start := time.Now()
	_, err := store.Open(db.Path(), &store.Options{Timeout: 200 * time.Millisecond})
	if !errors.Is(err, store.ErrBusy) || errs.KindOf(err) != errs.Busy {
		t.Fatalf("second writer = %v, want busy", err)
	}
	if !strings.Contains(err.Error(), db.Path()) {
		t.Errorf("busy error %q must name the store", err)
	}
	if waited := time.Since(start); waited < 150*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", waited)
	}
}

func TestJournal_RecordsEveryWrite(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"v":"a"}`, `{"_id":2}`)
	db.Update(store.Change{Kind: "edit", Actor: "test"}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		c.Replace(value.LongValue(1), value.MustParse(`{"v":"b"}`))
		return c.Delete(value.LongValue(2))
	})
	var got []string
	db.View(func(tx *store.Tx) error {
		return tx.Journal(0, func(r *store.Record) (bool, error) {
			v := r.Value().Without("ts").Without("change")
			got = append(got, v.String())
			return true, nil
		})
	})
	want := []string{
		`{"lsn":1,"kind":"insert","actor":"library","ops":[{"op":"create_collection","coll":"c"},{"op":"insert","coll":"c","id":1},{"op":"insert","coll":"c","id":2}]}`,
		`{"lsn":2,"kind":"edit","actor":"test","ops":[{"op":"update","coll":"c","id":1,"before":{"_id":1,"v":"a"}},{"op":"delete","coll":"c","id":2,"before":{"_id":2}}]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("journal:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCollection_LargeDocumentsAreCompressed(t *testing.T) {
	db := storetest.MustOpen(t)
	big := `{"_id":1,"text":"` + strings.Repeat("omgdb ", 5000) + `"}`
	storetest.Insert(t, db, "c", big)
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		js, err := c.GetJSON(value.LongValue(1))
		if err != nil || string(js) != big {
			t.Errorf("large document did not round-trip: %v", err)
		}
		return nil
	})
}

func TestDropCollection(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "a", `{"_id":1}`)
	storetest.Insert(t, db, "b", `{"_id":1}`)
	if err := db.Update(store.Change{}, func(tx *store.Tx) error { return tx.DropCollection("a") }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		if got := strings.Join(tx.Collections(), ","); got != "b" {
			t.Errorf("collections after drop = %s", got)
		}
		return nil
	})
}
