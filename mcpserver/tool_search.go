package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

var (
	fieldParam = param{Name: "field", Type: "string", Required: true, Description: "Text field (dotted path)."}
	queryParam = param{Name: "query", Type: "string", Required: true, Description: "What to look for.", MaxLength: 4096}
	kParam     = param{Name: "k", Type: "integer", Description: "Hits to return.", Min: i64(1), Max: i64(MaxLimit),
		Default: value.LongValue(vector.DefaultK)}
	hitsSchema = tList() // of {_id, score, document}: docs/mcp.md, not each tools/list
)

func (s *Server) vsearchTool() *tool {
	return &tool{
		Name: "vsearch", Title: "Semantic search", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Rank documents by similarity of a text field to a query (vector index, else",
			"embedded on the fly). Example:",
			s.example("collection", "notes", "field", "body", "query", "backup policy")),
		Params: []param{s.pathParam(), collectionParam, fieldParam, queryParam, kParam, filterParam, maxBytesParam},
		Output: outputSchema([]string{"hits"}, "hits", hitsSchema, "returned", tInt(),
			"index", tStr(), "note", tStr(), "applied_limits", tObj(), "redacted", tArr(tStr())),
		Run: runVsearch,
	}
}

func (s *Server) searchTool() *tool {
	return &tool{
		Name: "search", Title: "Full-text search", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("BM25 full-text search with the collection's search index; query takes words,",
			"\"phrases\", -exclusions, OR. Example:",
			s.example("collection", "notes", "query", "backup -tape")),
		Params: []param{s.pathParam(), collectionParam, queryParam, kParam, filterParam, maxBytesParam},
		Output: outputSchema([]string{"hits"}, "hits", hitsSchema, "returned", tInt(),
			"index", tStr(), "note", tStr(), "applied_limits", tObj(), "redacted", tArr(tStr())),
		Run: runSearch,
	}
}

func (s *Server) contextPackTool() *tool {
	return &tool{
		Name: "context_pack", Title: "Build a context pack", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("The chunks of a text field most relevant to a query, packed within a token budget,",
			"with citations. Example:",
			s.example("collection", "notes", "field", "body", "query", "backup policy", "budget", 1500)),
		Params: []param{s.pathParam(), collectionParam, fieldParam, queryParam,
			{Name: "budget", Type: "integer", Description: "Token budget.", Min: i64(1), Max: i64(vector.MaxBudget),
				Default: value.LongValue(vector.DefaultBudget)},
			filterParam},
		Output: outputSchema([]string{"chunks"}, "budget", tInt(),
			"used_tokens", tInt(), "chunks", tList(), "citations", tArr(tStr()), "omitted", tList(),
			"note", tStr(), "applied_limits", tObj(), "redacted", tArr(tStr())),
		Run: runContextPack,
	}
}

func runVsearch(ctx context.Context, c *call) (*output, error) {
	coll, field := c.str("collection"), c.str("field")
	return c.searchHits(ctx, func(col *store.Collection, f *query.Filter) (*vector.Result, error) {
		if c.srv.policy.overlapsRedacted(coll, field) {
			return nil, deniedRedactedField(coll, field, "searched")
		}
		return vector.VectorSearch(ctx, col, field, c.str("query"), &vector.SearchOptions{K: c.k(), Filter: f})
	})
}

func runSearch(ctx context.Context, c *call) (*output, error) {
	return c.searchHits(ctx, func(col *store.Collection, f *query.Filter) (*vector.Result, error) {
		// The search index holds the words of its fields: searching one
		// over a redacted field would test redacted values.
		for _, def := range col.Indexes() {
			if def.Kind != vector.KindSearch {
				continue
			}
			var spec vector.SearchSpec
			json.Unmarshal(def.Spec, &spec)
			for _, fld := range spec.Fields {
				if c.srv.policy.overlapsRedacted(col.Name(), fld) {
					return nil, deniedRedactedField(col.Name(), fld, "searched (the search index `"+def.Name+"` covers it)")
				}
			}
		}
		return vector.TextSearch(ctx, col, c.str("query"), &vector.SearchOptions{K: c.k(), Filter: f})
	})
}

// k is the number of hits asked for, within --max-docs.
func (c *call) k() int { return int(min(c.int("k", vector.DefaultK), int64(c.srv.cfg.MaxDocs))) }

// searchHits runs a search on a collection the agent may see and returns
// its hits, redacted and within the result caps.
func (c *call) searchHits(ctx context.Context, run func(*store.Collection, *query.Filter) (*vector.Result, error)) (*output, error) {
	coll := c.str("collection")
	var out *output
	err := c.view(coll, func(_ *store.Tx, col *store.Collection) error {
		f, err := c.engineFilter(ctx, col, c.value("filter"))
		if err != nil {
			return err
		}
		res, err := run(col, f)
		if err != nil {
			return err
		}
		out = c.hitsOutput(coll, res)
		return nil
	})
	return out, err
}

// hitsOutput is the result of a search: its hits, redacted and within the
// result caps.
func (c *call) hitsOutput(coll string, res *vector.Result, extra ...any) *output {
	red := c.redactor(coll)
	pg := &page{}
	for _, h := range res.Hits {
		doc := h.Doc
		if red != nil {
			doc = red(doc)
		}
		if c.add(pg, doc) {
			break
		}
	}
	hits := make([]value.Value, len(pg.docs))
	for i, d := range pg.docs {
		hits[i] = obj("_id", res.Hits[i].ID, "score", res.Hits[i].Score, "document", d)
	}
	limits := value.MissingValue
	if len(pg.limits) > 0 {
		limits = value.ObjectValue(pg.limits)
	}
	out := newOutput(obj(append([]any{"collection", coll, "hits", hits, "returned", len(hits), "index", omitEmpty(res.Index),
		"note", omitEmpty(res.Note), "applied_limits", limits, "redacted", c.redactedValue(coll)}, extra...)...))
	out.fence = "documents of `" + coll + "`"
	out.returned = int64(len(hits))
	return out
}

func runContextPack(ctx context.Context, c *call) (*output, error) {
	coll, field := c.str("collection"), c.str("field")
	var out *output
	err := c.view(coll, func(_ *store.Tx, col *store.Collection) error {
		if c.srv.policy.overlapsRedacted(coll, field) {
			return deniedRedactedField(coll, field, "packed")
		}
		f, err := c.engineFilter(ctx, col, c.value("filter"))
		if err != nil {
			return err
		}
		budget, limits := c.packBudget()
		pack, err := vector.Pack(ctx, col, field, c.str("query"), &vector.PackOptions{Budget: int(budget), Filter: f})
		if err != nil {
			return err
		}
		out = c.packOutput(coll, field, pack, limits)
		return nil
	})
	return out, err
}

// packBudget is the budget asked for, within --max-bytes, and the limit
// that cut it (missing when none did).
func (c *call) packBudget() (int64, value.Value) {
	budget := c.int("budget", vector.DefaultBudget)
	// About four characters a token: keep the pack within --max-bytes.
	if max := int64(c.srv.cfg.MaxBytes / 8); budget > max {
		return max, obj("max_bytes", c.srv.cfg.MaxBytes)
	}
	return budget, value.MissingValue
}

// packOutput is the result of a context pack of field.
func (c *call) packOutput(coll, field string, pack, limits value.Value) *output {
	// The chunks come from field only, which is not redacted.
	kv := []any{"collection", coll}
	for _, fl := range pack.Fields() {
		kv = append(kv, fl.Key, fl.Value)
	}
	out := newOutput(obj(append(kv, "applied_limits", limits, "redacted", c.redactedValue(coll))...))
	out.fence = "text of `" + coll + "." + field + "`"
	return out
}
