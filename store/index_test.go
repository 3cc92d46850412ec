package store_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// tallyKind is a test index kind: it counts documents per value of one
// top-level field, and refuses the value "forbidden". It keeps its data as
// a small full-text index: per value (the hex of its key, as a term of the
// field), a posting per document and the count as document frequency.
type tallyKind struct{}

func (tallyKind) Prepare(def store.IndexDef) (store.IndexDef, error) {
	var spec struct{ Field string }
	if json.Unmarshal(def.Spec, &spec) != nil || spec.Field == "" {
		return def, errs.Errorf(errs.Invalid, "tally needs a field")
	}
	return def, nil
}

func (tallyKind) field(ix *store.Index) string {
	var spec struct{ Field string }
	json.Unmarshal(ix.Def.Spec, &spec)
	return spec.Field
}

func (k tallyKind) Update(ix *store.Index, before, after value.Value) error {
	f := k.field(ix)
	if !before.IsMissing() {
		if err := k.add(ix, f, before, -1); err != nil {
			return err
		}
	}
	if !after.IsMissing() {
		if after.Get(f).Str() == "forbidden" && ix.Def.Name != "a_first" {
			return errs.Errorf(errs.Conflict, "tally refuses %s", after.Get("_id"))
		}
		return k.add(ix, f, after, 1)
	}
	return nil
}

func (tallyKind) add(ix *store.Index, f string, doc value.Value, d int64) error {
	term := hex.EncodeToString(value.AppendKey(nil, doc.Get(f)))
	dk := value.AppendKey(nil, doc.Get("_id"))
	if d > 0 {
		ix.Text().PutPosting(f, term, dk, 1, nil)
	} else {
		ix.Text().DeletePosting(f, term, dk)
	}
	return ix.Text().SetDocFreq(f, term, uint64(int64(ix.Text().DocFreq(f, term))+d))
}

// Check recounts from the documents.
func (k tallyKind) Check(ix *store.Index) []string {
	want := map[string]int64{}
	cur := ix.Collection().Scan()
	for cur.Next() {
		want[string(value.AppendKey(nil, cur.Doc().Get(k.field(ix))))]++
	}
	var problems []string
	f := k.field(ix)
	for terms := ix.Text().Terms(f, ""); terms.Next(); {
		term := string(terms.Key())
		b, _ := hex.DecodeString(term)
		key := string(b)
		if got := int64(ix.Text().DocFreq(f, term)); got != want[key] {
			problems = append(problems, fmt.Sprintf("key %x: tally %d, documents %d", key, got, want[key]))
		}
		delete(want, key)
	}
	for key := range want {
		problems = append(problems, fmt.Sprintf("key %x missing", key))
	}
	return problems
}

func init() { store.RegisterIndexKind("test-tally", tallyKind{}) }

func tally(t *testing.T, db *store.DB, v string) int64 {
	var n int64
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ix, err := c.Index("by_color")
		if err != nil {
			t.Fatal(err)
		}
		n = int64(ix.Text().DocFreq("color", hex.EncodeToString(value.AppendKey(nil, value.StringValue(v)))))
		return nil
	})
	return n
}

func TestIndex_MaintainedOnEveryWrite(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"color":"red"}`, `{"_id":2,"color":"blue"}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		_, err := c.CreateIndex(store.IndexDef{Name: "by_color", Kind: "test-tally", Spec: json.RawMessage(`{"field":"color"}`)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if tally(t, db, "red") != 1 {
		t.Fatal("index build missed existing documents")
	}
	storetest.Insert(t, db, "c", `{"_id":3,"color":"red"}`)
	db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		c.Replace(value.LongValue(2), value.MustParse(`{"color":"red"}`))
		return c.Delete(value.LongValue(1))
	})
	if got := tally(t, db, "red"); got != 2 {
		t.Errorf("red tally = %d, want 2", got)
	}
	if got := tally(t, db, "blue"); got != 0 {
		t.Errorf("blue tally = %d, want 0", got)
	}
	// An index refusing a write aborts the whole transaction.
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		c.Insert(value.MustParse(`{"_id":4,"color":"red"}`))
		_, err := c.Insert(value.MustParse(`{"_id":5,"color":"forbidden"}`))
		return err
	})
	if errs.KindOf(err) != errs.Conflict || tally(t, db, "red") != 2 {
		t.Errorf("refused write: err %v, red tally %d", err, tally(t, db, "red"))
	}
	// The definition is journaled and listed.
	var ops []string
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if defs := c.Indexes(); len(defs) != 1 || defs[0].Kind != "test-tally" {
			t.Errorf("indexes = %+v", defs)
		}
		return tx.Journal(0, func(r *store.Record) (bool, error) {
			for _, op := range r.Ops {
				ops = append(ops, op.Op)
			}
			return true, nil
		})
	})
	if !strings.Contains(strings.Join(ops, ","), "create_index") {
		t.Errorf("journal ops %v lack create_index", ops)
	}
}

func TestIndex_DropAndErrors(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"color":"red"}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		def := store.IndexDef{Name: "by_color", Kind: "test-tally", Spec: json.RawMessage(`{"field":"color"}`)}
		if _, err := c.CreateIndex(def); err != nil {
			return err
		}
		if _, err := c.CreateIndex(def); errs.KindOf(err) != errs.Conflict {
			t.Errorf("duplicate index name = %v", err)
		}
		if _, err := c.CreateIndex(store.IndexDef{Name: "x", Kind: "nope"}); err == nil {
			t.Error("unknown kind accepted")
		}
		if _, err := c.Index("by_colour"); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "did you mean `by_color`") {
			t.Errorf("missing index = %v", err)
		}
		return c.DropIndex("by_color")
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		if len(c.Indexes()) != 0 {
			t.Error("index still listed after drop")
		}
		return nil
	})
	storetest.Insert(t, db, "c", `{"_id":2,"color":"forbidden"}`) // no index: accepted
}

func TestVerify_ChecksIndexes(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"color":"red"}`)
	db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		ix, err := c.CreateIndex(store.IndexDef{Name: "by_color", Kind: "test-tally", Spec: json.RawMessage(`{"field":"color"}`)})
		if err != nil {
			return err
		}
		// Damage the index behind the engine's back.
		return ix.Text().SetDocFreq("color", hex.EncodeToString(value.AppendKey(nil, value.StringValue("red"))), 7)
	})
	rep, err := db.Verify(context.Background())
	if err != nil || rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), "index by_color: key") {
		t.Fatalf("verify missed a damaged index: %v %+v", err, rep)
	}
	// Repair it so the cleanup check passes.
	db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		return c.DropIndex("by_color")
	})
}

// TestIndex_RefusedDocumentLeavesNothing: a document an index refuses is
// not written and leaves no entry in any index, so a transaction that
// goes on (an import skipping bad lines) stays consistent.
func TestIndex_RefusedDocumentLeavesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"color":"red"}`)
	err := db.Update(store.Change{}, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		for _, name := range []string{"a_first", "b_second"} {
			if _, err := c.CreateIndex(store.IndexDef{Name: name, Kind: "test-tally", Spec: json.RawMessage(`{"field":"color"}`)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	in := "{\"_id\":2,\"color\":\"forbidden\"}\n{\"_id\":3,\"color\":\"red\"}\n"
	sum, err := db.Import(context.Background(), "c", strings.NewReader(in), &store.ImportOptions{Skip: true})
	if err != nil || sum.Inserted != 1 || sum.Skipped != 1 {
		t.Fatalf("import: %v %+v", err, sum)
	}
	// MustOpen's cleanup verifies both indexes against the documents.
}
