package changes_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func resolve(t *testing.T, db *store.DB, spec string) (changes.Revision, error) {
	var rev changes.Revision
	err := db.View(func(tx *store.Tx) error {
		var err error
		rev, err = changes.ResolveRevision(tx, spec)
		return err
	})
	return rev, err
}

func TestResolveRevision_EveryForm(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`) // lsn 1
	id := replace(t, db, "c", "1", `{"v":1}`) // lsn 2
	time.Sleep(20 * time.Millisecond)
	mid := time.Now().UTC()
	time.Sleep(20 * time.Millisecond)
	replace(t, db, "c", "1", `{"v":2}`) // lsn 3
	if _, err := changes.CreateSnapshot(ctx, db, "before-v2", &changes.SnapshotOptions{At: "2"}); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]uint64{
		"now": 3, "": 3, "0": 0, "2": 2, id: 2, "before-v2": 2,
		mid.Format(time.RFC3339Nano): 2, "2000-01-01": 0, "2999-01-01T00:00:00Z": 3,
	} {
		rev, err := resolve(t, db, spec)
		if err != nil || rev.LSN != want {
			t.Errorf("revision %q = %+v, %v; want lsn %d", spec, rev, err, want)
		}
	}
	for spec, msg := range map[string]string{
		"4":                        "past the end of the journal (last lsn 3)",
		"665f1c2e9b1d4a0c8e7f6a5b": "no change 665f1c2e9b1d4a0c8e7f6a5b",
		"before-v3":                "unknown revision \"before-v3\" (did you mean `before-v2`?)",
	} {
		_, err := resolve(t, db, spec)
		if !errors.Is(err, changes.ErrNotFound) || !strings.Contains(err.Error(), msg) {
			t.Errorf("revision %q: error %v, want %q", spec, err, msg)
		}
	}
}

func TestSnapshots_CreateListDelete(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1}`)
	lsn := lastLSN(t, db)
	s, err := changes.CreateSnapshot(ctx, db, "", nil)
	if err != nil || s.Name != "snap-1" || s.LSN != 1 {
		t.Fatalf("auto snapshot = %+v, %v", s, err)
	}
	if again, err := changes.CreateSnapshot(ctx, db, "", nil); err != nil || again.Name != "snap-1" {
		t.Errorf("auto snapshot again = %+v, %v", again, err)
	}
	if _, err := changes.CreateSnapshot(ctx, db, "v1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := changes.CreateSnapshot(ctx, db, "v1", nil); errs.KindOf(err) != errs.Conflict {
		t.Errorf("duplicate name = %v", err)
	}
	for _, bad := range []string{"1abc", "a b", "deadbeefdeadbeefdeadbeef", "now", ""} {
		if err := changes.ValidateSnapshotName(bad); err == nil {
			t.Errorf("name %q was accepted", bad)
		}
	}
	list, _ := changes.Snapshots(ctx, db)
	if len(list) != 2 || list[0].Name != "snap-1" || list[1].Name != "v1" {
		t.Errorf("list = %+v", list)
	}
	if _, err := changes.DeleteSnapshot(ctx, db, "v2"); !errors.Is(err, changes.ErrNotFound) || !strings.Contains(err.Error(), "did you mean `v1`") {
		t.Errorf("delete unknown = %v", err)
	}
	if _, err := changes.DeleteSnapshot(ctx, db, "v1"); err != nil {
		t.Fatal(err)
	}
	if lastLSN(t, db) != lsn {
		t.Error("snapshots wrote to the journal")
	}
}

func TestHistory_ListsChangesNewestFirst(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"k":"x"}`, `{"_id":2,"k":"x"}`)
	storetest.Insert(t, db, "other", `{"_id":1}`)
	plan := mustDelete(t, db, "users", `{"k":"x"}`)
	mustApply(t, db, plan.Token)
	rb := mustRollback(t, db, plan.Token, false)
	hist, err := changes.History(ctx, db, nil)
	if err != nil || len(hist) != 4 {
		t.Fatalf("history = %+v, %v", hist, err)
	}
	if h := hist[0]; h.ID != rb.ChangeID || h.Kind != "rollback" || h.RollbackOf != plan.Token || h.Inserted != 2 || h.Status != "applied" {
		t.Errorf("newest = %+v", h)
	}
	if h := hist[1]; h.ID != plan.Token || h.Kind != "apply" || h.Deleted != 2 || h.RolledBackBy != rb.ChangeID ||
		!strings.HasPrefix(h.Note, `plan-delete users {"k":"x"}`) || strings.Join(h.Collections, ",") != "users" {
		t.Errorf("apply = %+v", h)
	}
	only, _ := changes.History(ctx, db, &changes.HistoryOptions{Coll: "other"})
	if len(only) != 1 || only[0].Inserted != 1 {
		t.Errorf("--coll other = %+v", only)
	}
	two, _ := changes.History(ctx, db, &changes.HistoryOptions{Limit: 2})
	if len(two) != 2 || two[1].ID != plan.Token {
		t.Errorf("--limit 2 = %+v", two)
	}
}

func TestVersions_OneDocumentNewestFirst(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"v":0}`)
	replace(t, db, "c", "1", `{"v":1}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		return c.Delete(value.LongValue(1))
	})
	vs, err := changes.Versions(ctx, db, "c", value.LongValue(1), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Op+" "+v.Doc.String())
	}
	want := `delete <missing>|update {"_id":1,"v":1}|insert {"_id":1,"v":0}`
	if strings.Join(got, "|") != want {
		t.Errorf("versions = %q, want %q", strings.Join(got, "|"), want)
	}
	if js, _ := json.Marshal(vs[0]); !strings.Contains(string(js), `"doc":null`) {
		t.Errorf("a deleted version marshals as %s", js)
	}
	if _, err := changes.Versions(ctx, db, "", value.LongValue(2), 0); !errors.Is(err, changes.ErrNotFound) {
		t.Errorf("unknown id = %v", err)
	}
}

func TestDiff_FieldLevel(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"a":1,"o":{"x":1,"y":2},"arr":[1,2]}`, `{"_id":2}`)
	if _, err := changes.CreateSnapshot(ctx, db, "start", nil); err != nil {
		t.Fatal(err)
	}
	replace(t, db, "c", "1", `{"a":1.0,"o":{"x":1,"z":3},"arr":[1,2,3],"new":true}`)
	storetest.Insert(t, db, "c", `{"_id":3}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		return c.Delete(value.LongValue(2))
	})
	res, err := changes.Diff(ctx, db, "start", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 1 || res.Deleted != 1 || res.Updated != 1 || res.From.LSN != 1 || res.To.Kind != "now" {
		t.Fatalf("diff = %+v", res)
	}
	js, _ := json.Marshal(res.Documents[0].Fields)
	want := `[{"path":"a","op":"changed","before":1,"after":1.0},{"path":"o.y","op":"removed","before":2},` +
		`{"path":"o.z","op":"added","after":3},{"path":"arr","op":"changed","before":[1,2],"after":[1,2,3]},{"path":"new","op":"added","after":true}]`
	if string(js) != want {
		t.Errorf("fields =\n%s\nwant\n%s", js, want)
	}
	if _, err := changes.Diff(ctx, db, "3", "1", nil); errs.KindOf(err) != errs.Usage {
		t.Errorf("reversed revisions = %v", err)
	}
}
