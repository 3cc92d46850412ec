package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) findTool() *tool {
	return &tool{
		Name: "find", Title: "Find documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Documents matching a MongoDB filter, optionally sorted and projected; keep limit small.",
			"Capped results give applied_limits, matched and a cursor for the next page; empty ones, empty_reason. Example:",
			s.example("collection", "users", "filter", obj("age", obj("$gte", 30)), "limit", 10)),
		Params: []param{s.pathParam(), collectionParam, filterParam,
			{Name: "sort", Type: "object", Description: "e.g. {\"age\":-1}; default _id."},
			{Name: "project", Type: "object", Description: "Fields, e.g. {\"name\":1}."},
			limitParam, skipParam, cursorParam, atParam},
		Output: outputSchema([]string{"documents", "returned", "matched"},
			"at", tObj(), "documents", tList(), "returned", tInt(), "matched", tInt(),
			"applied_limits", tObj(), "cursor", tStr(), "empty_reason", tStr(), "redacted", tArr(tStr())),
		Run: runFind,
	}
}

func runFind(ctx context.Context, c *call) (*output, error) {
	fq := findQuery{coll: c.str("collection"), spec: c.value("filter")}
	var err error
	if fq.filter, err = compileFilter(fq.spec); err != nil {
		return nil, err
	}
	if v := c.value("sort"); !v.IsMissing() {
		if fq.sort, err = query.CompileSort(v); err != nil {
			return nil, argError(err, "sort")
		}
	}
	if v := c.value("project"); !v.IsMissing() {
		if fq.project, err = query.CompileProjection(v); err != nil {
			return nil, argError(err, "project")
		}
	}
	fq.key = obj("tool", "find", "path", c.storePath(), "collection", fq.coll, "filter", fq.spec,
		"sort", c.value("sort"), "project", c.value("project"))
	if c.has("at") {
		return c.findAt(ctx, fq)
	}
	return c.find(ctx, fq)
}

// findQuery is a find as find and the canned tools run it.
type findQuery struct {
	coll      string
	spec      value.Value       // the filter as given, for empty_reason
	filter    *query.Filter     // nil: every document
	sort      *query.Sort       // nil: _id order
	project   *query.Projection // nil: whole documents
	reject    *query.Filter     // a canned tool's reject filter, or nil
	key       value.Value       // what a cursor of this query is bound to
	pipelined bool              // an aggregate's results: no empty_reason
}

// offset returns where a page starts: skip, or the cursor's offset.
func (c *call) offset(key value.Value) (int64, error) {
	cur := c.str("cursor")
	if cur == "" {
		return c.int("skip", 0), nil
	}
	if c.has("skip") {
		return 0, errorf(CodeInvalidArgument, "give either skip or cursor, not both").withContext("argument", "skip")
	}
	return c.srv.openCursor(cur, key)
}

func (c *call) find(ctx context.Context, fq findQuery) (*output, error) {
	skip, err := c.offset(fq.key)
	if err != nil {
		return nil, err
	}
	var out *output
	err = c.view(fq.coll, func(_ *store.Tx, col *store.Collection) error {
		out, err = c.findIn(ctx, col, fq, skip)
		return err
	})
	return out, err
}

// findIn reads one page of a find, then counts every match unless the
// page shows the count already.
func (c *call) findIn(ctx context.Context, col *store.Collection, fq findQuery, skip int64) (*output, error) {
	matched := int64(-1)
	if fq.reject != nil {
		var err error
		if matched, err = c.countRejecting(ctx, col, fq.filter, fq.reject); err != nil {
			return nil, err
		}
	}
	limit := c.int("limit", 100)
	src := c.scan(ctx, col, store.Query{Filter: fq.filter, Sort: fq.sort, Projection: fq.project,
		Skip: skip, Limit: min(limit, int64(c.srv.cfg.MaxDocs)) + 1})
	defer src.Close()
	pg, err := c.readPage(ctx, src, 0, limit, false)
	if err != nil {
		return nil, err
	}
	if matched < 0 && !pg.more && (len(pg.docs) > 0 || skip == 0) {
		matched = skip + int64(len(pg.docs))
	} else if matched < 0 {
		if matched, err = c.count(ctx, col, fq.filter); err != nil {
			return nil, err
		}
	}
	return c.pageOutput(ctx, col, fq, skip, matched, pg), nil
}

// pageOutput is the result of a find or an aggregate.
func (c *call) pageOutput(ctx context.Context, col *store.Collection, fq findQuery, skip, matched int64, pg *page) *output {
	returned := int64(len(pg.docs))
	cursor, reason := value.MissingValue, value.MissingValue
	if pg.more {
		cursor = jv(c.srv.newCursor(fq.key, skip+returned))
	}
	if returned == 0 && !fq.pipelined {
		reason = jv(emptyReason(ctx, c, col, fq.spec, skip, matched))
	}
	limits := value.MissingValue
	if len(pg.limits) > 0 {
		limits = value.ObjectValue(pg.limits)
	}
	redacted := value.MissingValue
	if names := c.srv.policy.redactedNames(col.Name()); len(names) > 0 {
		redacted = jv(names)
	}
	out := newOutput(obj("collection", col.Name(), "documents", pg.docs, "returned", returned, "matched", matched,
		"applied_limits", limits, "cursor", cursor, "empty_reason", reason, "redacted", redacted))
	out.fence = "documents of `" + col.Name() + "`"
	out.returned, out.matched = returned, matched
	return out
}

// argError marks an argument's compile error as INVALID_ARGUMENT, naming
// the argument.
func argError(err error, name string) error {
	if errs.KindOf(err) != errs.Invalid {
		return err
	}
	e := asToolError(err, "", "")
	e.msg, e.context = name+": "+e.msg, obj("argument", name)
	return e
}

func (s *Server) countTool() *tool {
	return &tool{
		Name: "count", Title: "Count documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Count documents matching a MongoDB filter (all without one); cheaper than find",
			"for a number. Example:",
			s.example("collection", "users", "filter", obj("active", true))),
		Params: []param{s.pathParam(), collectionParam, filterParam, atParam},
		Output: outputSchema([]string{"count"}, "count", tInt()),
		Run:    runCount,
	}
}

func runCount(ctx context.Context, c *call) (*output, error) {
	filter, err := compileFilter(c.value("filter"))
	if err != nil {
		return nil, err
	}
	if c.has("at") {
		return runCountAt(ctx, c, filter)
	}
	var n int64
	err = c.view(c.str("collection"), func(_ *store.Tx, col *store.Collection) error {
		n, err = c.count(ctx, col, filter)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", c.str("collection"), "count", n))
	out.matched = n
	return out, nil
}
