package store

import (
	"encoding/binary"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// verifyAreas checks the areas packages above the store keep in the file
// (Plans, Snapshots, Rollbacks): every plan is a bucket with a header,
// every stored blob decodes (its checksum holds), every chunk key is one
// the store writes and every change's rollback link has its reverse.
func verifyAreas(tx *Tx, r *VerifyReport) {
	if root := tx.btx.Bucket(bucketPlans); root != nil {
		root.ForEach(func(k, v []byte) error {
			if v != nil {
				r.problem("plans: entry %q is not a plan", k)
				return nil
			}
			verifyPlan(string(k), root.Bucket(k), r)
			return nil
		})
	}
	if b := tx.btx.Bucket(bucketSnapshots); b != nil {
		b.ForEach(func(k, v []byte) error {
			if _, err := DecodeBlob(v); err != nil {
				r.problem("snapshot %s: %v", k, err)
			}
			return nil
		})
	}
	if b := tx.btx.Bucket(bucketRollbacks); b != nil {
		verifyLinks(b, r)
	}
}

func verifyPlan(token string, b *bolt.Bucket, r *VerifyReport) {
	if b.Get(keyPlanHeader) == nil {
		r.problem("plan %s: no header", token)
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		what := "header"
		switch {
		case isPlanChunkKey(k):
			what = "chunk " + string(k[:1]) + "#" + fmtSeq(k[1:])
			if k[0] != byte(PlanItems) && b.Get(append([]byte{byte(PlanItems)}, k[1:]...)) == nil {
				r.problem("plan %s: %s has no items", token, what)
			}
		case string(k) != string(keyPlanHeader):
			r.problem("plan %s: unknown entry %q", token, k)
			continue
		}
		if _, err := DecodeBlob(v); err != nil {
			r.problem("plan %s: %s: %v", token, what, err)
		}
	}
}

// verifyIndexData checks the layout of the data an index kind keeps
// through Vectors or Text (B-tree indexes are checked by their kind).
func verifyIndexData(ix *Index, problem func(string, ...any)) {
	b := ix.bucket
	k, _ := b.Cursor().First()
	switch {
	case k == nil:
	case b.Get(keyVecMeta) != nil || b.Get(keyVecCount) != nil || k[0] == prefixQuant || k[0] == prefixVector:
		verifyVectors(b, problem)
	default:
		verifyText(b, problem)
	}
}

func fmtSeq(b []byte) string { return strconv.FormatUint(uint64(binary.BigEndian.Uint32(b)), 10) }
