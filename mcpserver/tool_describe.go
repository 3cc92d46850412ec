package mcpserver

import (
	"context"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Schema inference: describe reads the first `sample` documents of each
// collection (in _id order, redacted) and reports every field path (into
// nested objects and arrays of objects, three levels deep, at most
// maxFields per collection) with the types seen and how many sampled
// documents have it, plus the first document as a sample, its strings cut
// at sampleString characters.
const (
	maxFields    = 100
	sampleString = 256
)

func (s *Server) describeTool() *tool {
	return &tool{
		Name: "describe", Title: "Describe a store", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: "A store's collections with counts, fields (dotted paths, types, presence) and a sample document. Call this first.",
		Params: []param{s.pathParam(),
			{Name: "collection", Type: "string", Description: "Only this collection."},
			{Name: "sample", Type: "integer", Description: "Documents to sample per collection.", Min: i64(1), Max: i64(MaxLimit), Default: value.LongValue(100)}, maxBytesParam},
		Output: outputSchema([]string{"store", "collections"}, "store", tStr(),
			"collections", tList()), // of {name, count, sampled, fields, sample}: docs/mcp.md
		Run: runDescribe,
	}
}

func runDescribe(ctx context.Context, c *call) (*output, error) {
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var colls []value.Value
	err = db.View(func(tx *store.Tx) error {
		names := c.srv.policy.collections(tx)
		if one := c.str("collection"); one != "" {
			if _, err := c.collection(tx, one); err != nil {
				return err
			}
			names = []string{one}
		}
		for _, name := range names {
			col, err := tx.Collection(name)
			if err != nil {
				return err
			}
			info, err := c.describeCollection(ctx, col, int(c.int("sample", 100)))
			if err != nil {
				return err
			}
			colls = append(colls, info)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c.describeOutput(colls)
}

// describeOutput fits the description within --max-bytes: samples go
// first; what still does not fit is an error.
func (c *call) describeOutput(colls []value.Value) (*output, error) {
	data, max := obj("store", c.storePath(), "collections", colls), c.maxBytes()
	if size := len(encodeJSON(nil, data)); size > max {
		for i, col := range colls {
			colls[i] = col.Without("sample")
		}
		data = obj("store", c.storePath(), "collections", colls, "applied_limits", obj("max_bytes", max))
		if size = len(encodeJSON(nil, data)); size > max {
			return nil, errorf(CodeLimitExceeded, "the description is %d bytes, over the %d-byte result limit (--max-bytes)", size, max).
				withHint("describe one collection at a time with the collection argument")
		}
	}
	out := newOutput(data)
	out.fence = "store description (field names and sample documents)"
	out.returned = int64(len(colls))
	return out, nil
}

type fieldStat struct {
	types   map[string]int
	present int
}

func (c *call) describeCollection(ctx context.Context, col *store.Collection, sample int) (value.Value, error) {
	src := c.scan(ctx, col, store.Query{})
	defer src.Close()
	return c.describeDocs(col.Name(), col.Count(), src, sample)
}

// describeDocs describes a collection of count documents from the first
// sample documents of src, redacted.
func (c *call) describeDocs(name string, count int64, src agg.Source, sample int) (value.Value, error) {
	stats := map[string]*fieldStat{}
	n := 0
	sampleDoc := value.MissingValue
	for n < sample && src.Next() {
		doc := src.Doc()
		if n == 0 {
			sampleDoc, _ = truncateStrings(doc, sampleString)
		}
		n++
		seen := map[string]bool{}
		observeFields(doc, "", 0, stats, seen)
	}
	if err := src.Err(); err != nil {
		return value.Value{}, err
	}
	fields, cut := fieldList(stats)
	cutV := value.MissingValue
	if cut {
		cutV = jv(true)
	}
	redacted := value.MissingValue
	if names := c.srv.policy.redactedNames(name); len(names) > 0 {
		redacted = jv(names)
	}
	return obj("name", name, "count", count, "sampled", n, "fields", fields,
		"fields_cut", cutV, "sample", sampleDoc, "redacted", redacted), nil
}

// observeFields counts the fields of one document; seen keeps a path from
// counting twice for one document (through arrays).
func observeFields(v value.Value, prefix string, depth int, stats map[string]*fieldStat, seen map[string]bool) {
	if depth > 2 {
		return
	}
	for _, f := range v.Fields() {
		p := f.Key
		if prefix != "" {
			p = prefix + "." + f.Key
		}
		st := stats[p]
		if st == nil {
			if len(stats) >= 10*maxFields {
				continue
			}
			st = &fieldStat{types: map[string]int{}}
			stats[p] = st
		}
		st.types[f.Value.TypeName()]++
		if !seen[p] {
			seen[p] = true
			st.present++
		}
		switch f.Value.Kind() {
		case value.Object:
			observeFields(f.Value, p, depth+1, stats, seen)
		case value.Array:
			for _, e := range f.Value.Array() {
				observeFields(e, p, depth+1, stats, seen)
			}
		}
	}
}

// fieldList returns the fields sorted by path, each with its types (most
// frequent first), at most maxFields of them.
func fieldList(stats map[string]*fieldStat) ([]value.Value, bool) {
	paths := make([]string, 0, len(stats))
	for p := range stats {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	cut := len(paths) > maxFields
	if cut {
		paths = paths[:maxFields]
	}
	out := make([]value.Value, len(paths))
	for i, p := range paths {
		st := stats[p]
		types := make([]string, 0, len(st.types))
		for t := range st.types {
			types = append(types, t)
		}
		sort.Slice(types, func(a, b int) bool {
			if st.types[types[a]] != st.types[types[b]] {
				return st.types[types[a]] > st.types[types[b]]
			}
			return strings.Compare(types[a], types[b]) < 0
		})
		out[i] = obj("field", p, "types", types, "present", st.present)
	}
	return out, cut
}
