package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/omgdb/omgdb/internal/crc32c"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// A stored value is one header byte, the CRC-32C of the rest of the value
// (4 bytes, big-endian), then the payload. bbolt checksums only its meta
// pages; the CRC makes a damaged document or journal record an error
// instead of wrong data.
const (
	encJSON    = 0x01 // canonical JSON follows
	encZstd    = 0x02 // zstd-compressed canonical JSON follows
	headerSize = 5
)

// seal fills in the header of a value whose payload starts at headerSize.
func seal(val []byte, enc byte) []byte {
	val[0] = enc
	binary.BigEndian.PutUint32(val[1:5], crc32c.Checksum(val[headerSize:]))
	return val
}

// compressAbove is the size from which a document is compressed: measured,
// zstd on small documents saves little and slows scans several times.
const compressAbove = 4096

// Decoded sizes a stored value may claim. A zstd frame states its size and
// the decoder allocates it up front, so a damaged or crafted value must
// not be able to ask for much more than the store writes: a document
// (at most value.MaxDocumentSize) decodes to at most 64 MiB, a journal
// record or a blob to at most MaxRecordSize.
const (
	maxDocDecoded  = 64 << 20
	MaxRecordSize  = 1 << 30 // bytes of JSON in one transaction's journal record
	recordPieceMin = 4 << 20 // see encodeFast
)

// maxRecordSize is MaxRecordSize, lowered by tests.
var maxRecordSize = MaxRecordSize

// recordWorkers is how many pieces of a journal record are compressed at
// once: one per core, at most four.
var recordWorkers = min(runtime.GOMAXPROCS(0), 4)

var (
	zenc      *zstd.Encoder
	zencFast  *zstd.Encoder // zstd's fastest level, for encodeFast
	zdec      *zstd.Decoder // documents
	zdecLarge *zstd.Decoder // journal records and blobs
	zstdOnce  sync.Once
)

func zstdInit() {
	zstdOnce.Do(func() {
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
		zencFast, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(recordWorkers),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
		zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDocDecoded))
		zdecLarge, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxRecordSize))
	})
}

// encodeDoc returns the stored form of a prepared document.
func encodeDoc(doc value.Value) ([]byte, error) {
	val := value.AppendJSON(make([]byte, headerSize, 256), doc)
	if n := len(val) - headerSize; n > value.MaxDocumentSize {
		return nil, errs.Errorf(errs.Limit, "document with _id %s is %d bytes, over the %d-byte limit", doc.Get("_id"), n, value.MaxDocumentSize)
	}
	return encodeJSON(val), nil
}

// encodeJSON seals a value whose JSON payload starts at headerSize,
// compressing it when it is large.
func encodeJSON(val []byte) []byte {
	if len(val)-headerSize <= compressAbove {
		return seal(val, encJSON)
	}
	zstdInit()
	return seal(zenc.EncodeAll(val[headerSize:], make([]byte, headerSize, len(val)/3)), encZstd)
}

// encodeFast returns the stored form of a JSON payload, compressed at
// zstd's fastest level when it is large: journal records (on one of 83,000
// before-images the default level saved 1.5% of the size for 20-50% more
// time, on the path of every large write) and EncodeBlobFast's values.
// From 2 × recordPieceMin it is cut into pieces compressed at once, one
// per core (at most recordWorkers): each piece is a zstd frame, and frames
// one after another are one zstd stream, which DecodeAll reads whole. The
// window is 1 MB, so pieces of 4 MB or more compress nearly as well as the
// whole.
func encodeFast(payload []byte) []byte {
	if len(payload) <= compressAbove {
		return seal(append(make([]byte, headerSize, headerSize+len(payload)), payload...), encJSON)
	}
	zstdInit()
	n := min(recordWorkers, len(payload)/recordPieceMin)
	if n < 2 {
		return seal(zencFast.EncodeAll(payload, make([]byte, headerSize, len(payload)/3)), encZstd)
	}
	frames := make([][]byte, n)
	size := (len(payload) + n - 1) / n
	var wg sync.WaitGroup
	for i := range frames {
		piece := payload[i*size : min((i+1)*size, len(payload))]
		wg.Go(func() { frames[i] = zencFast.EncodeAll(piece, make([]byte, 0, len(piece)/3)) })
	}
	wg.Wait()
	out := make([]byte, headerSize, headerSize+n*(size/3))
	for _, f := range frames {
		out = append(out, f...)
	}
	return seal(out, encZstd)
}

// docJSON returns the canonical JSON inside a stored document.
func docJSON(raw []byte) ([]byte, error) { return valueJSON(raw, false) }

// valueJSON returns the JSON inside a stored value: a document, or with
// large a journal record or a blob, which may decode to MaxRecordSize.
func valueJSON(raw []byte, large bool) ([]byte, error) {
	if len(raw) < headerSize {
		return nil, corruptValue("short value")
	}
	payload := raw[headerSize:]
	if crc32c.Checksum(payload) != binary.BigEndian.Uint32(raw[1:5]) {
		return nil, corruptValue("checksum mismatch")
	}
	switch raw[0] {
	case encJSON:
		return payload, nil
	case encZstd:
		zstdInit()
		dec := zdec
		if large {
			dec = zdecLarge
		}
		out, err := dec.DecodeAll(payload, nil)
		if err != nil {
			return nil, corruptValue("zstd: " + err.Error())
		}
		return out, nil
	}
	return nil, corruptValue(fmt.Sprintf("unknown encoding 0x%02x", raw[0]))
}

func decodeDoc(raw []byte) (value.Value, error) {
	js, err := docJSON(raw)
	if err != nil {
		return value.Value{}, err
	}
	v, err := value.Parse(js)
	if err != nil {
		return value.Value{}, corruptValue(err.Error())
	}
	return v, nil
}

// matchFailed is the error of a filter that failed on a stored
// document: the context's error when a $expr stopped at the deadline or
// on cancellation, else a corrupt value.
func matchFailed(err error) error {
	var ee *query.ExprError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ee) {
		return err
	}
	return corruptValue(err.Error())
}

func corruptValue(msg string) error {
	return wrap(errs.IO, ErrCorrupt, "corrupt document value: %s", msg).
		WithHint("run `omgdb verify` on the store; restore from a backup or salvage it")
}
