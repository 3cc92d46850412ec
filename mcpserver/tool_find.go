package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) findTool() *tool {
	return &tool{
		Name: "find", Title: "Find documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Documents matching a MongoDB filter; keep limit small.",
			"Capped results give applied_limits, matched and a cursor; empty ones, empty_reason. Example:",
			s.example("collection", "users", "filter", obj("age", obj("$gte", 30)), "limit", 10)),
		Params: []param{s.pathParam(), collectionParam, filterParam,
			{Name: "sort", Type: "object", Description: "e.g. {\"age\":-1}; default _id."},
			{Name: "project", Type: "object", Description: "Fields, e.g. {\"name\":1}."},
			limitParam, skipParam, cursorParam, atParam, maxBytesParam, collationParam},
		Output: outputSchema([]string{"documents", "returned", "matched"}, "at", tObj(), "documents", tList(), "returned", tInt(), "matched", tMatched(),
			"applied_limits", tObj(), "cursor", tStr(), "empty_reason", tStr(), "redacted", tArr(tStr())),
		Run: runFind,
	}
}

func runFind(ctx context.Context, c *call) (*output, error) {
	fq := findQuery{coll: c.str("collection"), spec: c.value("filter")}
	coll, err := c.collation()
	if err != nil {
		return nil, err
	}
	if fq.filter, err = compileFilterColl(fq.spec, coll); err != nil {
		return nil, err
	}
	if v := c.value("sort"); !v.IsMissing() {
		if fq.sort, err = query.CompileSortCollation(v, coll); err != nil {
			return nil, argError(err, "sort")
		}
	}
	if v := c.value("project"); !v.IsMissing() {
		if fq.project, err = query.CompileProjection(v); err != nil {
			return nil, argError(err, "project")
		}
	}
	fq.key = obj("tool", "find", "path", c.storePath(), "collection", fq.coll, "filter", fq.spec,
		"sort", c.value("sort"), "project", c.value("project"), "collation", c.value("collation"))
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
		fq, err := c.collatedFind(col, fq)
		if err != nil {
			return err
		}
		if err := c.indexCheck(ctx, col, store.Query{Filter: fq.filter, Sort: fq.sort}, false); err != nil {
			return err
		}
		out, err = c.findIn(ctx, col, fq, skip)
		return err
	})
	return out, err
}

// findCountAhead bounds what a find counts past a full page: it reads on
// through at most this many further matches, without decoding them, and
// when more remain says "matched": {"at_least": N}. Counting every match
// could scan the whole collection for one page.
const findCountAhead = 1000

// matchCount is how many documents a find matched: exactly n, or at least
// n when counting stopped at findCountAhead.
type matchCount struct {
	n       int64
	atLeast bool
}

func (m matchCount) value() value.Value {
	if m.atLeast {
		return obj("at_least", m.n)
	}
	return value.LongValue(m.n)
}

// tMatched is the schema of a find's matched.
func tMatched() value.Value {
	return obj("type", []string{"integer", "object"}, "properties", obj("at_least", tInt()), "required", []string{"at_least"})
}

// findIn reads one page of a find and counts its matches in the same
// scan: exactly when the scan ends within the page and findCountAhead
// more, or when an index covers the filter; otherwise at least.
func (c *call) findIn(ctx context.Context, col *store.Collection, fq findQuery, skip int64) (*output, error) {
	known, err := c.knownCount(ctx, col, fq)
	if err != nil {
		return nil, err
	}
	limit := c.int("limit", 100)
	to := c.countTo(skip, limit, known)
	src := projected(ctx, c.scan(ctx, col, store.Query{Filter: fq.filter, Sort: fq.sort, Limit: to}), fq)
	defer src.Close()
	pg, err := c.readPage(ctx, src, skip, limit)
	if err != nil {
		return nil, err
	}
	if known < 0 && pg.more && c.redactor(col.Name()) == nil {
		// An index that covers the filter counts its entries, reading no
		// document. (A redacting query never uses an index.)
		n, ok, err := col.CountCovered(ctx, store.Query{Filter: fq.filter})
		if err != nil {
			return nil, err
		}
		if ok {
			known = n
		}
	}
	matched, err := c.matched(ctx, src, pg, known, to)
	if err != nil {
		return nil, err
	}
	return c.pageOutput(ctx, col, fq, skip, matched, pg), nil
}

// knownCount is a find's match count when it costs no scan of its own, or
// needs one anyway: every document without a filter; a canned tool's
// rejecting scan. Otherwise it is -1.
func (c *call) knownCount(ctx context.Context, col *store.Collection, fq findQuery) (int64, error) {
	switch {
	case fq.reject != nil:
		return c.countRejecting(ctx, col, fq.filter, fq.reject)
	case fq.filter == nil:
		return col.Count(), nil
	}
	return -1, nil
}

// countTo is how many results a find reads at most, skipped ones
// included: the page and the result after it when the count is known
// (>= 0), otherwise findCountAhead more.
func (c *call) countTo(skip, limit, known int64) int64 {
	max, _ := c.pageMax(limit)
	if known >= 0 {
		return skip + max + 1
	}
	return skip + max + findCountAhead
}

// matched is a find's match count: known (>= 0); every result when src
// ended within the page; otherwise counted on, up to to results, and
// then at least, which applied_limits tells as "count".
func (c *call) matched(ctx context.Context, src agg.Source, pg *page, known, to int64) (matchCount, error) {
	switch {
	case known >= 0:
		return matchCount{n: known}, nil
	case !pg.more:
		return matchCount{n: pg.seen}, nil
	}
	ended, err := pg.countOn(ctx, src, to)
	if !ended {
		pg.limits = append(pg.limits, value.Field{Key: "count", Value: value.LongValue(findCountAhead)})
	}
	return matchCount{n: pg.seen, atLeast: !ended}, err
}

// projected applies a find's projection to the documents a page keeps,
// as it reads them: skipped and counted results are never decoded.
func projected(ctx context.Context, src agg.Source, fq findQuery) agg.Source {
	if fq.project == nil {
		return src
	}
	return &projectSource{Source: src, ctx: ctx, p: fq.project, filter: fq.filter}
}

// projectSource projects the documents of a stream as Doc reads them.
type projectSource struct {
	agg.Source
	ctx    context.Context // stops a costly projection expression
	p      *query.Projection
	filter *query.Filter // for positional projections
	err    error
}

func (s *projectSource) Doc() value.Value {
	doc, err := s.p.ApplyContext(s.ctx, s.Source.Doc(), s.filter)
	if err != nil && s.err == nil {
		s.err = err
	}
	return doc
}

func (s *projectSource) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.Source.Err()
}

// pageOutput is the result of a find or an aggregate.
func (c *call) pageOutput(ctx context.Context, col *store.Collection, fq findQuery, skip int64, matched matchCount, pg *page) *output {
	returned := int64(len(pg.js))
	cursor, reason := value.MissingValue, value.MissingValue
	if pg.more {
		cursor = jv(c.srv.newCursor(fq.key, skip+returned))
	}
	if returned == 0 && !fq.pipelined {
		reason = jv(emptyReason(ctx, c, col, fq.spec, skip, matched.n))
	}
	limits := value.MissingValue
	if len(pg.limits) > 0 {
		limits = value.ObjectValue(pg.limits)
	}
	redacted := value.MissingValue
	if names := c.srv.policy.redactedNames(col.Name()); len(names) > 0 {
		redacted = jv(names)
	}
	out := newOutput(obj("collection", col.Name(), "documents", arr(), "returned", returned, "matched", matched.value(),
		"applied_limits", limits, "cursor", cursor, "empty_reason", reason, "redacted", redacted))
	out.docs = pg.js
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
		Description: "Count documents matching a MongoDB filter; cheaper than find.",
		Params:      []param{s.pathParam(), collectionParam, filterParam, atParam, collationParam},
		Output:      outputSchema([]string{"count"}, "count", tInt()),
		Run:         runCount,
	}
}

func runCount(ctx context.Context, c *call) (*output, error) {
	coll, err := c.collation()
	if err != nil {
		return nil, err
	}
	filter, err := compileFilterColl(c.value("filter"), coll)
	if err != nil {
		return nil, err
	}
	if c.has("at") {
		return runCountAt(ctx, c, filter)
	}
	var n int64
	err = c.view(c.str("collection"), func(_ *store.Tx, col *store.Collection) error {
		filter, err := c.collatedFilter(col, c.value("filter"), filter)
		if err != nil {
			return err
		}
		if err := c.indexCheck(ctx, col, store.Query{Filter: filter}, true); err != nil {
			return err
		}
		n, err = c.count(ctx, col, filter)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", c.str("collection"), "count", n))
	out.matched = matchCount{n: n}
	return out, nil
}
