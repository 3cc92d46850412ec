package agg_test

import (
	"context"
	"errors"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/leakcheck"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// TestWindow_Spill_SameAsInMemory: with a SpillDir and a tiny MaxMemory,
// $setWindowFields past the cap gives what it gives in memory, for window
// kinds over many small partitions (each fits, whatever its window) and
// over one partition far bigger than the cap (bounded documents windows
// and $shift, computed in chunks), with ties in sortBy kept in input order;
// its temporary files are gone afterwards, also when the output is not
// read to its end.
func TestWindow_Spill_SameAsInMemory(t *testing.T) {
	docs := spillDocs(5000)
	const memory = 48 << 10
	for _, pipeline := range []string{
		// Many partitions, each within the cap: any window, any function.
		`[{"$setWindowFields":{"partitionBy":{"$mod":["$_id",100]},"sortBy":{"v":1},"output":{"cum":{"$sum":"$v","window":{"documents":["unbounded","current"]}},"r":{"$rank":{}},"d":{"$denseRank":{}},"n":{"$documentNumber":{}},"near":{"$avg":"$v","window":{"range":[-3,3]}},"all":{"$max":"$v"}}}},{"$project":{"pad":0}}]`,
		`[{"$setWindowFields":{"partitionBy":{"$mod":["$_id",50]},"output":{"vs":{"$push":"$v","window":{"documents":[-2,2]}},"f":{"$first":"$_id"}}}},{"$project":{"pad":0}}]`,
		// One partition: bounded documents windows and $shift in chunks.
		`[{"$setWindowFields":{"sortBy":{"v":1},"output":{"s":{"$sum":"$v","window":{"documents":[-1,1]}},"vs":{"$push":"$_id","window":{"documents":[-3,0]}},"ahead":{"$min":"$v","window":{"documents":["current",4]}},"prev":{"$shift":{"output":"$_id","by":-1,"default":"none"}},"next3":{"$shift":{"output":"$_id","by":3}}}}},{"$project":{"pad":0}}]`,
		`[{"$setWindowFields":{"sortBy":{"v":-1},"output":{"rate":{"$derivative":{"input":"$_id"},"window":{"documents":[-1,0]}},"area":{"$integral":{"input":"$_id"},"window":{"documents":[-2,0]}},"cov":{"$covariancePop":["$v","$_id"],"window":{"documents":[-5,5]}},"far":{"$sum":1,"window":{"documents":[2,6]}}}}},{"$project":{"pad":0}}]`,
		// No sortBy: input order.
		`[{"$setWindowFields":{"output":{"s":{"$sum":"$v","window":{"documents":[-1,0]}}}}},{"$project":{"pad":0}}]`,
		// Partitions bigger than the cap, but bounded windows.
		`[{"$setWindowFields":{"partitionBy":{"$gt":["$v",10]},"sortBy":{"_id":1},"output":{"s":{"$sum":"$v","window":{"documents":[-2,2]}}}}},{"$project":{"pad":0}}]`,
	} {
		t.Run(pipeline, func(t *testing.T) {
			want, err := aggregate(t, pipeline, nil, nil, docs...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := aggregate(t, pipeline, &agg.PipelineOptions{MaxMemory: memory}, nil, docs...); !errors.Is(err, agg.ErrMemoryLimit) {
				t.Fatalf("without a SpillDir: %v, want ErrMemoryLimit (the test spills nothing)", err)
			}
			dir := t.TempDir()
			opts := &agg.PipelineOptions{MaxMemory: memory, SpillDir: dir}
			leakcheck.Rounds(t, 2, func(int) {
				got, err := aggregate(t, pipeline, opts, nil, docs...)
				if err != nil {
					t.Fatal(err)
				}
				sameAsInMemory(t, got, want)
				readSome(t, pipeline, opts, docs, 3)
			})
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d files left in the spill directory", len(left))
			}
		})
	}
}

// readSome reads n documents of a pipeline's output and closes it, and
// checks that no file it opened stays open. The collector is off
// meanwhile: a leaked os.File would otherwise be closed by its finalizer.
func readSome(t *testing.T, pipeline string, opts *agg.PipelineOptions, docs []value.Value, n int) {
	t.Helper()
	p, err := agg.CompilePipeline(value.MustParse(pipeline), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := openFiles(t)
	src := p.Run(context.Background(), agg.SliceSource(docs), nil)
	for i := 0; i < n && src.Next(); i++ {
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if after := openFiles(t); after > before {
		t.Errorf("%d files open before, %d after reading %d document(s) and closing", before, after, n)
	}
}

func openFiles(t *testing.T) int {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("cannot count open files here")
	}
	return len(fds)
}

// TestWindow_Spill_WholePartitionTooBig: a partition bigger than the cap
// whose output needs all of it (an unbounded or range window, $rank, …),
// or whose window reaches further than a chunk holds, fails with
// ErrMemoryLimit, naming the output and hinting at the fixes, rather than
// holding the partition.
func TestWindow_Spill_WholePartitionTooBig(t *testing.T) {
	docs := spillDocs(3000)
	for _, c := range []struct{ pipeline, want string }{
		{`[{"$setWindowFields":{"sortBy":{"v":1},"output":{"cum":{"$sum":"$v","window":{"documents":["unbounded","current"]}}}}}]`, "output `cum` needs the whole partition"},
		{`[{"$setWindowFields":{"sortBy":{"v":1},"output":{"s":{"$sum":"$v","window":{"documents":[-1,1]}},"r":{"$rank":{}}}}}]`, "output `r` needs the whole partition"},
		{`[{"$setWindowFields":{"sortBy":{"v":1},"output":{"a":{"$avg":"$v","window":{"range":[-1,1]}}}}}]`, "output `a` needs the whole partition"},
		{`[{"$setWindowFields":{"partitionBy":"$missing","output":{"m":{"$max":"$v"}}}}]`, "output `m` needs the whole partition"},
		{`[{"$setWindowFields":{"sortBy":{"v":1},"output":{"s":{"$sum":"$v","window":{"documents":[-5000,0]}}}}}]`, "its window reaches 0 document(s) ahead and 5000 behind"},
	} {
		_, err := aggregate(t, c.pipeline, &agg.PipelineOptions{MaxMemory: 32 << 10, SpillDir: t.TempDir()}, nil, docs...)
		if !errors.Is(err, agg.ErrMemoryLimit) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "more than the aggregation memory limit of 32768 bytes") {
			t.Errorf("%s: %v, want ErrMemoryLimit: …%s…", c.pipeline, err, c.want)
		}
	}
}
