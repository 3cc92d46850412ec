package store

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/omgdb/omgdb/internal/compress/zstd"

	"github.com/omgdb/omgdb/internal/crc32c"
	"github.com/omgdb/omgdb/query"
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

var (
	zenc     *zstd.Encoder
	zencFast *zstd.Encoder // zstd's fastest level, for EncodeBlobFast
	zdec     *zstd.Decoder
	zstdOnce sync.Once
)

func zstdInit() {
	zstdOnce.Do(func() {
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
		zencFast, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
		zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	})
}

// encodeDoc returns the stored form of a prepared document.
func encodeDoc(doc query.Value) ([]byte, error) {
	val := query.AppendJSON(make([]byte, headerSize, 256), doc)
	if n := len(val) - headerSize; n > query.MaxDocumentSize {
		return nil, query.Errorf(query.Limit, "document with _id %s is %d bytes, over the %d-byte limit", doc.Get("_id"), n, query.MaxDocumentSize)
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

// docJSON returns the canonical JSON inside a stored value.
func docJSON(raw []byte) ([]byte, error) {
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
		out, err := zdec.DecodeAll(payload, nil)
		if err != nil {
			return nil, corruptValue("zstd: " + err.Error())
		}
		return out, nil
	}
	return nil, corruptValue(fmt.Sprintf("unknown encoding 0x%02x", raw[0]))
}

func decodeDoc(raw []byte) (query.Value, error) {
	js, err := docJSON(raw)
	if err != nil {
		return query.Value{}, err
	}
	v, err := query.Parse(js)
	if err != nil {
		return query.Value{}, corruptValue(err.Error())
	}
	return v, nil
}

func corruptValue(msg string) error {
	return wrap(query.IO, ErrCorrupt, "corrupt document value: %s", msg).
		WithHint("run `omgdb verify` on the store; restore from a backup or salvage it")
}
