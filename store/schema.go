package store

import (
	"context"
	"sort"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// DefaultSchemaSample is how many documents schema inference reads by
// default.
const DefaultSchemaSample = 1000

// Schema is what a sample of a collection's documents shows about its
// fields.
type Schema struct {
	Collection string        `json:"collection"`
	Documents  int64         `json:"documents"` // in the collection
	Sampled    int64         `json:"sampled"`   // documents read: the first ones in _id order
	Fields     []SchemaField `json:"fields"`    // sorted by path
}

// SchemaField is one field path seen in the sample.
type SchemaField struct {
	Path    string   `json:"path"`
	Types   []string `json:"types"`   // type names, in MongoDB's type order
	Present int64    `json:"present"` // sampled documents that have it
}

// Schema infers the fields of the collection from at most limit documents
// (all of them when limit <= 0), in _id order. Fields are reported down to
// depth levels of nesting (1: top-level fields only); a field inside an
// array of objects is reported under its dotted path (items.sku).
func (c *Collection) Schema(ctx context.Context, limit, depth int) (*Schema, error) {
	cur := c.Scan()
	return inferSchema(ctx, &Schema{Collection: c.name, Documents: c.count}, cur.Next, cur.Doc, cur.Err, limit, depth)
}

// SchemaOf infers the fields of the documents src gives, as Schema does
// for a collection of a store file: at most limit of them (all when limit
// <= 0), which should be the first in _id order. documents is the
// collection's count.
func SchemaOf(ctx context.Context, coll string, documents int64, src agg.Source, limit, depth int) (*Schema, error) {
	return inferSchema(ctx, &Schema{Collection: coll, Documents: documents}, src.Next, src.Doc, src.Err, limit, depth)
}

func inferSchema(ctx context.Context, s *Schema, next func() bool, doc func() value.Value, errf func() error, limit, depth int) (*Schema, error) {
	s.Fields = []SchemaField{}
	seen := map[string]*schemaAcc{}
	for (limit <= 0 || s.Sampled < int64(limit)) && next() {
		if s.Sampled%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d := doc()
		if err := errf(); err != nil {
			return nil, err
		}
		s.Sampled++
		docSeen := map[string]bool{}
		collectFields(d, "", depth, func(path string, v value.Value) {
			acc := seen[path]
			if acc == nil {
				acc = &schemaAcc{types: map[value.Kind]bool{}}
				seen[path] = acc
			}
			acc.types[v.Kind()] = true
			if !docSeen[path] {
				docSeen[path] = true
				acc.present++
			}
		})
	}
	if err := errf(); err != nil {
		return nil, err
	}
	for path, acc := range seen {
		s.Fields = append(s.Fields, SchemaField{Path: path, Types: acc.typeNames(), Present: acc.present})
	}
	sort.Slice(s.Fields, func(i, j int) bool { return s.Fields[i].Path < s.Fields[j].Path })
	return s, nil
}

type schemaAcc struct {
	types   map[value.Kind]bool
	present int64
}

// typeNames returns the kinds seen, in MongoDB's type order.
func (a *schemaAcc) typeNames() []string {
	var kinds []value.Kind
	for k := range a.types {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		ri, rj := kinds[i].Rank(), kinds[j].Rank()
		if ri != rj {
			return ri < rj
		}
		return kinds[i] < kinds[j]
	})
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return names
}

// collectFields calls fn for each field of obj (but _id at the top) down
// to depth levels, with its dotted path. Objects within arrays are looked
// into as their array's path.
func collectFields(obj value.Value, prefix string, depth int, fn func(string, value.Value)) {
	for _, f := range obj.Fields() {
		if prefix == "" && f.Key == "_id" {
			continue
		}
		path := f.Key
		if prefix != "" {
			path = prefix + "." + f.Key
		}
		fn(path, f.Value)
		if depth <= 1 {
			continue
		}
		switch f.Value.Kind() {
		case value.Object:
			collectFields(f.Value, path, depth-1, fn)
		case value.Array:
			for _, e := range f.Value.Array() {
				if e.Kind() == value.Object {
					collectFields(e, path, depth-1, fn)
				}
			}
		}
	}
}
