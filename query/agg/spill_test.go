package agg_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// spillDocs are documents whose group and sort keys mix types: longs and
// the equal doubles, strings, null, missing, arrays (empty ones too).
func spillDocs(n int) []value.Value {
	r := rand.New(rand.NewPCG(9, 10))
	keys := []string{"5", "5.0", `{"$numberLong":"5"}`, `"a"`, `"b"`, "null", "[1,2]", "[]", "true", `{"x":1}`}
	return numberedDocs(n, func(i int) string {
		k := keys[r.IntN(len(keys))]
		if r.IntN(3) == 0 {
			k = fmt.Sprint(r.IntN(400))
		}
		doc := fmt.Sprintf(`{"_id":%d,"v":%d,"pad":"%s"`, (i*7919)%n, r.IntN(50), strings.Repeat("p", r.IntN(60)))
		if r.IntN(10) > 0 {
			doc += `,"k":` + k
		}
		return doc + "}"
	})
}

// TestPipeline_Run_SpillsPastMaxMemory: with a SpillDir, $sort and $group
// (and $sortByCount) past MaxMemory give what they give in memory: the
// same order for $sort (ties by _id), the same groups with the same
// order-dependent accumulators ($push, $first, $last) for $group; and no
// temporary file stays behind.
func TestPipeline_Run_SpillsPastMaxMemory(t *testing.T) {
	docs := spillDocs(6000)
	dir := t.TempDir()
	for _, tc := range []struct {
		pipeline string
		ordered  bool // the output order is defined
		// memory is small enough that the pipeline spills, big enough for
		// its largest single group, which cannot spill (0: 96 KiB).
		memory int64
	}{
		{`[{"$sort":{"k":1}}]`, true, 0},
		{`[{"$sort":{"k":-1,"v":1}}]`, true, 0},
		{`[{"$match":{"v":{"$lt":40}}},{"$sort":{"pad":1}},{"$project":{"pad":0}}]`, true, 0},
		{`[{"$group":{"_id":"$k","n":{"$sum":1},"vs":{"$push":"$v"},"f":{"$first":"$_id"},"l":{"$last":"$_id"},"avg":{"$avg":"$v"},"set":{"$addToSet":"$v"},"top":{"$top":{"sortBy":{"v":-1},"output":"$_id"}}}}]`, false, 0},
		{`[{"$group":{"_id":{"k":"$k","odd":{"$mod":["$v",2]}},"n":{"$count":{}}}},{"$sort":{"n":-1,"_id.odd":1}}]`, false, 16 << 10},
		{`[{"$sortByCount":"$k"}]`, false, 16 << 10},
		{`[{"$facet":{"byK":[{"$group":{"_id":"$k","n":{"$sum":1}}},{"$sort":{"_id":1}}],"top":[{"$sort":{"v":-1,"_id":1}},{"$limit":5},{"$project":{"pad":0}}],"count":[{"$count":"n"}]}}]`, true, 0},
	} {
		t.Run(tc.pipeline, func(t *testing.T) {
			want, err := aggregate(t, tc.pipeline, nil, nil, docs...)
			if err != nil {
				t.Fatal(err)
			}
			memory := cmp.Or(tc.memory, 96<<10)
			if _, err := aggregate(t, tc.pipeline, &agg.PipelineOptions{MaxMemory: memory}, nil, docs...); err == nil {
				t.Fatal("the pipeline fits in memory: the test spills nothing")
			}
			got, err := aggregate(t, tc.pipeline, &agg.PipelineOptions{MaxMemory: memory, SpillDir: dir}, nil, docs...)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.ordered {
				slices.Sort(got)
				slices.Sort(want)
			}
			sameAsInMemory(t, got, want)
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d files left in the spill directory", len(left))
			}
		})
	}
}

// sameAsInMemory fails unless a spilled output equals the one in memory.
func sameAsInMemory(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("spilled: %d documents, in memory %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("document %d spilled:\n%s\nin memory:\n%s", i, got[i], want[i])
		}
	}
}

// TestPipeline_Run_SortByCountSpilledStaysSorted: the counts of a spilled
// $sortByCount still come out highest first.
func TestPipeline_Run_SortByCountSpilledStaysSorted(t *testing.T) {
	got, err := aggregate(t, `[{"$sortByCount":"$k"}]`, &agg.PipelineOptions{MaxMemory: 4 << 10, SpillDir: t.TempDir()}, nil, spillDocs(3000)...)
	if err != nil {
		t.Fatal(err)
	}
	last := int64(1 << 62)
	for _, js := range got {
		n := value.MustParse(js).Get("count").Long()
		if n > last {
			t.Fatalf("count %d after %d: %v", n, last, got[:5])
		}
		last = n
	}
}

// TestPipeline_Run_SpillFails: a SpillDir that cannot take files fails
// the stage with an I/O error that names the temporary files.
func TestPipeline_Run_SpillFails(t *testing.T) {
	opts := &agg.PipelineOptions{MaxMemory: 16 << 10, SpillDir: "/nonexistent/omgdb-spill"}
	for _, p := range []string{`[{"$sort":{"k":1}}]`, `[{"$group":{"_id":"$_id"}}]`} {
		_, err := aggregate(t, p, opts, nil, spillDocs(2000)...)
		if err == nil || !strings.Contains(err.Error(), "temporary files") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
