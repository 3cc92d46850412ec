package store

import (
	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/errs"
)

// storeBuckets are the top-level buckets the store itself owns. Bucket
// refuses them, so a package above the store cannot damage the data or
// the journal through it.
var storeBuckets = map[string]bool{
	string(bucketMeta): true, string(bucketCollections): true,
	string(bucketJournal): true, string(bucketChanges): true,
}

// Bucket returns a top-level bucket of the store file for a package built
// on the store, which keeps its own records in the one file: package
// changes keeps its plans, snapshots and rollback links in "plans",
// "snapshots" and "rollbacks". In a write transaction a missing bucket is
// created; in a read transaction it is nil (nothing was ever written).
//
// Writes to such a bucket commit with the transaction but are not
// journaled: they are bookkeeping, not changes to documents, and a
// transaction that writes only to them adds no journal record. The
// store's own buckets are refused.
func (tx *Tx) Bucket(name string) (*bolt.Bucket, error) {
	if storeBuckets[name] || name == "" {
		return nil, errs.Errorf(errs.Invalid, "bucket %q belongs to the store", name)
	}
	if !tx.writable {
		return tx.btx.Bucket([]byte(name)), nil
	}
	return tx.btx.CreateBucketIfNotExists([]byte(name))
}

// EncodeBlob returns the stored form of a JSON payload, as documents and
// journal records are stored: a header byte, a CRC-32C, then the payload,
// zstd-compressed when it is large. Use it for values kept in a Bucket so
// that damage is detected (DecodeBlob fails) instead of misread.
func EncodeBlob(payload []byte) []byte {
	val := make([]byte, headerSize, headerSize+len(payload))
	return encodeJSON(append(val, payload...))
}

// EncodeBlobFast is EncodeBlob compressing at zstd's fastest level, for
// values written once and read back soon (a plan's before- and
// after-images): measured on a plan of 83,000 documents, it halves the
// time compression takes for a slightly larger value. DecodeBlob reads both.
func EncodeBlobFast(payload []byte) []byte { return encodeFast(payload) }

// DecodeBlob returns the payload of a value made by EncodeBlob. A damaged
// value is an error wrapping ErrCorrupt.
func DecodeBlob(raw []byte) ([]byte, error) {
	b, err := valueJSON(raw, true)
	if err != nil {
		return nil, err
	}
	if len(raw) > 0 && raw[0] == encJSON {
		// docJSON aliases raw, which may be bbolt's memory: copy, so the
		// payload outlives the transaction.
		b = append([]byte(nil), b...)
	}
	return b, nil
}
