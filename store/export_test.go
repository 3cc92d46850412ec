package store

import (
	"bytes"
	"io"

	"github.com/omgdb/omgdb/query/value"
)

// SetParallelScanMin lowers the size from which counts and $group
// scans run on several goroutines, for tests; the returned function restores it.
func SetParallelScanMin(n int64) (restore func()) {
	old := parallelScanMin
	parallelScanMin = n
	return func() { parallelScanMin = old }
}

// SetMaxRecordSize lowers the journal record limit, for tests; the returned
// function restores it.
func SetMaxRecordSize(n int) (restore func()) {
	old := maxRecordSize
	maxRecordSize = n
	return func() { maxRecordSize = old }
}

// SetRecordWorkers sets how many pieces a large journal record is cut
// into at most, for tests; the returned function restores it.
func SetRecordWorkers(n int) (restore func()) {
	old := recordWorkers
	recordWorkers = n
	return func() { recordWorkers = old }
}

// RecordFrames returns how many zstd frames the journal record with the
// given LSN is stored as (0 when it is stored uncompressed).
func RecordFrames(tx *Tx, lsn uint64) int {
	raw := tx.btx.Bucket(bucketJournal).Get(lsnKey(lsn))
	if len(raw) < headerSize || raw[0] != encZstd {
		return 0
	}
	return bytes.Count(raw[headerSize:], []byte{0x28, 0xb5, 0x2f, 0xfd})
}

// SetParallelFetchMin lowers the number of _id keys from which an index
// scan fetches documents on several goroutines, and lets read-write
// handles do so, for tests; the returned function restores both.
func SetParallelFetchMin(n int) (restore func()) {
	old, oldWritable := parallelFetchMin, parallelFetchWritable
	parallelFetchMin, parallelFetchWritable = n, true
	return func() { parallelFetchMin, parallelFetchWritable = old, oldWritable }
}

// SplitDoc is one document of an import's input as ReadImportInput
// returns it: its canonical JSON or its error, and its lines.
type SplitDoc struct {
	JSON, Err  string
	Line, Last int64
	Col        int
}

// ReadImportInput reads r as Import would (formats, resume line,
// read-ahead and its fast path) and returns its documents, canonicalised,
// without writing them.
func ReadImportInput(r io.Reader, opts *ImportOptions) []SplitDoc {
	prep := func(it *prepared, text []byte) {
		it.val, it.id, it.err = value.AppendCanonicalDocument(make([]byte, headerSize, len(text)+48), text)
	}
	p := newPrefetcher(newSource(r, opts), prep, opts.ResumeFromLine)
	defer p.close()
	var out []SplitDoc
	for {
		it, err := p.next()
		if err != nil {
			return out
		}
		d := SplitDoc{Line: it.line, Last: it.last, Col: it.col}
		if it.err != nil {
			d.Err = it.err.Error()
		} else {
			d.JSON = string(it.val[headerSize:])
		}
		out = append(out, d)
	}
}
