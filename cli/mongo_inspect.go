package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mongoDescribe writes describe's Markdown manual of the database: the
// fields from the first --sample documents of each collection in _id
// order, read on the server.
func (e *env) mongoDescribe(ctx context.Context, opts *describeOptions) error {
	sample := opts.sample
	if sample == 0 {
		sample = -1
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		return engine.Describe(ctx, e.stdout, db, db.Target().DB, sample)
	})
}

// mongoInfo is inspect's JSON over MongoDB: the fields of a store file's
// that the server's dbStats and collStats have a counterpart for.
type mongoInfo struct {
	Path        string          `json:"path"`       // the deployment, credentials hidden
	Database    string          `json:"database"`   // its name
	SizeBytes   int64           `json:"size_bytes"` // dbStats totalSize: data and indexes on disk
	Collections []mongoCollInfo `json:"collections"`
}

type mongoCollInfo struct {
	Name      string            `json:"name"`
	Documents int64             `json:"documents"`  // collStats count
	DataBytes int64             `json:"data_bytes"` // collStats size
	Indexes   []mongoIndexBytes `json:"indexes"`
	Rules     json.RawMessage   `json:"rules,omitempty"` // omgdb's validation rules, when defined
}

// mongoIndexBytes is an index as `omgdb indexes` prints it over MongoDB,
// with its size from collStats indexSizes.
type mongoIndexBytes struct {
	mongoIndex
	SizeBytes int64 `json:"size_bytes"`
}

// mongoInspect prints the database's collections with their counts and
// sizes as the server reports them (dbStats, collStats).
func (e *env) mongoInspect(ctx context.Context, opts *inspectOptions) error {
	var info mongoInfo
	err := e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		var err error
		info, err = readMongoInfo(ctx, db)
		return err
	})
	if err != nil {
		return err
	}
	colls := make([]store.CollectionInfo, len(info.Collections))
	for i, c := range info.Collections {
		colls[i] = store.CollectionInfo{Name: c.Name, Documents: c.Documents, DataBytes: c.DataBytes, Rules: c.Rules}
		for _, ix := range c.Indexes {
			colls[i].Indexes = append(colls[i].Indexes, store.IndexInfo{Name: ix.Name, SizeBytes: ix.SizeBytes})
		}
	}
	header := fmt.Sprintf("database %s of %s (MongoDB, %s)", info.Database, info.Path, humanBytes(info.SizeBytes))
	return e.printInspect(opts.json, info, header, colls)
}

func readMongoInfo(ctx context.Context, db *mongoengine.DB) (mongoInfo, error) {
	info := mongoInfo{Path: db.Target().Redacted, Database: db.Target().DB, Collections: []mongoCollInfo{}}
	st, err := db.DBStats(ctx)
	if err != nil {
		return info, err
	}
	info.SizeBytes = engine.StatNumber(st.Get("totalSize"))
	names, err := db.Collections(ctx)
	if err != nil {
		return info, err
	}
	for _, name := range names {
		ci, err := readMongoColl(ctx, db, name)
		if err != nil {
			return info, err
		}
		info.Collections = append(info.Collections, ci)
	}
	return info, nil
}

func readMongoColl(ctx context.Context, db *mongoengine.DB, name string) (mongoCollInfo, error) {
	st, err := db.CollStats(ctx, name)
	if err != nil {
		return mongoCollInfo{}, err
	}
	cs := engine.CollStatsOf(name, st)
	ci := mongoCollInfo{Name: name, Documents: cs.Documents, DataBytes: cs.DataBytes, Indexes: []mongoIndexBytes{}}
	ixs, err := db.Indexes(ctx, name)
	if err != nil {
		return ci, err
	}
	r, err := db.Rules(ctx, name)
	if err != nil {
		return ci, err
	}
	if r != nil {
		ci.Rules = value.JSON(r.Spec())
	}
	sizes := st.Get("indexSizes")
	for _, ix := range ixs {
		ci.Indexes = append(ci.Indexes, mongoIndexBytes{mongoIndex{Name: ix.Name, Kind: "btree", Key: relaxed(ix.Key), Unique: ix.Unique, Sparse: ix.Sparse},
			engine.StatNumber(sizes.Get(ix.Name))})
	}
	return ci, nil
}
