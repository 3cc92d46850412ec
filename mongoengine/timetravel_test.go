package mongoengine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// dumpOf is every document of coll as r reads it, one canonical JSON
// line each, in _id order.
func dumpOf(t *testing.T, r engine.Reader, coll string) string {
	t.Helper()
	var b strings.Builder
	err := r.Find(context.Background(), coll, &engine.Find{}, func(v value.Value) error {
		b.Write(value.AppendJSON(nil, v))
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", coll, err)
	}
	return b.String()
}

// testRand is a random source seeded by $OMGDB_SEED, or the time (the
// seed is logged, to replay a failure); stream picks one of its streams.
func testRand(t *testing.T, stream uint64) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("OMGDB_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// TestAt_Property makes random changes through omgdb (updates that
// change types, deletions, upserts, rollbacks) and records the
// collection after each; then reading at each change (by id and by seq)
// gives exactly the recorded documents, and Diff between two changes
// lists exactly the documents whose recorded states differ.
func TestAt_Property(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	r := testRand(t, 2)
	vals := []string{"1", `{"$numberLong":"1"}`, "1.0", `"1"`, "null", "[1,2]", `{"x":[null]}`, `{"$numberLong":"9007199254740993"}`, "[]"}
	val := func() string { return vals[r.IntN(len(vals))] }
	var docs []any
	for i := 0; i < 8; i++ {
		b, _ := docToBSON(input(fmt.Sprintf(`{"_id":%d,"a":%s,"n":%d}`, i, val(), i)))
		docs = append(docs, b)
	}
	if _, err := d.db.Collection("tt").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	type state struct{ change, dump string }
	states := []state{{"", dumpOf(t, d, "tt")}}
	var applied []string
	for step := 0; step < 12; step++ {
		filter := input(fmt.Sprintf(`{"_id":{"$gte":%d,"$lt":%d}}`, r.IntN(8), 2+r.IntN(9)))
		var p *Plan
		var err error
		switch k := r.IntN(5); {
		case k == 4 && len(applied) > 0:
			rb, err := d.Rollback(ctx, applied[r.IntN(len(applied))], &ApplyOptions{Force: true})
			if err != nil {
				continue // already rolled back: nothing journaled
			}
			if rb.Written() > 0 {
				states = append(states, state{rb.ChangeID, dumpOf(t, d, "tt")})
			}
			continue
		case k == 3:
			p, err = d.PlanDelete(ctx, &PlanSpec{Collection: "tt", Filter: filter, First: r.IntN(2) == 0})
		default:
			upd := []string{`{"$set":{"a":` + val() + `}}`, `{"$unset":{"a":""}}`, `{"$inc":{"n":{"$numberLong":"5"}}}`,
				`{"$set":{"b":` + val() + `},"$mul":{"n":1.5}}`}[r.IntN(4)]
			spec := &PlanSpec{Collection: "tt", Filter: filter, Update: input(upd), Upsert: k == 2}
			if k == 2 {
				spec.Filter = input(fmt.Sprintf(`{"_id":%d}`, 8+step))
			}
			if spec.Compiled, err = compileForTest(spec.Update); err == nil {
				p, err = d.PlanUpdate(ctx, spec)
			}
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		res, err := d.Apply(ctx, p.Token, nil)
		if err != nil {
			t.Fatalf("step %d: apply: %v", step, err)
		}
		if res.Written() > 0 {
			applied = append(applied, p.Token)
			states = append(states, state{p.Token, dumpOf(t, d, "tt")})
		}
	}
	if len(states) < 4 {
		t.Fatalf("only %d changes made", len(states)-1)
	}
	for i, s := range states[1:] {
		for _, spec := range []string{s.change, fmt.Sprint(i + 1)} {
			at, rev, err := d.At(ctx, spec)
			if err != nil {
				t.Fatalf("At(%s): %v", spec, err)
			}
			if got := dumpOf(t, at, "tt"); got != s.dump || rev.Change != s.change || rev.Seq != int64(i+1) {
				t.Errorf("at %s (change %d): seq %d change %s\n%s want\n%s", spec, i+1, rev.Seq, rev.Change, got, s.dump)
			}
		}
	}
	// Before the first change: the documents inserted around omgdb.
	if _, err := d.CreateSnapshot(ctx, "first", "0", "test"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(states); i++ {
		j := i + 1 + r.IntN(len(states)-i-1)
		from, to := states[i].change, states[j].change
		if from == "" {
			from = "first"
		}
		df, err := d.Diff(ctx, from, to, "tt")
		if err != nil {
			t.Fatalf("Diff(%s, %s): %v", from, to, err)
		}
		if got, want := diffIDs(df), changedIDs(states[i].dump, states[j].dump); got != want {
			t.Errorf("Diff(%d, %d) lists %s, want %s", i, j, got, want)
		}
	}
}

func diffIDs(df *engine.Diff) string {
	var ids []string
	for _, dc := range df.Documents {
		ids = append(ids, string(value.AppendJSON(nil, dc.ID)))
	}
	return strings.Join(ids, ",")
}

// changedIDs lists the _ids whose lines differ between two dumps, in _id
// order (the test's _ids are small ints).
func changedIDs(a, b string) string {
	byID := func(dump string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(dump), "\n") {
			if l != "" {
				m[string(value.AppendJSON(nil, input(l).Get("_id")))] = l
			}
		}
		return m
	}
	x, y := byID(a), byID(b)
	var ids []string
	for i := 0; i < 40; i++ {
		k := string(value.AppendJSON(nil, value.IntValue(int32(i))))
		if x[k] != y[k] {
			ids = append(ids, k)
		}
	}
	return strings.Join(ids, ",")
}

// TestAt_WritesAroundOmgdb: documents written around omgdb are seen as
// they are now at every revision; one that omgdb changed after the
// revision takes omgdb's recorded before-image, whatever was written to
// it around omgdb since.
func TestAt_WritesAroundOmgdb(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	c := d.db.Collection("w")
	for _, js := range []string{`{"_id":1,"v":1}`, `{"_id":2,"v":2}`} {
		b, _ := docToBSON(input(js))
		if _, err := c.InsertOne(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	spec := &PlanSpec{Collection: "w", Filter: input(`{"_id":1}`), Update: input(`{"$set":{"v":{"$numberLong":"10"}}}`)}
	spec.Compiled, _ = compileForTest(spec.Update)
	p, err := d.PlanUpdate(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Apply(ctx, p.Token, nil); err != nil {
		t.Fatal(err)
	}
	// Around omgdb: document 1 again, document 2, a new document 3.
	for _, u := range []struct{ id, v int32 }{{1, 100}, {2, 200}} {
		if _, err := c.UpdateOne(ctx, map[string]any{"_id": u.id}, map[string]any{"$set": map[string]any{"v": u.v}}); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := docToBSON(input(`{"_id":3,"v":3}`))
	if _, err := c.InsertOne(ctx, b); err != nil {
		t.Fatal(err)
	}
	at, _, err := d.At(ctx, "2000-01-01")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"_id":{"$numberInt":"1"},"v":{"$numberInt":"1"}}` + "\n" + `{"_id":{"$numberInt":"2"},"v":{"$numberInt":"200"}}` + "\n" + `{"_id":{"$numberInt":"3"},"v":{"$numberInt":"3"}}` + "\n"
	if got := dumpOf(t, at, "w"); got != want {
		t.Errorf("before the change:\n%s want\n%s", got, want)
	}
	df, err := d.Diff(ctx, "2000-01-01", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(df.Documents) != 1 || string(value.AppendJSON(nil, df.Documents[0].After)) != `{"_id":{"$numberInt":"1"},"v":{"$numberInt":"100"}}` {
		t.Errorf("diff: %+v", df.Documents)
	}
}

// TestNextSeq_Concurrent: changes journaled at once by several writers
// (here goroutines, each with a call of its own) get distinct seqs, with
// no gap, even while the counter is first created.
func TestNextSeq_Concurrent(t *testing.T) {
	d := openWrite(t)
	const n = 8
	got := make(chan int64, n)
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			s, err := d.nextSeq(context.Background(), bson.NewObjectID())
			got <- s
			errc <- err
		}()
	}
	seen := map[int64]bool{}
	for i := 0; i < n; i++ {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		seen[<-got] = true
	}
	for s := int64(1); s <= n; s++ {
		if !seen[s] {
			t.Errorf("seqs %v: %d missing", seen, s)
		}
	}
}
