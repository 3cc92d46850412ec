package store

import (
	"encoding/json"
	"time"
)

// Info describes a store, as `omgdb inspect` prints it.
type Info struct {
	Path        string           `json:"path"`
	Format      int              `json:"format"`
	StoreID     string           `json:"store_id"`
	Created     string           `json:"created"`
	SizeBytes   int64            `json:"size_bytes"`
	LastLSN     uint64           `json:"last_lsn"`
	Collections []CollectionInfo `json:"collections"`
}

// CollectionInfo describes one collection.
type CollectionInfo struct {
	Name      string          `json:"name"`
	Documents int64           `json:"documents"`
	DataBytes int64           `json:"data_bytes"` // bytes of B+tree pages in use for its documents
	Created   string          `json:"created"`
	Indexes   []IndexInfo     `json:"indexes"`
	Rules     json.RawMessage `json:"rules,omitempty"` // validation rules, when defined
}

// Info returns a description of the store.
func (db *DB) Info() (*Info, error) {
	info := &Info{Path: db.path, Format: db.Format(), SizeBytes: db.Size(), Collections: []CollectionInfo{}}
	err := db.View(func(tx *Tx) error {
		if m := tx.btx.Bucket(bucketMeta); m != nil {
			info.StoreID = string(m.Get(keyStoreID))
			info.Created = string(m.Get(keyCreated))
		}
		info.LastLSN = tx.LastLSN()
		if info.SizeBytes == 0 {
			// The path no longer names the file (the MCP server opens
			// through a /proc/self/fd link it closes): its size as this
			// transaction sees it.
			info.SizeBytes = tx.btx.Size()
		}
		for _, name := range tx.Collections() {
			c, err := tx.Collection(name)
			if err != nil {
				return err
			}
			st := c.docs.Stats()
			indexes, err := c.IndexInfos()
			if err != nil {
				return err
			}
			info.Collections = append(info.Collections, CollectionInfo{
				Indexes:   indexes,
				Rules:     c.meta.Rules,
				Name:      name,
				Documents: c.Count(),
				DataBytes: int64(st.LeafInuse + st.BranchInuse + st.InlineBucketInuse),
				Created:   c.meta.Created,
			})
		}
		return nil
	})
	return info, err
}

// CreatedTime parses a created timestamp of Info.
func CreatedTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
