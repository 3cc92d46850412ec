package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// Snapshots are kept in the top-level bucket "snapshots": name -> a Blob
// of the snapshot's JSON. Rollback links are kept in "rollbacks":
// "by\x00<change>" -> the id of the rollback that undid the change, and
// "of\x00<rollback>" -> the change a rollback undid, both as plain text.
// Package changes says what they mean; the store keeps them, verifies
// them (every snapshot decodes, every change's link has its reverse) and copies
// them in Compact.
var (
	bucketSnapshots = []byte("snapshots")
	bucketRollbacks = []byte("rollbacks")
	linkBy          = []byte("by\x00")
	linkOf          = []byte("of\x00")
)

// Snapshots is the area of the store file where package changes keeps
// named revisions, within one transaction.
type Snapshots struct{ tx *Tx }

// Snapshots returns the snapshots area of the file.
func (tx *Tx) Snapshots() Snapshots { return Snapshots{tx} }

// Get returns the stored snapshot called name, or nil.
func (s Snapshots) Get(name string) Blob {
	if b := s.tx.btx.Bucket(bucketSnapshots); b != nil {
		return b.Get([]byte(name))
	}
	return nil
}

// Put stores a snapshot (JSON) under name.
func (s Snapshots) Put(name string, payload []byte) error {
	b, err := s.tx.btx.CreateBucketIfNotExists(bucketSnapshots)
	if err != nil {
		return err
	}
	return b.Put([]byte(name), EncodeBlob(payload))
}

// Delete removes the snapshot called name, if there is one.
func (s Snapshots) Delete(name string) error {
	if b := s.tx.btx.Bucket(bucketSnapshots); b != nil {
		return b.Delete([]byte(name))
	}
	return nil
}

// Each calls fn with every snapshot, in name order.
func (s Snapshots) Each(fn func(name string, v Blob) error) error {
	b := s.tx.btx.Bucket(bucketSnapshots)
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error { return fn(string(k), v) })
}

// Rollbacks is the area of the store file where package changes links
// each rollback to the change it undid, within one transaction.
type Rollbacks struct{ tx *Tx }

// Rollbacks returns the rollback links of the file.
func (tx *Tx) Rollbacks() Rollbacks { return Rollbacks{tx} }

// Link records that rollback undid change.
func (r Rollbacks) Link(change, rollback string) error {
	b, err := r.tx.btx.CreateBucketIfNotExists(bucketRollbacks)
	if err != nil {
		return err
	}
	if err := b.Put(linkKey(linkBy, change), []byte(rollback)); err != nil {
		return err
	}
	return b.Put(linkKey(linkOf, rollback), []byte(change))
}

// UndoneBy returns the rollback that undid change, or "".
func (r Rollbacks) UndoneBy(change string) string { return r.get(linkBy, change) }

// Undid returns the change that rollback undid, or "".
func (r Rollbacks) Undid(rollback string) string { return r.get(linkOf, rollback) }

func (r Rollbacks) get(kind []byte, id string) string {
	if b := r.tx.btx.Bucket(bucketRollbacks); b != nil {
		return string(b.Get(linkKey(kind, id)))
	}
	return ""
}

func linkKey(kind []byte, id string) []byte {
	return append(append([]byte(nil), kind...), id...)
}

// verifyLinks checks that every change's rollback link has its reverse:
// the rollback it names undid it. (The reverse links are history: a change
// rolled back again after its rollback was undone links to its newest
// rollback, while the older ones still say what they undid.)
func verifyLinks(b *bolt.Bucket, r *VerifyReport) {
	b.ForEach(func(k, v []byte) error {
		switch {
		case bytes.HasPrefix(k, linkBy):
			if back := b.Get(linkKey(linkOf, string(v))); !bytes.Equal(back, k[len(linkBy):]) {
				r.problem("rollbacks: change %s is linked to rollback %s, which undid %q", k[len(linkBy):], v, back)
			}
		case !bytes.HasPrefix(k, linkOf) || v == nil:
			r.problem("rollbacks: unknown entry %q", k)
		}
		return nil
	})
}
