package mongoengine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// TestAt_FollowProperty makes random changes over three names (inserts
// that create a collection, updates that turn ints into longs and add
// null, deletions, renames with and without dropTarget, drops, forced
// rollbacks of earlier changes, schema ones included) and records what
// each name holds after each change (or that it is missing); then every
// name read at every seq gives exactly what was recorded, and diff
// between random pairs of seqs lists exactly the documents that differ.
func TestAt_FollowProperty(t *testing.T) {
	d := openWrite(t)
	ctx := context.Background()
	r := testRand(t, 3)
	names := []string{"pa", "pb", "pc"}
	state := func(rd engine.Reader, coll string) string {
		var b strings.Builder
		err := rd.Find(ctx, coll, &engine.Find{}, func(v value.Value) error {
			b.Write(value.AppendJSON(nil, v))
			b.WriteByte('\n')
			return nil
		})
		if errs.KindOf(err) == errs.NotFound {
			return "<missing>"
		}
		if err != nil {
			t.Fatalf("read %s: %v", coll, err)
		}
		return b.String()
	}
	lastSeq := func() int64 {
		rev, err := d.ResolveRevision(ctx, "now")
		if err != nil {
			t.Fatal(err)
		}
		return rev.Seq
	}
	states := map[int64][]string{}
	var changes []string
	for step := 0; step < 16; step++ {
		x, y := names[r.IntN(3)], names[r.IntN(3)]
		exists := state(d, x) != "<missing>"
		switch k := r.IntN(6); {
		case k == 0 || !exists:
			changes = append(changes, insertJournaled(t, d, x, fmt.Sprintf(`{"_id":%d,"v":%d,"arr":[%d,null]}`, 100+step, step, step)))
		case k == 1:
			changes = append(changes, applyWrite(t, d, x, `{}`, `{"$inc":{"v":{"$numberLong":"1"}},"$set":{"w":null}}`))
		case k == 2:
			changes = append(changes, applyWrite(t, d, x, fmt.Sprintf(`{"_id":{"$lt":%d}}`, 100+r.IntN(step+1)), ""))
		case k == 3 && x != y:
			res, err := d.Rename(ctx, x, y, true, "test")
			if err != nil {
				t.Fatalf("step %d: rename %s %s: %v", step, x, y, err)
			}
			changes = append(changes, res.ChangeID)
		case k == 4:
			res, err := d.Drop(ctx, x, "test")
			if err != nil {
				t.Fatalf("step %d: drop %s: %v", step, x, err)
			}
			changes = append(changes, res.ChangeID)
		case k == 5 && len(changes) > 0:
			if res, err := d.Rollback(ctx, changes[r.IntN(len(changes))], &ApplyOptions{Force: true}); err == nil {
				changes = append(changes, res.ChangeID)
			}
		}
		var now []string
		for _, n := range names {
			now = append(now, state(d, n))
		}
		states[lastSeq()] = now
	}
	if len(states) < 8 {
		t.Fatalf("only %d states", len(states))
	}
	for seq, want := range states {
		at, _, err := d.At(ctx, fmt.Sprint(seq))
		if err != nil {
			t.Fatalf("At(%d): %v", seq, err)
		}
		for i, n := range names {
			if got := state(at, n); got != want[i] {
				t.Errorf("%s at seq %d:\n%s want\n%s", n, seq, got, want[i])
			}
		}
	}
	seqs := make([]int64, 0, len(states))
	for s := range states {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for i := 0; i+1 < len(seqs); i++ {
		j := i + 1 + r.IntN(len(seqs)-i-1)
		df, err := d.Diff(ctx, fmt.Sprint(seqs[i]), fmt.Sprint(seqs[j]), "")
		if err != nil {
			t.Fatalf("Diff(%d, %d): %v", seqs[i], seqs[j], err)
		}
		var want []string
		for k, n := range names {
			want = append(want, changedDocs(n, states[seqs[i]][k], states[seqs[j]][k])...)
		}
		var got []string
		for _, dc := range df.Documents {
			got = append(got, dc.Collection+" "+string(value.AppendJSON(nil, dc.ID)))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("Diff(%d, %d) lists %v, want %v", seqs[i], seqs[j], got, want)
		}
	}
}

// changedDocs lists "coll _id" of the documents that differ between two
// states of coll, in _id order (the test's _ids are ints).
func changedDocs(coll, a, b string) []string {
	byID := func(s string) map[int32]string {
		m := map[int32]string{}
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if l != "" && l != "<missing>" {
				m[int32(input(l).Get("_id").Long())] = l
			}
		}
		return m
	}
	x, y := byID(a), byID(b)
	var out []string
	for id := int32(0); id < 200; id++ {
		if x[id] != y[id] {
			out = append(out, coll+" "+string(value.AppendJSON(nil, value.IntValue(id))))
		}
	}
	return out
}
