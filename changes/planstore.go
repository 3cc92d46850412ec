package changes

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/store"
)

// Plans live in the store file, in the top-level bucket "plans": one nested
// bucket per token holding the header under "h", the items as chunks of
// NDJSON under "i" + a 4-byte big-endian sequence number, and their
// before-images under "b" + the same number, line for line ("null" for an
// item without one). Apply reads only the items; showing a plan reads both.
// Every value is a store blob (checksummed; compressed when large). Applying, discarding or
// expiring a plan drops its items and keeps its header, so a token keeps
// saying what became of it.
const (
	bucketPlans = "plans"
	chunkItems  = 1024    // items per chunk at most
	chunkBytes  = 1 << 20 // bytes per chunk, roughly
)

var keyHeader = []byte("h")

// storedPlan is the header as stored: the plan plus its bookkeeping.
type storedPlan struct {
	*Plan
	Items     int  `json:"items"`
	UpsertNew bool `json:"upsert_new,omitempty"`
}

func planBucket(tx *store.Tx, token string) (*bolt.Bucket, error) {
	root, err := tx.Bucket(bucketPlans)
	if err != nil || root == nil {
		return nil, err
	}
	return root.Bucket([]byte(token)), nil
}

// loadPlan reads a plan's header. An unknown token is a NotFound error.
func loadPlan(tx *store.Tx, token string) (*Plan, error) {
	b, err := planBucket(tx, token)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, wrap(query.NotFound, ErrNotFound, "no plan with token %s", token).
			WithHint("list pending plans with `omgdb plans %s`; plans expire after 24 h", tx.DB().Path())
	}
	return decodeHeader(token, b.Get(keyHeader))
}

func decodeHeader(token string, raw []byte) (*Plan, error) {
	js, err := store.DecodeBlob(raw)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", token, err)
	}
	sp := storedPlan{Plan: &Plan{}}
	if err := json.Unmarshal(js, &sp); err != nil {
		return nil, query.Errorf(query.IO, "plan %s: unreadable header: %v", token, err)
	}
	sp.Plan.items, sp.Plan.upsertNew = sp.Items, sp.UpsertNew
	return sp.Plan, nil
}

// saveHeader writes a plan's header, creating its bucket if needed.
func saveHeader(tx *store.Tx, p *Plan) error {
	root, err := tx.Bucket(bucketPlans)
	if err != nil {
		return err
	}
	b, err := root.CreateBucketIfNotExists([]byte(p.Token))
	if err != nil {
		return err
	}
	js, err := json.Marshal(storedPlan{Plan: p, Items: p.items, UpsertNew: p.upsertNew})
	if err != nil {
		return err
	}
	return b.Put(keyHeader, store.EncodeBlob(js))
}

// savePlan writes a new plan: its header and its items.
func savePlan(tx *store.Tx, p *Plan, items []item) error {
	p.items = len(items)
	if err := saveHeader(tx, p); err != nil {
		return err
	}
	b, err := planBucket(tx, p.Token)
	if err != nil {
		return err
	}
	var buf, before []byte
	seq, n := uint32(0), 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		err := b.Put(chunkKey('i', seq), store.EncodeBlob(buf))
		if err == nil {
			err = b.Put(chunkKey('b', seq), store.EncodeBlob(before))
		}
		seq, n, buf, before = seq+1, 0, buf[:0], before[:0]
		return err
	}
	for i := range items {
		buf = append(query.AppendJSON(buf, items[i].value()), '\n')
		before = append(query.AppendJSON(before, items[i].before), '\n')
		if n++; n >= chunkItems || len(buf)+len(before) >= chunkBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

func chunkKey(kind byte, seq uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{kind}, seq)
}

// eachItem calls fn for each item of a plan, in order; with before, its
// before-image is read too.
func eachItem(tx *store.Tx, token string, before bool, fn func(item) error) error {
	b, err := planBucket(tx, token)
	if err != nil || b == nil {
		return err
	}
	c := b.Cursor()
	for k, v := c.Seek([]byte("i")); k != nil && k[0] == 'i'; k, v = c.Next() {
		items, err := chunkLines(token, v)
		if err != nil {
			return err
		}
		var befores [][]byte
		if before {
			if befores, err = chunkLines(token, b.Get(append([]byte{'b'}, k[1:]...))); err != nil {
				return err
			}
		}
		for i, line := range items {
			it, err := parseItem(token, line, befores, i)
			if err != nil {
				return err
			}
			if err := fn(it); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkLines returns the lines of a chunk.
func chunkLines(token string, raw []byte) ([][]byte, error) {
	js, err := store.DecodeBlob(raw)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", token, err)
	}
	return bytes.Split(bytes.TrimSuffix(js, []byte{'\n'}), []byte{'\n'}), nil
}

func parseItem(token string, line []byte, befores [][]byte, i int) (item, error) {
	v, err := query.Parse(line)
	if err != nil {
		return item{}, query.Errorf(query.IO, "plan %s: unreadable item: %v", token, err)
	}
	it := itemFromValue(v)
	if befores == nil {
		return it, nil
	}
	if i >= len(befores) {
		return item{}, query.Errorf(query.IO, "plan %s: before-images do not match the items", token)
	}
	if it.before, err = query.Parse(befores[i]); err != nil {
		return item{}, query.Errorf(query.IO, "plan %s: unreadable before-image: %v", token, err)
	}
	if it.before.IsNull() {
		it.before = query.Value{}
	}
	return it, nil
}

// loadItems returns every item of a plan, without before-images.
func loadItems(tx *store.Tx, p *Plan) ([]item, error) {
	items := make([]item, 0, p.items)
	err := eachItem(tx, p.Token, false, func(it item) error {
		items = append(items, it)
		return nil
	})
	return items, err
}

// retire sets a plan's final status and drops its items: an applied plan's
// before-images live on in the journal.
func retire(tx *store.Tx, p *Plan, status string, now time.Time) error {
	b, err := planBucket(tx, p.Token)
	if err != nil {
		return err
	}
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if k[0] == 'i' || k[0] == 'b' {
			keys = append(keys, append([]byte(nil), k...))
		}
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	p.Status, p.StatusTime = status, now
	return saveHeader(tx, p)
}

// expireOld retires every pending plan past its expiry, so abandoned plans
// do not keep their documents in the file. It runs whenever a plan is made.
func expireOld(tx *store.Tx, now time.Time) error {
	root, err := tx.Bucket(bucketPlans)
	if err != nil || root == nil {
		return err
	}
	var old []*Plan
	err = root.ForEachBucket(func(k []byte) error {
		p, err := decodeHeader(string(k), root.Bucket(k).Get(keyHeader))
		if err != nil {
			return err
		}
		if p.status(now) == StatusExpired {
			old = append(old, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range old {
		if err := retire(tx, p, StatusExpired, p.Expires); err != nil {
			return err
		}
	}
	return nil
}

// allPlans returns every plan header, oldest first (tokens are ObjectIds,
// which sort by creation time).
func allPlans(tx *store.Tx) ([]*Plan, error) {
	root, err := tx.Bucket(bucketPlans)
	if err != nil || root == nil {
		return nil, err
	}
	var plans []*Plan
	err = root.ForEachBucket(func(k []byte) error {
		p, err := decodeHeader(string(k), root.Bucket(k).Get(keyHeader))
		if err == nil {
			plans = append(plans, p)
		}
		return err
	})
	return plans, err
}
