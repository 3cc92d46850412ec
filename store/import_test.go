package store_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/store"
)

// ndjsonReader generates n documents of about size bytes each on the fly,
// so the input never sits in memory.
type ndjsonReader struct {
	n, i, size int
	buf        []byte
}

func (g *ndjsonReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		g.buf = fmt.Appendf(nil, `{"seq":%d,"name":"user %d","tags":["a","b"],"pad":"%s"}`+"\n", g.i, g.i, strings.Repeat("x", g.size))
		g.i++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// TestImport_StreamsWithBoundedMemory imports 100,000 documents (~60 MB of
// NDJSON) and checks that the heap never holds more than a fraction of it.
func TestImport_StreamsWithBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 60 MB")
	}
	db := storetest.MustOpen(t)
	const docs, size = 100_000, 550
	var peak uint64
	sample := func(int64, int64) {
		var m runtime.MemStats
		runtime.GC() // measure what is live, not garbage not yet collected
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	sum, err := db.Import(context.Background(), "users", &ndjsonReader{n: docs, size: size}, &store.ImportOptions{BatchSize: 10000, Progress: sample})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Inserted != docs || sum.Batches != 10 {
		t.Fatalf("summary = %+v", sum)
	}
	t.Logf("peak live heap: %.1f MB for %.1f MB of input", float64(peak)/1e6, float64(docs*(size+60))/1e6)
	if peak > 25e6 {
		t.Errorf("peak heap %.1f MB: the import does not stream", float64(peak)/1e6)
	}
}
