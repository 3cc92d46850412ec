package changes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// layout describes what dump does not show: each collection's index
// names and rules.
func layout(t *testing.T, db *store.DB) string {
	t.Helper()
	var b strings.Builder
	db.View(func(tx *store.Tx) error {
		for _, name := range tx.Collections() {
			c, _ := tx.Collection(name)
			b.WriteString(name + ":")
			for _, d := range c.Indexes() {
				b.WriteString(" " + d.Name)
			}
			if r := c.Rules(); r != nil {
				b.WriteString(" rules=" + r.Spec().String())
			}
			b.WriteString("\n")
		}
		return nil
	})
	return b.String()
}

// seedCollections makes users (indexed, with rules) and teams.
func seedCollections(t *testing.T) *store.DB {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"email":"a","age":30}`, `{"_id":2,"email":"b","age":40}`)
	storetest.Insert(t, db, "teams", `{"_id":1,"email":"a"}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		if _, err := c.CreateBTreeIndex("", store.BTreeSpec{Fields: []store.IndexField{{Path: "email"}}, Unique: true}); err != nil {
			return err
		}
		_, err := c.Define(value.MustParse(`{"required":["email"]}`))
		return err
	})
	return db
}

func TestDropCollection_RollbackBringsDocumentsIndexesAndRules(t *testing.T) {
	db := seedCollections(t)
	before, shape := dump(t, db), layout(t, db)
	if !strings.Contains(shape, "users: email_1 rules=") {
		t.Fatalf("seed layout = %q", shape)
	}
	res, err := changes.DropCollection(ctx, db, "users", nil)
	if err != nil || res.Documents != 2 || res.Indexes != 1 || res.ChangeID == "" {
		t.Fatalf("drop = %+v, %v", res, err)
	}
	if strings.Contains(layout(t, db), "users") {
		t.Fatal("users survived the drop")
	}
	oneChange(t, db, res.ChangeID, changes.KindDrop, before)
	if got := layout(t, db); got != shape {
		t.Fatalf("after rollback the layout is\n%s\nwant\n%s", got, shape)
	}
	if _, err := changes.DropCollection(ctx, db, "user", nil); !errors.Is(err, store.ErrNotFound) ||
		!strings.Contains(err.Error(), "did you mean `users`") {
		t.Errorf("drop of a missing collection = %v", err)
	}
}

func TestRenameCollection_MovesEverythingAndRollsBack(t *testing.T) {
	db := seedCollections(t)
	before, shape := dump(t, db), layout(t, db)
	res, err := changes.RenameCollection(ctx, db, "users", "people", nil)
	if err != nil || res.Documents != 2 || res.Indexes != 1 || res.RenamedTo != "people" || res.DroppedTarget != nil {
		t.Fatalf("rename = %+v, %v", res, err)
	}
	if got := layout(t, db); !strings.Contains(got, "people: email_1 rules=") || strings.Contains(got, "users") {
		t.Fatalf("after rename:\n%s", got)
	}
	if got := dump(t, db); got != strings.ReplaceAll(before, `"users"`, `"people"`) && !strings.Contains(got, `{"_id":2,"email":"b","age":40}`) {
		t.Fatalf("after rename the documents are\n%s", got)
	}
	// The unique index moved with the documents: it still refuses a duplicate.
	_, err = changes.Update(ctx, db, "people", value.MustParse(`{"_id":2}`), value.MustParse(`{"$set":{"email":"a"}}`), nil)
	if errs.KindOf(err) != errs.Conflict {
		t.Fatalf("duplicate key in the renamed collection: %v", err)
	}
	oneChange(t, db, res.ChangeID, changes.KindRename, before)
	if got := layout(t, db); got != shape {
		t.Fatalf("after rollback the layout is\n%s\nwant\n%s", got, shape)
	}
	storetest.MustVerify(t, db)
}

func TestRenameCollection_DropTarget(t *testing.T) {
	db := seedCollections(t)
	before, shape := dump(t, db), layout(t, db)
	_, err := changes.RenameCollection(ctx, db, "users", "teams", nil)
	if errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "already exists") || !strings.Contains(errs.HintOf(err), "--drop-target") {
		t.Fatalf("rename onto an existing collection = %v", err)
	}
	res, err := changes.RenameCollection(ctx, db, "users", "teams", &changes.CollectionOptions{DropTarget: true})
	if err != nil || res.DroppedTarget == nil || *res.DroppedTarget != 1 || res.Documents != 2 {
		t.Fatalf("rename with drop target = %+v, %v", res, err)
	}
	if got := layout(t, db); got != "teams: email_1 rules={\"required\":[\"email\"]}\n" {
		t.Fatalf("after rename with drop target:\n%s", got)
	}
	oneChange(t, db, res.ChangeID, changes.KindRename, before)
	if got := layout(t, db); got != shape {
		t.Fatalf("after rollback the layout is\n%s\nwant\n%s", got, shape)
	}
}

func TestRenameCollection_Refusals(t *testing.T) {
	db := seedCollections(t)
	before, lsn := dump(t, db), lastLSN(t, db)
	cases := []struct {
		from, to string
		kind     errs.Kind
		msg      string
	}{
		{"user", "x", errs.NotFound, "did you mean `users`"},
		{"users", "users", errs.Invalid, "to itself"},
		{"users", "$bad", errs.Invalid, "invalid collection name"},
		{"users", "", errs.Invalid, "invalid collection name"},
	}
	for _, c := range cases {
		_, err := changes.RenameCollection(ctx, db, c.from, c.to, &changes.CollectionOptions{DropTarget: true})
		if errs.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("rename %q to %q = %v, want kind %v containing %q", c.from, c.to, err, c.kind, c.msg)
		}
	}
	if dump(t, db) != before || lastLSN(t, db) != lsn {
		t.Fatal("a refused rename changed the store")
	}
}
