package store

import (
	"encoding/binary"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/errs"
)

// Plans are kept in the top-level bucket "plans": one nested bucket per
// token, holding the plan's header under "h" and its chunks under a part
// byte ('i' items, 'a' after-images, 'b' before-images, kept by plans of
// older versions) and a 4-byte big-endian sequence number. Every value is
// a Blob. What the header and chunks say is package changes' business;
// the store keeps them, verifies that each decodes, and copies them in
// Compact.
var (
	bucketPlans   = []byte("plans")
	keyPlanHeader = []byte("h")
)

// PlanPart says which part of a plan a chunk holds.
type PlanPart byte

// The parts of a plan's chunks.
const (
	PlanItems   PlanPart = 'i' // the items' identities
	PlanAfters  PlanPart = 'a' // their after-images, line for line
	PlanBefores PlanPart = 'b' // their before-images (plans of older versions)
)

// PlanChunk is one chunk of a plan as stored: its items and, when present,
// its after- and before-images (nil when absent). The blobs are valid
// only inside the transaction.
type PlanChunk struct {
	Seq                    uint32
	Items, Afters, Befores Blob
}

// Plans is the area of the store file where package changes keeps its
// plans, within one transaction. Its methods that write fail in a read
// transaction.
type Plans struct{ tx *Tx }

// Plans returns the plans area of the file.
func (tx *Tx) Plans() Plans { return Plans{tx} }

func (p Plans) plan(token string) *bolt.Bucket {
	root := p.tx.btx.Bucket(bucketPlans)
	if root == nil {
		return nil
	}
	return root.Bucket([]byte(token))
}

// Header returns the stored header of the plan with token, and whether
// the plan exists.
func (p Plans) Header(token string) (Blob, bool) {
	b := p.plan(token)
	if b == nil {
		return nil, false
	}
	return b.Get(keyPlanHeader), true
}

// Create makes an empty plan, with neither header nor chunks. It fails if
// the token is taken.
func (p Plans) Create(token string) error {
	root, err := p.tx.btx.CreateBucketIfNotExists(bucketPlans)
	if err != nil {
		return err
	}
	_, err = root.CreateBucket([]byte(token))
	return err
}

// PutHeader stores a plan's header (JSON), making the plan if needed.
func (p Plans) PutHeader(token string, payload []byte) error {
	root, err := p.tx.btx.CreateBucketIfNotExists(bucketPlans)
	if err != nil {
		return err
	}
	b, err := root.CreateBucketIfNotExists([]byte(token))
	if err != nil {
		return err
	}
	return b.Put(keyPlanHeader, EncodeBlob(payload))
}

// PutChunk stores one part of a plan's chunk seq. The plan must exist.
// The store keeps v until the transaction commits: do not reuse it.
func (p Plans) PutChunk(token string, part PlanPart, seq uint32, v Blob) error {
	b := p.plan(token)
	if b == nil {
		return wrap(errs.NotFound, ErrNotFound, "no plan with token %s", token)
	}
	return b.Put(planChunkKey(part, seq), v)
}

// Chunks returns the chunks of a plan, in sequence order: those that have
// items, with the parts asked for (the others nil).
func (p Plans) Chunks(token string, parts ...PlanPart) []PlanChunk {
	b := p.plan(token)
	if b == nil {
		return nil
	}
	var out []PlanChunk
	c := b.Cursor()
	for k, v := c.Seek([]byte{byte(PlanItems)}); len(k) == 5 && k[0] == byte(PlanItems); k, v = c.Next() {
		ch := PlanChunk{Seq: binary.BigEndian.Uint32(k[1:]), Items: v}
		for _, part := range parts {
			switch part {
			case PlanAfters:
				ch.Afters = b.Get(planChunkKey(part, ch.Seq))
			case PlanBefores:
				ch.Befores = b.Get(planChunkKey(part, ch.Seq))
			}
		}
		out = append(out, ch)
	}
	return out
}

// DropChunks deletes every chunk of a plan, keeping its header.
func (p Plans) DropChunks(token string) error {
	b := p.plan(token)
	if b == nil {
		return nil
	}
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if isPlanChunkKey(k) {
			keys = append(keys, append([]byte(nil), k...))
		}
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Each calls fn with the token and header of every plan, in token order.
func (p Plans) Each(fn func(token string, header Blob) error) error {
	root := p.tx.btx.Bucket(bucketPlans)
	if root == nil {
		return nil
	}
	return root.ForEachBucket(func(k []byte) error {
		return fn(string(k), root.Bucket(k).Get(keyPlanHeader))
	})
}

func planChunkKey(part PlanPart, seq uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{byte(part)}, seq)
}

func isPlanChunkKey(k []byte) bool {
	if len(k) != 5 {
		return false
	}
	switch PlanPart(k[0]) {
	case PlanItems, PlanAfters, PlanBefores:
		return true
	}
	return false
}
