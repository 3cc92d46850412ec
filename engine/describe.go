package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Describe writes the Markdown manual of store.Describe for the
// collections of r, a database named name: for each collection its
// count, the fields of its first sample documents in _id order (every
// document when sample < 0, store.DefaultSchemaSample when 0), its first
// document, and its indexes' line (without _id_, as on a store file).
// What a store file adds and a Reader
// does not tell (other kinds of index) is left out; the validation rules
// are written when r is a RulesReader.
func Describe(ctx context.Context, w io.Writer, r Reader, name string, sample int) error {
	if sample == 0 {
		sample = store.DefaultSchemaSample
	}
	names, err := r.Collections(ctx)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	store.WriteDescribeHeading(bw, name, len(names))
	for _, coll := range names {
		if err := describeCollection(ctx, bw, r, coll, sample); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func describeCollection(ctx context.Context, w io.Writer, r Reader, coll string, sample int) error {
	n, err := r.Count(ctx, coll, value.MissingValue)
	if err != nil {
		return err
	}
	s, first, err := Schema(ctx, r, coll, n, sample, 2)
	if err != nil {
		return err
	}
	var js []byte
	if !first.IsMissing() {
		js = value.JSON(first.Without("_id"))
	}
	store.WriteCollectionDescription(w, s, js)
	ixs, err := r.Indexes(ctx, coll)
	if err != nil {
		return err
	}
	var infos []store.IndexInfo
	for _, ix := range ixs {
		if ix.Name != IDIndex.Name { // every collection has it; a store file does not list it
			infos = append(infos, store.IndexInfo{Name: ix.Name, Kind: store.BTreeKind, Key: value.AppendEJSON(nil, ix.Key, value.EJSONRelaxed), Unique: ix.Unique, Sparse: ix.Sparse})
		}
	}
	store.WriteIndexesLine(w, infos)
	if rr, ok := r.(RulesReader); ok {
		rules, err := rr.Rules(ctx, coll)
		if err != nil {
			return err
		}
		if rules != nil {
			fmt.Fprintf(w, "\nRules: `%s`\n", rules.Spec())
		}
	}
	return nil
}

// RulesReader is a Reader that keeps validation rules (the MongoDB
// engine keeps omgdb's): Describe writes them as a store file's.
type RulesReader interface {
	Rules(ctx context.Context, coll string) (*rules.Rules, error)
}

// Schema infers the fields of the first sample documents of coll in _id
// order (all when sample < 0), down to depth levels, as store's Schema
// does; documents is the collection's count. It returns the first
// document too (Missing when there is none).
func Schema(ctx context.Context, r Reader, coll string, documents int64, sample, depth int) (*store.Schema, value.Value, error) {
	q := &Find{}
	if sample > 0 {
		q.Limit = int64(sample)
	}
	first := value.MissingValue
	src := Stream(ctx, func(ctx context.Context, each func(value.Value) error) error {
		return r.Find(ctx, coll, q, func(doc value.Value) error {
			if first.IsMissing() {
				first = doc
			}
			return each(doc)
		})
	})
	defer src.Close()
	s, err := store.SchemaOf(ctx, coll, documents, src, sample, depth)
	return s, first, err
}
