package store

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/query/value"
)

// SuggestOptions is what SuggestIndexesSourced needs besides the
// documents: what the server says of the query and the collection.
type SuggestOptions struct {
	// Limit bounds the documents counted: the first Limit in _id order
	// (0: all).
	Limit int64
	// Current is how the query runs today (from the server's explain).
	Current CurrentPlan
	// Indexes are the collection's indexes: name and key pattern.
	Indexes []NamedIndex
	// Command returns the command that creates an index on fields.
	Command func(fields []IndexField) string
}

// NamedIndex is an index's name and key pattern ({"age":-1,"loc":"2dsphere"}).
type NamedIndex struct {
	Name string
	Key  value.Value
}

// SuggestIndexesSourced is SuggestIndexes over the documents of src, a
// collection named coll: the same ESR suggestions, each estimate a count
// asked of src (the documents matching the predicates an index would
// bound), against opts.Current.
func SuggestIndexesSourced(ctx context.Context, coll string, src DiagnoseSource, q Query, opts *SuggestOptions) (*Suggestions, error) {
	n, err := src.Documents(ctx)
	if err != nil {
		return nil, err
	}
	sg := &sourceSuggester{coll: coll, n: n, src: src, opts: opts, ctx: ctx}
	return suggestIndexes(ctx, sg, q)
}

type sourceSuggester struct {
	coll   string
	n      int64
	src    DiagnoseSource
	opts   *SuggestOptions
	ctx    context.Context
	schema *Schema
}

func (ss *sourceSuggester) name() string     { return ss.coll }
func (ss *sourceSuggester) documents() int64 { return ss.n }

func (ss *sourceSuggester) currentPlan(context.Context, Query) (CurrentPlan, error) {
	return ss.opts.Current, nil
}

// matcher counts each set of predicates once, on src.
func (ss *sourceSuggester) matcher(ctx context.Context, preds []pred) (*setCounts, error) {
	memo := map[uint64]int64{}
	return &setCounts{count: func(set uint64) (int64, error) {
		if n, ok := memo[set]; ok {
			return n, nil
		}
		var in []pred
		for i, p := range preds {
			if set&(1<<i) != 0 {
				in = append(in, p)
			}
		}
		n, err := ss.src.Count(ctx, []value.Value{predsValue(in)}, ss.opts.Limit)
		if err != nil {
			return 0, err
		}
		memo[set] = n[0]
		return n[0], nil
	}}, nil
}

func (ss *sourceSuggester) geoNote(path, op string) string {
	switch op {
	case "$geoWithin", "$within", "$geoIntersects", "$near", "$nearSphere":
	default:
		return ""
	}
	for _, ix := range ss.opts.Indexes {
		if ix.Key.Get(path).Str() == "2dsphere" {
			return fmt.Sprintf("%s on `%s` is served by the 2dsphere index `%s`", op, path, ix.Name)
		}
	}
	return fmt.Sprintf("%s on `%s` needs a 2dsphere index, not a B-tree one: %s", op, path,
		ss.opts.Command([]IndexField{{Path: path, Type: Geo2DSphere}}))
}

func (ss *sourceSuggester) hasArrays(path string) bool {
	if ss.schema == nil {
		src, err := ss.src.Sample(ss.ctx, DefaultSchemaSample)
		if err != nil {
			return true
		}
		s, err := SchemaOf(ss.ctx, ss.coll, ss.n, src, DefaultSchemaSample, 4)
		src.Close()
		if err != nil {
			return true
		}
		ss.schema = s
	}
	return schemaHasArray(ss.schema, path)
}

// btrees are the indexes whose every key is a direction.
func (ss *sourceSuggester) btrees() []namedKey {
	var out []namedKey
	for _, ix := range ss.opts.Indexes {
		var fields []IndexField
		for _, f := range ix.Key.Fields() {
			if !f.Value.IsNumber() {
				fields = nil
				break
			}
			fields = append(fields, IndexField{Path: f.Key, Desc: f.Value.Float() < 0})
		}
		if fields != nil {
			out = append(out, namedKey{ix.Name, fields})
		}
	}
	return out
}

func (ss *sourceSuggester) createCommand(fields []IndexField) string { return ss.opts.Command(fields) }
