package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) findTool() *tool {
	return &tool{
		Name: "find", Title: "Find documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Find documents of a collection matching a MongoDB filter, in _id order",
			"(for now: equality on fields and dotted paths; arrays match any element). Call describe first; keep limit small.",
			"A capped result has applied_limits, matched (the total) and a cursor: pass it with the same arguments for the next page.",
			"An empty result says why in empty_reason. Example:",
			s.example("collection", "users", "filter", obj("address.city", "Paris"), "limit", 10)),
		Params: []param{s.pathParam(), collectionParam, filterParam, limitParam, skipParam, cursorParam},
		Output: outputSchema([]string{"documents", "returned", "matched"},
			"collection", tStr(), "documents", tArr(tObj()), "returned", tInt(), "matched", tInt(),
			"applied_limits", tObj(), "cursor", tStr(), "empty_reason", tStr(), "redacted", tArr(tStr())),
		Run: runFind,
	}
}

func runFind(ctx context.Context, c *call) (*output, error) {
	filter, err := compileFilter(c.value("filter"))
	if err != nil {
		return nil, err
	}
	coll := c.str("collection")
	return c.find(ctx, findQuery{coll: coll, spec: c.value("filter"), filter: filter,
		key: obj("tool", "find", "path", c.storePath(), "collection", coll, "filter", c.value("filter"))})
}

// findQuery is a find as find and the canned tools run it.
type findQuery struct {
	coll   string
	spec   query.Value   // the filter as given, for empty_reason
	filter *query.Filter // nil: every document
	reject *query.Filter // a canned tool's reject filter, or nil
	key    query.Value   // what a cursor of this query is bound to
}

func (c *call) find(ctx context.Context, fq findQuery) (*output, error) {
	skip := c.int("skip", 0)
	if cur := c.str("cursor"); cur != "" {
		if c.has("skip") {
			return nil, errorf(CodeInvalidArgument, "give either skip or cursor, not both").withContext("argument", "skip")
		}
		var err error
		if skip, err = c.srv.openCursor(cur, fq.key); err != nil {
			return nil, err
		}
	}
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var out *output
	err = db.View(func(tx *store.Tx) error {
		col, err := c.collection(tx, fq.coll)
		if err != nil {
			return err
		}
		src := c.scan(ctx, col, fq.filter)
		if fq.reject != nil {
			src = &rejectSource{Source: src, reject: fq.reject, tool: c.tool.Name}
		}
		defer src.Close()
		pg, err := c.readPage(ctx, src, skip, c.int("limit", 100))
		if err != nil {
			return err
		}
		out = c.findOutput(ctx, col, fq, skip, pg)
		return nil
	})
	return out, err
}

func (c *call) findOutput(ctx context.Context, col *store.Collection, fq findQuery, skip int64, pg *page) *output {
	returned := int64(len(pg.docs))
	cursor, reason := query.MissingValue, query.MissingValue
	if skip+returned < pg.matched {
		cursor = jv(c.srv.newCursor(fq.key, skip+returned))
	}
	if returned == 0 {
		reason = jv(emptyReason(ctx, c, col, fq.spec, skip, pg.matched))
	}
	limits := query.MissingValue
	if len(pg.limits) > 0 {
		limits = query.ObjectValue(pg.limits)
	}
	redacted := query.MissingValue
	if names := c.srv.policy.redactedNames(col.Name()); len(names) > 0 {
		redacted = jv(names)
	}
	out := newOutput(obj("collection", col.Name(), "documents", pg.docs, "returned", returned, "matched", pg.matched,
		"applied_limits", limits, "cursor", cursor, "empty_reason", reason, "redacted", redacted))
	out.fence = "documents of `" + col.Name() + "`"
	out.returned, out.matched = returned, pg.matched
	return out
}

func (s *Server) countTool() *tool {
	return &tool{
		Name: "count", Title: "Count documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Count the documents of a collection matching a MongoDB filter (all without one);",
			"cheaper than find when only the number matters. Example:",
			s.example("collection", "users", "filter", obj("active", true))),
		Params: []param{s.pathParam(), collectionParam, filterParam},
		Output: outputSchema([]string{"count"}, "collection", tStr(), "count", tInt()),
		Run:    runCount,
	}
}

func runCount(ctx context.Context, c *call) (*output, error) {
	filter, err := compileFilter(c.value("filter"))
	if err != nil {
		return nil, err
	}
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var n int64
	err = db.View(func(tx *store.Tx) error {
		col, err := c.collection(tx, c.str("collection"))
		if err != nil {
			return err
		}
		if filter == nil {
			n = col.Count()
			return nil
		}
		src := c.scan(ctx, col, filter)
		defer src.Close()
		for src.Next() {
			n++
		}
		return src.Err()
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", c.str("collection"), "count", n))
	out.matched = n
	return out, nil
}
