package mcpserver

import (
	"context"
	"strings"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// maxBytesParam lets an agent lower the byte cap of one result: the cap
// is the smaller of it and --max-bytes, which it can never raise. Every
// tool that returns documents or other long lists takes it; it has no
// description in tools/list, where its name says enough and 13 of them
// would cost about 100 tokens (docs/mcp.md explains it).
var maxBytesParam = param{Name: "max_bytes", Type: "integer", Min: i64(100)}

// maxBytes is the byte cap of the call's result: --max-bytes, or the
// call's max_bytes argument when it is lower.
func (c *call) maxBytes() int {
	max := c.srv.cfg.MaxBytes
	if n := c.int("max_bytes", int64(max)); n < int64(max) {
		return int(n)
	}
	return max
}

// indexCheck refuses, under --index-check, a query whose plan reads the
// whole collection, as mongodb-mcp-server's indexCheck does, naming the
// index that would serve it. The plan checked is the planner's own, as
// explain shows it: a redacting query scans anyway, but whether an index
// could serve the query shape is what the operator asked to enforce. A
// count without a filter reads no document and passes.
func (c *call) indexCheck(ctx context.Context, col *store.Collection, q store.Query, count bool) error {
	if !c.srv.cfg.IndexCheck || (count && q.Filter == nil) || col.Count() == 0 {
		return nil
	}
	plan, err := col.Explain(ctx, store.Query{Filter: q.Filter, Sort: q.Sort}, &store.ExplainOptions{Count: count})
	if err != nil {
		return err
	}
	if usesIndex(plan.Get("winningPlan")) {
		return nil
	}
	e := errorf(CodePolicyDenied, "index check failed: this query on `%s` would scan the whole collection (COLLSCAN), and this server runs with --index-check", col.Name()).
		withNext("suggest_indexes", "explain").withContext("collection", col.Name())
	if serve := c.servingIndex(ctx, col, q); serve != "" {
		return e.withHint("an index would serve it: %s (create_index, or ask the user to); or filter on an indexed field (list_indexes)", serve)
	}
	return e.withHint("filter on an indexed field (list_indexes shows them), or ask the user for an index")
}

// usesIndex reports whether a winning plan's stage tree reads an index.
func usesIndex(stage value.Value) bool {
	for ; stage.Kind() == value.Object; stage = stage.Get("inputStage") {
		if s := stage.Get("stage").Str(); s == "IXSCAN" || s == "COUNT_SCAN" {
			return true
		}
	}
	return false
}

// servingIndex names the index suggest_indexes would propose for q, as
// its key pattern, or "" when none would help or the collection has
// redacted fields (its estimates read documents unredacted).
func (c *call) servingIndex(ctx context.Context, col *store.Collection, q store.Query) string {
	if c.redactor(col.Name()) != nil {
		return ""
	}
	s, err := col.SuggestIndexes(ctx, store.Query{Filter: q.Filter, Sort: q.Sort})
	if err != nil || len(s.Suggestions) == 0 {
		return ""
	}
	return strings.TrimSpace(string(s.Suggestions[0].Key))
}
