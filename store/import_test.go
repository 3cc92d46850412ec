package store_test

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
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

// TestImport_ReadAheadKeepsLineSemantics: lines are canonicalised ahead of
// the transaction that inserts them; a bad line far past the read-ahead
// window still stops the import at that line with everything before it
// imported, the summary counts what was read and written, and the reading
// goroutine is gone afterwards.
func TestImport_ReadAheadKeepsLineSemantics(t *testing.T) {
	before := runtime.NumGoroutine()
	var in strings.Builder
	for i := 1; i <= 10000; i++ {
		switch i {
		case 7001:
			in.WriteString("{not json\n")
		case 50:
			in.WriteString("\n") // blank lines are skipped but counted
		default:
			fmt.Fprintf(&in, `{"_id":%d,"a":[1.50,{"b":"x"}]}`+"\n", i)
		}
	}
	db := storetest.MustOpen(t)
	sum, err := db.Import(context.Background(), "c", strings.NewReader(in.String()), &store.ImportOptions{BatchSize: 1000})
	if err == nil || !strings.Contains(err.Error(), "line 7001") {
		t.Fatalf("import = %v, want an error at line 7001", err)
	}
	if sum.Inserted != 6999 || sum.StoppedAt != 7001 || sum.Lines != 7001 || sum.Batches != 7 {
		t.Errorf("summary = %+v, want 6999 inserted in 7 batches, stopped at line 7001", sum)
	}
	sum, err = db.Import(context.Background(), "d", strings.NewReader(in.String()), &store.ImportOptions{Skip: true, BatchSize: 1000})
	if err != nil || sum.Inserted != 9998 || sum.Skipped != 1 || sum.Lines != 10000 || len(sum.Errors) != 1 || sum.Errors[0].Line != 7001 {
		t.Errorf("import with skip = %+v, %v", sum, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.Import(ctx, "e", strings.NewReader(in.String()), nil); err == nil {
		t.Error("a cancelled import succeeded")
	}
	// Goroutines end asynchronously (and under -race, after other tests,
	// slowly): give them up to a second.
	for i := 0; runtime.NumGoroutine() > before && i < 200; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the imports, %d before", n, before)
	}
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		doc, err := c.Get(value.LongValue(7000))
		if err == nil && doc.String() != `{"_id":7000,"a":[1.5,{"b":"x"}]}` {
			t.Errorf("document 7000 = %s", doc)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
