package mongoengine

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// insertJournaled inserts docs into coll through omgdb (one change) and
// returns its id.
func insertJournaled(t *testing.T, d *DB, coll string, docs ...string) string {
	t.Helper()
	ctx := context.Background()
	in, err := d.NewInserter(coll, KindInsert, "test")
	if err != nil {
		t.Fatal(err)
	}
	var vs []value.Value
	for _, js := range docs {
		vs = append(vs, input(js))
	}
	if _, n, _, err := in.Insert(ctx, vs); err != nil || n != len(docs) {
		t.Fatalf("insert into %s: %d, %v", coll, n, err)
	}
	res, err := in.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res.ChangeID
}

// applyWrite plans an update (or, with update empty, a deletion) of the
// documents of coll that filter matches, applies it and returns its id.
func applyWrite(t *testing.T, d *DB, coll, filter, update string) string {
	t.Helper()
	ctx := context.Background()
	spec := &PlanSpec{Collection: coll, Filter: input(filter), Actor: "test"}
	var p *Plan
	var err error
	if update == "" {
		p, err = d.PlanDelete(ctx, spec)
	} else {
		spec.Update = input(update)
		if spec.Compiled, err = compileForTest(spec.Update); err == nil {
			p, err = d.PlanUpdate(ctx, spec)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Apply(ctx, p.Token, nil); err != nil {
		t.Fatal(err)
	}
	return p.Token
}

// dumpAt is coll at revision rev, one canonical JSON line per document.
func dumpAt(t *testing.T, d *DB, rev, coll string) string {
	t.Helper()
	r, _, err := d.At(context.Background(), rev)
	if err != nil {
		t.Fatalf("At(%s): %v", rev, err)
	}
	return dumpOf(t, r, coll)
}

// countAtErr is the error of a count of coll at rev.
func countAtErr(d *DB, rev, coll string) error {
	r, _, err := d.At(context.Background(), rev)
	if err == nil {
		_, err = r.Count(context.Background(), coll, value.MissingValue)
	}
	return err
}

func snapshot(t *testing.T, d *DB, name string) {
	t.Helper()
	if _, err := d.CreateSnapshot(context.Background(), name, "", "test"); err != nil {
		t.Fatal(err)
	}
}

// diffLines renders a diff as "coll id: before -> after" lines.
func diffLines(df *engine.Diff) string {
	var b strings.Builder
	js := func(v value.Value) string {
		if v.IsMissing() {
			return "-"
		}
		return string(value.AppendJSON(nil, v))
	}
	for _, dc := range df.Documents {
		b.WriteString(dc.Collection + " " + js(dc.ID) + ": " + js(dc.Before) + " -> " + js(dc.After) + "\n")
	}
	return b.String()
}

// TestAt_FollowsDrop: a collection with a history (typed documents, an
// update that sets an array with null and a long and unsets a double, a
// deletion) is dropped through omgdb, and a new collection of the same
// name is filled. Reads at revisions before the drop give exactly the
// documents of then (read from the collection kept aside), after the
// drop and before the new one the name did not exist; diff lists the
// dropped documents deleted; revert brings them back; log shows the
// drop; once the aside collection is gone, the read is refused.
func TestAt_FollowsDrop(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	insertJournaled(t, d, "fd", strings.Split(schemaDocs, "\n")...)
	applyWrite(t, d, "fd", `{"_id":1}`, `{"$set":{"z":[null,{"$numberLong":"4"}]},"$unset":{"d":""}}`)
	s1 := dumpOf(t, d, "fd")
	snapshot(t, d, "fd-s1")
	applyWrite(t, d, "fd", `{"_id":2}`, "")
	s2 := dumpOf(t, d, "fd")
	snapshot(t, d, "fd-s2")
	drop, err := d.Drop(ctx, "fd", "test")
	if err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{"fd-s1": s1, "2": s1, "fd-s2": s2, "3": s2} {
		if got := dumpAt(t, d, rev, "fd"); got != want {
			t.Errorf("at %s:\n%s want\n%s", rev, got, want)
		}
	}
	if !strings.Contains(s1, `"z":[null,4]`) || strings.Count(s2, "\n") != 2 {
		t.Fatalf("history not as planned:\n%s\n%s", s1, s2)
	}
	mustKind(t, countAtErr(d, "now", "fd"), errs.NotFound, "collection `fd` not found")
	mustKind(t, countAtErr(d, "2000-01-01", "fd"), errs.NotFound, "did not exist at revision")

	df, err := d.Diff(ctx, "fd-s2", "", "fd")
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, l := range strings.Split(strings.TrimSpace(s2), "\n") {
		want += "fd " + string(value.AppendJSON(nil, input(l).Get("_id"))) + ": " + l + " -> -\n"
	}
	if got := diffLines(df); got != want {
		t.Errorf("diff across the drop:\n%s want\n%s", got, want)
	}

	// A new collection under the name: a collection of its own.
	insertJournaled(t, d, "fd", `{"_id":1,"new":true}`, `{"_id":9,"v":1.5}`)
	newDocs := dumpOf(t, d, "fd")
	if got := dumpAt(t, d, "fd-s2", "fd"); got != s2 {
		t.Errorf("at fd-s2 with a new fd:\n%s want\n%s", got, s2)
	}
	mustKind(t, countAtErr(d, drop.ChangeID, "fd"), errs.NotFound, "did not exist at revision")
	if df, err = d.Diff(ctx, "fd-s2", "", ""); err != nil {
		t.Fatal(err)
	}
	if got, want := diffIDs(df), `{"$numberInt":"1"},{"$numberInt":"9"},"s"`; got != want || df.Documents[0].After.Get("new").Bool() != true || !df.Documents[2].After.IsMissing() {
		t.Errorf("diff with a new fd: %s, want %s\n%s", got, want, diffLines(df))
	}

	// log shows the drop.
	var logged []string
	if err := d.Log(ctx, 0, func(v value.Value) error {
		logged = append(logged, string(value.AppendJSON(nil, v)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	wantOp := `"note":"drop fd","ops":[{"op":"rename_collection","coll":"fd","to":"` + drop.Aside + `"}]}`
	if len(logged) != 5 || !strings.HasSuffix(logged[3], wantOp) || !strings.Contains(logged[3], `"kind":"drop"`) {
		t.Errorf("log: %d records, the drop's:\n%s\nwant it to end with %s", len(logged), logged[min(3, len(logged)-1)], wantOp)
	}

	// revert to before the drop: the documents of then, in place of the new ones.
	p, err := d.PlanRevert(ctx, "fd-s1", "fd", &PlanSpec{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Modified != 4 || p.Collection != "fd" { // update 1, insert 2 and "s", delete 9
		t.Errorf("revert plan: %d items to %s, want 4 to fd", p.Modified, p.Collection)
	}
	res, err := d.Apply(ctx, p.Token, nil)
	if err != nil || len(res.Conflicts) != 0 {
		t.Fatalf("apply the revert: %+v, %v", res, err)
	}
	if got := dumpOf(t, d, "fd"); got != s1 {
		t.Errorf("after the revert:\n%s want\n%s", got, s1)
	}
	if _, err := d.Rollback(ctx, p.Token, nil); err != nil {
		t.Fatal(err)
	}
	if got := dumpOf(t, d, "fd"); got != newDocs {
		t.Errorf("after the revert's rollback:\n%s want\n%s", got, newDocs)
	}

	// The aside collection dropped by hand: refused, never empty.
	if err := d.db.Collection(drop.Aside).Drop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"fd-s1", "fd-s2"} {
		mustKind(t, countAtErr(d, rev, "fd"), errs.Invalid, "was dropped by change "+drop.ChangeID+" after that revision, and the collection the drop kept aside (`"+drop.Aside+"`) is gone")
	}
	_, err = d.Diff(ctx, "fd-s1", "", "")
	mustKind(t, err, errs.Invalid, drop.Aside)
	_, err = d.PlanRevert(ctx, "fd-s1", "fd", &PlanSpec{})
	mustKind(t, err, errs.Invalid, drop.Aside)
}

// TestAt_FollowsRename: a collection renamed through omgdb is read at a
// revision before the rename under its old name, and its new name did
// not exist then; diff lists the old name's documents deleted and the
// new name's inserted; a revert must name one of the two; a rename
// with dropTarget puts the target aside, which is read at a revision
// before it, and its rollback brings both back.
func TestAt_FollowsRename(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	insertJournaled(t, d, "ra", strings.Split(schemaDocs, "\n")...)
	applyWrite(t, d, "ra", `{}`, `{"$inc":{"n":{"$numberLong":"1"}},"$set":{"m":null}}`)
	s1 := dumpOf(t, d, "ra")
	snapshot(t, d, "ra-s1")
	if _, err := d.Rename(ctx, "ra", "rb", false, "test"); err != nil {
		t.Fatal(err)
	}
	applyWrite(t, d, "rb", `{"_id":"s"}`, `{"$unset":{"m":""},"$push":{"arr":1.5}}`)
	s2 := dumpOf(t, d, "rb")
	snapshot(t, d, "ra-s2")
	if got := dumpAt(t, d, "ra-s1", "ra"); got != s1 {
		t.Errorf("ra at ra-s1:\n%s want\n%s", got, s1)
	}
	mustKind(t, countAtErr(d, "ra-s1", "rb"), errs.NotFound, "collection `rb` did not exist at revision ra-s1")
	mustKind(t, countAtErr(d, "ra-s2", "ra"), errs.NotFound, "collection `ra` not found")
	if got := dumpAt(t, d, "ra-s2", "rb"); got != s2 || !strings.Contains(s2, `"arr":[1.5]`) || !strings.Contains(s1, `"m":null`) {
		t.Errorf("rb at ra-s2:\n%s want\n%s", got, s2)
	}
	df, err := d.Diff(ctx, "ra-s1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, l := range strings.Split(strings.TrimSpace(s1), "\n") {
		want += "ra " + string(value.AppendJSON(nil, input(l).Get("_id"))) + ": " + l + " -> -\n"
	}
	for _, l := range strings.Split(strings.TrimSpace(s2), "\n") {
		want += "rb " + string(value.AppendJSON(nil, input(l).Get("_id"))) + ": - -> " + l + "\n"
	}
	if got := diffLines(df); got != want {
		t.Errorf("diff across the rename:\n%s want\n%s", got, want)
	}
	_, err = d.PlanRevert(ctx, "ra-s1", "", &PlanSpec{})
	mustKind(t, err, errs.Usage, "wrote 2 collections (ra, rb)")
	p, err := d.PlanRevert(ctx, "ra-s1", "rb", &PlanSpec{})
	if err != nil || p.Modified != 3 || p.Items[0].Op != OpDelete {
		t.Fatalf("revert of rb: %+v, %v", p, err)
	}

	// rename rc onto rb, dropping rb (put aside).
	insertJournaled(t, d, "rc", `{"_id":1,"c":[],"n":{"$numberLong":"2"}}`, `{"_id":2,"c":null}`)
	c0 := dumpOf(t, d, "rc")
	snapshot(t, d, "ra-s3")
	ren, err := d.Rename(ctx, "rc", "rb", true, "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ coll, want string }{{"rb", s2}, {"rc", c0}} {
		if got := dumpAt(t, d, "ra-s3", c.coll); got != c.want {
			t.Errorf("%s at ra-s3 after the rename with dropTarget:\n%s want\n%s", c.coll, got, c.want)
		}
	}
	if got := dumpAt(t, d, ren.ChangeID, "rb"); got != c0 {
		t.Errorf("rb right after the rename:\n%s want\n%s", got, c0)
	}
	rb, err := d.Rollback(ctx, ren.ChangeID, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"ra-s3", rb.ChangeID} {
		for _, c := range []struct{ coll, want string }{{"rb", s2}, {"rc", c0}} {
			if got := dumpAt(t, d, rev, c.coll); got != c.want {
				t.Errorf("%s at %s after the rollback:\n%s want\n%s", c.coll, rev, got, c.want)
			}
		}
	}
	if df, err = d.Diff(ctx, "ra-s3", "", ""); err != nil || len(df.Documents) != 0 {
		t.Errorf("diff from ra-s3 after the rollback: %s, %v", diffLines(df), err)
	}
	if got := dumpAt(t, d, "ra-s1", "ra"); got != s1 {
		t.Errorf("ra at ra-s1 at the end:\n%s want\n%s", got, s1)
	}
}

// TestAt_AcrossInterruptedApply interrupts applies of an update and of a
// deletion at their fourth document (written or not). While the lease
// runs, a read across the change is refused; once it expired, the
// revision before it reads exactly the documents of then (typed: int,
// long, double, arrays, null against missing), the change itself reads
// what it left, and diff lists exactly the documents it wrote. When the
// in-flight document was changed around omgdb since (neither image), the
// read is refused naming the change and the document; after a rollback
// of the change, every revision reads as it was.
func TestAt_AcrossInterruptedApply(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	cases := []struct {
		name             string
		del, inFlight    bool
		around, rollback bool
	}{
		{"at_update_written", false, true, false, true},
		{"at_update_not_written", false, false, false, false},
		{"at_delete_written", true, true, false, true},
		{"at_delete_not_written", true, false, false, false},
		{"at_update_changed_around", false, true, true, false},
		{"at_delete_changed_around", true, false, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			coll := tc.name
			seedRecover(t, d, coll)
			insertJournaled(t, d, coll, `{"_id":7,"arr":[null],"n":{"$numberLong":"-7"}}`)
			orig := dumpOf(t, d, coll)
			snapshot(t, d, coll)
			p := planRecover(t, d, coll, tc.del, 7)
			interruptApply(t, d, p, 3, tc.inFlight)
			mustKind(t, countAtErr(d, coll, coll), errs.Conflict, "change "+p.Token+" is being applied by another omgdb (its lease runs until")
			mustKind(t, countAtErr(d, p.Token, coll), errs.Conflict, "the state after it is not settled yet")
			expire(t, d, p.Token)
			left := dumpOf(t, d, coll)
			if got := dumpAt(t, d, p.Token, coll); got != left {
				t.Errorf("at the interrupted change:\n%s want\n%s", got, left)
			}
			if tc.around {
				// The in-flight document, changed around omgdb: neither image.
				id := p.Items[3].ID
				bid, _ := toBSON(id)
				if _, err := d.db.Collection(coll).UpdateOne(ctx, bson.D{{Key: "_id", Value: bid}}, bson.D{{Key: "$set", Value: bson.D{{Key: "by", Value: "another"}}}}); err != nil {
					t.Fatal(err)
				}
				mustKind(t, countAtErr(d, coll, coll), errs.Conflict, "change "+p.Token+" was interrupted, and document "+string(value.AppendJSON(nil, id))+" of `"+coll+"` holds neither")
				_, err := d.Diff(ctx, coll, "", coll)
				mustKind(t, err, errs.Conflict, "holds neither")
				return
			}
			if got := dumpAt(t, d, coll, coll); got != orig {
				t.Errorf("before the interrupted change:\n%s want\n%s", got, orig)
			}
			df, err := d.Diff(ctx, coll, "", coll)
			if err != nil {
				t.Fatal(err)
			}
			wantIDs := map[bool]string{true: `{"$numberInt":"1"},{"$numberInt":"2"},{"$numberInt":"3"},{"$numberInt":"4"}`,
				false: `{"$numberInt":"1"},{"$numberInt":"2"},{"$numberInt":"3"}`}[tc.inFlight]
			if got := diffIDs(df); got != wantIDs {
				t.Errorf("diff across the interrupted change: %s, want %s", got, wantIDs)
			}
			if !tc.rollback {
				return
			}
			res, err := d.Rollback(ctx, p.Token, nil)
			if err != nil || len(res.Conflicts) != 0 {
				t.Fatalf("rollback: %+v, %v", res, err)
			}
			for _, rev := range []string{coll, p.Token, res.ChangeID} {
				want := map[bool]string{true: left, false: orig}[rev == p.Token]
				if got := dumpAt(t, d, rev, coll); got != want {
					t.Errorf("at %s after the rollback:\n%s want\n%s", rev, got, want)
				}
			}
		})
	}
}

// TestAt_AcrossInterruptedImport stops an import as a kill would (one
// batch recorded, the next sent, 3 of its 5 documents written, not
// recorded): the revision before it reads the document that was there
// before, the import itself what it left; a pending _id that another
// writer then filled with another document makes the read ambiguous,
// and it is refused.
func TestAt_AcrossInterruptedImport(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	for _, other := range []bool{false, true} {
		coll := map[bool]string{false: "at_imp", true: "at_imp_other"}[other]
		insertJournaled(t, d, coll, `{"_id":"before","v":{"$numberLong":"1"},"a":[1,null]}`)
		orig := dumpOf(t, d, coll)
		snapshot(t, d, coll)
		in := interruptImport(t, d, coll)
		expire(t, d, in.p.Token)
		left := dumpOf(t, d, coll)
		if strings.Count(left, "\n") != 6 {
			t.Fatalf("left by the import:\n%s", left)
		}
		if other {
			if _, err := d.db.Collection(coll).InsertOne(ctx, bson.D{{Key: "_id", Value: int32(6)}, {Key: "by", Value: "another"}}); err != nil {
				t.Fatal(err)
			}
			mustKind(t, countAtErr(d, coll, coll), errs.Conflict, `document {"$numberInt":"6"} of `+"`"+coll+"`"+` holds neither`)
			continue
		}
		if got := dumpAt(t, d, coll, coll); got != orig {
			t.Errorf("before the interrupted import:\n%s want\n%s", got, orig)
		}
		if got := dumpAt(t, d, in.p.Token, coll); got != left {
			t.Errorf("at the interrupted import:\n%s want\n%s", got, left)
		}
	}
}

// TestAt_AcrossInterruptedDrop: a drop journaled but interrupted before
// its step was counted done (the rename carried out or not) makes a
// read of that collection before it ambiguous: refused, naming the
// change; another collection reads as usual; once the drop is rolled
// back, the revision before it reads the documents of then.
func TestAt_AcrossInterruptedDrop(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	insertJournaled(t, d, "other", `{"_id":1}`)
	for _, renamed := range []bool{true, false} {
		coll := map[bool]string{true: "kd_renamed", false: "kd_not"}[renamed]
		insertJournaled(t, d, coll, strings.Split(schemaDocs, "\n")...)
		want := dumpOf(t, d, coll)
		snapshot(t, d, coll)
		sc := &schemaChange{id: bson.NewObjectID(), kind: KindDrop, coll: coll, note: "drop " + coll, actor: "test"}
		sc.steps = []step{{Op: stepRename, Coll: coll, To: DroppedPrefix + sc.id.Hex()}}
		interrupted := *sc
		interrupted.steps = nil // journal it, carry out nothing
		if err := d.runSchema(ctx, &interrupted); err != nil {
			t.Fatal(err)
		}
		doc, _ := stepDoc(sc.steps[0])
		if _, err := d.db.Collection(ChangesColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: sc.id}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusApplying}, {Key: "ops", Value: bson.A{doc}}}}}); err != nil {
			t.Fatal(err)
		}
		if renamed {
			if err := d.runStep(ctx, sc.steps[0]); err != nil {
				t.Fatal(err)
			}
		}
		mustKind(t, countAtErr(d, coll, coll), errs.Conflict, "change "+sc.id.Hex()+" (drop "+coll+") is being carried out: omgdb cannot say whether its step on collection `"+coll+"` was carried out")
		if got := dumpAt(t, d, coll, "other"); got != `{"_id":{"$numberInt":"1"}}`+"\n" {
			t.Errorf("other at %s: %s", coll, got)
		}
		if _, err := d.Rollback(ctx, sc.id.Hex(), nil); err != nil {
			t.Fatal(err)
		}
		for _, rev := range []string{coll, "now"} {
			if got := dumpAt(t, d, rev, coll); got != want {
				t.Errorf("%s at %s after the rollback:\n%s want\n%s", coll, rev, got, want)
			}
		}
	}
}
