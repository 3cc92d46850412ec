package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Serving an engine (Config.Engine, a MongoDB deployment) instead of store
// files. Read scope serves the tools of engineRuns; read-write and
// dangerous scope, with Config.Writer, also those of engineWriteRuns
// (engine_write.go, engine_schema.go) that the scope allows. Only those tools are listed and callable;
// every other tool's Run is nil, which the catalog never lists and admit
// refuses. Each read goes through
// engine.Redacting, so the redacted paths are removed by the first stage
// of the pipeline the server runs, before the caller's filter or stages;
// the collections a pipeline joins are checked against the collection
// policy before anything is sent; caps, cursors, fencing, the error
// envelope and the audit log are the server's own, as on a file. A call
// that would open a store file (a resource, a tool the engine has not)
// is refused by openStore.

// engineRuns are the tools an engine serves, by name.
var engineRuns = map[string]func(context.Context, *call) (*output, error){
	"describe": runDescribeEngine, "find": runFindEngine, "count": runCountEngine,
	"distinct": runDistinctEngine, "aggregate": runAggregateEngine, "list_indexes": runListIndexesEngine,
}

// checkEngineConfig refuses what a server over an engine cannot honour
// yet.
func (c *Config) checkEngineConfig() error {
	if c.Engine == nil {
		if c.Writer != nil || c.Past != nil {
			return errs.Errorf(errs.Usage, "mcp: Config.Writer or Config.Past needs Config.Engine")
		}
		return nil
	}
	refuse := func(what string) error {
		return errs.Errorf(errs.Usage, "%s does not work over MongoDB yet", what).
			WithHint("over MongoDB the MCP server serves the read tools and plans, at --scope read-write plan_update, plan_delete, plan_aggregate, apply, rollback, history, insert, insert_many, create_snapshot, plan_revert, create_collection, create_index and rename_collection, and at --scope dangerous drop_collection, drop_index and delete_snapshot (see `omgdb docs mongodb`); leave it out, or serve a store file")
	}
	switch {
	case c.Scope == ScopeRead && c.Writer != nil:
		return errs.Errorf(errs.Usage, "mcp: a read-scope server must not be handed Config.Writer")
	case c.Scope >= ScopeReadWrite && c.Writer == nil:
		return errs.Errorf(errs.Usage, "mcp: a %s server over an engine needs Config.Writer", c.Scope)
	case c.ToolsFile != "" || c.OnlyCanned:
		return refuse("--tools-file")
	case c.IndexCheck:
		return refuse("--index-check")
	case c.Store == "":
		return errs.Errorf(errs.Usage, "mcp: a server over an engine needs Config.Store to name it")
	}
	return nil
}

// useEngine points the tools at the engine: the tools of engineRuns run
// there, with the at argument only with Config.Past (usePast) and the
// collation argument passed to the server (engineReader); the others get
// no Run, so they are neither listed nor callable.
func (s *Server) useEngine(tools []*tool) {
	if s.cfg.Engine == nil {
		return
	}
	s.reader = engine.Redacting(s.cfg.Engine, s.policy.redactedPaths)
	s.useInspector()
	s.usePastFence()
	for _, t := range tools {
		t.Run = engineRuns[t.Name]
		if t.Name == "plans" && s.cfg.Plans == nil {
			t.Run = nil
		}
		s.useEngineWriter(t)
		s.useResume(t)
		s.useEngineHistory(t)
		s.usePrune(t)
		s.usePast(t)
		s.useEngineRetrieval(t)
	}
}

// redactedPaths returns the collection's redacted paths, dotted.
func (p *policy) redactedPaths(coll string) []string {
	var out []string
	for _, path := range p.redactions(coll) {
		out = append(out, strings.Join(path, "."))
	}
	return out
}

// notOnEngine is admit's refusal of a tool the engine does not serve.
func (s *Server) notOnEngine(name string) *toolError {
	return errorf(CodeNotFound, "tool `%s` is not yet supported over MongoDB", name).
		withHint("this server serves %s; the other tools need a store file (see omgdb://docs/mongodb)", strings.Join(s.listedNames(), ", ")).
		withContext("tool", name)
}

// engineCollection checks a call's path and the collection it names: the
// path, if given, must be the served one; the collection must be allowed
// by the policy and exist among the visible ones (a did-you-mean names
// only those).
func (c *call) engineCollection(ctx context.Context, name string) error {
	if err := c.enginePath(); err != nil {
		return err
	}
	if !c.srv.policy.collectionAllowed(name) {
		return deniedCollection(name)
	}
	names, err := c.engineCollections(ctx)
	if err != nil {
		return err
	}
	if !contains(names, name) {
		return c.missingCollection(name, names)
	}
	return nil
}

func (c *call) enginePath() error {
	if p := c.pathArg(); p != "" && p != c.srv.cfg.Store {
		return errorf(CodePathDenied, "this server serves only %s; path %s is refused", c.srv.cfg.Store, truncate(p, 200)).
			withHint("omit path").withContext("path", truncate(p, 200))
	}
	return nil
}

// engineCollections lists the collections the agent may see.
func (c *call) engineCollections(ctx context.Context) ([]string, error) {
	all, err := c.srv.reader.Collections(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(n string) bool { return !c.srv.policy.collectionAllowed(n) }), nil
}

// engineFind checks a find's filter, sort and project arguments with
// omgdb's compiler and returns the find.
func (c *call) engineFind() (*engine.Find, error) {
	q := &engine.Find{Filter: c.value("filter"), Sort: c.value("sort"), Projection: c.value("project")}
	if _, err := compileFilter(q.Filter); err != nil {
		return nil, err
	}
	if !q.Sort.IsMissing() {
		if _, err := query.CompileSort(q.Sort); err != nil {
			return nil, argError(err, "sort")
		}
	}
	if !q.Projection.IsMissing() {
		if _, err := query.CompileProjection(q.Projection); err != nil {
			return nil, argError(err, "project")
		}
	}
	return q, nil
}

func runFindEngine(ctx context.Context, c *call) (*output, error) {
	coll, spec := c.str("collection"), c.value("filter")
	q, err := c.engineFind()
	if err != nil {
		return nil, err
	}
	key := obj("tool", "find", "path", c.storePath(), "collection", coll, "filter", spec, "sort", q.Sort, "project", q.Projection, "at", c.value("at"), "collation", c.value("collation"))
	skip, err := c.offset(key)
	if err != nil {
		return nil, err
	}
	r, _, err := c.engineSource(ctx, coll)
	if err != nil {
		return nil, err
	}
	limit := c.int("limit", 100)
	q.Limit = c.countTo(skip, limit, -1)
	src := engine.Stream(ctx, func(ctx context.Context, each func(value.Value) error) error {
		return r.Find(ctx, coll, q, each)
	})
	defer src.Close()
	pg, err := c.readPage(ctx, src, skip, limit)
	if err != nil {
		return nil, err
	}
	matched, err := c.matched(ctx, src, pg, -1, q.Limit)
	if err != nil {
		return nil, err
	}
	return c.withEmptyReason(ctx, c.enginePage(coll, key, skip, matched, pg, false), coll, spec), nil
}

func runAggregateEngine(ctx context.Context, c *call) (*output, error) {
	coll, pipeline := c.str("collection"), c.value("pipeline")
	if _, err := c.compilePipeline(pipeline); err != nil {
		return nil, err
	}
	key := obj("tool", "aggregate", "path", c.storePath(), "collection", coll, "pipeline", pipeline, "at", c.value("at"), "collation", c.value("collation"))
	skip, err := c.offset(key)
	if err != nil {
		return nil, err
	}
	r, rev, err := c.engineSource(ctx, coll)
	if err != nil {
		return nil, err
	}
	if err := c.checkJoins(ctx, pipeline, rev); err != nil {
		return nil, err
	}
	src := engine.Stream(ctx, func(ctx context.Context, each func(value.Value) error) error {
		return r.Aggregate(ctx, coll, pipeline, each)
	})
	defer src.Close()
	pg, err := c.readAll(ctx, src, skip)
	if err != nil {
		return nil, err
	}
	return c.enginePage(coll, key, skip, matchCount{n: pg.seen}, pg, true), nil
}

// checkJoins refuses a pipeline that joins a collection the agent may not
// see: one the policy leaves out, and one that is not among the visible
// collections (missing, or system.… and omgdb.…, which MongoDB would
// otherwise let a $unionWith read), as on a file; at a revision (rev not
// nil), one that did not exist then.
func (c *call) checkJoins(ctx context.Context, pipeline value.Value, rev *engine.Revision) error {
	joined := engine.Joins(pipeline)
	for _, name := range joined {
		if !c.srv.policy.collectionAllowed(name) {
			return deniedCollection(name)
		}
	}
	if len(joined) == 0 {
		return nil
	}
	if rev != nil {
		for _, name := range joined {
			if err := c.hadCollection(ctx, name, *rev); err != nil {
				return err
			}
		}
		return nil
	}
	names, err := c.engineCollections(ctx)
	if err != nil {
		return err
	}
	for _, name := range joined {
		if !contains(names, name) {
			return c.missingCollection(name, names)
		}
	}
	return nil
}

// enginePage is the result of a find or aggregate page: as on a file,
// with an empty find's empty_reason told without the diagnose of a
// store file.
func (c *call) enginePage(coll string, key value.Value, skip int64, matched matchCount, pg *page, pipelined bool) *output {
	returned := int64(len(pg.js))
	cursor, reason := value.MissingValue, value.MissingValue
	if pg.more {
		cursor = jv(c.srv.newCursor(key, skip+returned))
	}
	switch {
	case returned > 0 || pipelined:
	case matched.n > 0:
		reason = jv(fmt.Sprintf("skip %d is past the %d matching documents", skip, matched.n))
	default:
		reason = jv("no document of `" + coll + "` matched the filter (the diagnose tool tells why, predicate by predicate)")
	}
	limits, redacted := value.MissingValue, value.MissingValue
	if len(pg.limits) > 0 {
		limits = value.ObjectValue(pg.limits)
	}
	if names := c.srv.policy.redactedNames(coll); len(names) > 0 {
		redacted = jv(names)
	}
	out := newOutput(obj("collection", coll, "documents", arr(), "returned", returned, "matched", matched.value(),
		"applied_limits", limits, "cursor", cursor, "empty_reason", reason, "redacted", redacted))
	out.docs = pg.js
	out.fence = "documents of `" + coll + "`"
	out.returned, out.matched = returned, matched
	return out
}

// filtered checks the collection and filter arguments of a count or
// distinct, and returns the reader to read it with.
func (c *call) filtered(ctx context.Context) (r engine.Reader, coll string, filter value.Value, err error) {
	coll, filter = c.str("collection"), c.value("filter")
	if _, err = compileFilter(filter); err == nil {
		r, _, err = c.engineSource(ctx, coll)
	}
	return r, coll, filter, err
}

func runCountEngine(ctx context.Context, c *call) (*output, error) {
	r, coll, filter, err := c.filtered(ctx)
	if err != nil {
		return nil, err
	}
	n, err := r.Count(ctx, coll, filter)
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", coll, "count", n))
	out.matched = matchCount{n: n}
	return out, nil
}

func runDistinctEngine(ctx context.Context, c *call) (*output, error) {
	reader, coll, filter, err := c.filtered(ctx)
	if err != nil {
		return nil, err
	}
	vals, err := reader.Distinct(ctx, coll, c.str("field"), filter)
	if err != nil {
		return nil, argError(err, "field")
	}
	return c.distinctOutput(coll, vals), nil
}

func runListIndexesEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	ixs, err := c.srv.reader.Indexes(ctx, coll)
	if err != nil {
		return nil, err
	}
	list := make([]value.Value, len(ixs))
	for i, ix := range ixs {
		list[i] = obj("name", ix.Name, "key", ix.Key, "unique", ix.Unique, "sparse", ix.Sparse)
	}
	out := newOutput(obj("collection", coll, "indexes", arr(list...)))
	out.fence = "indexes of `" + coll + "`"
	return out, nil
}

// runDescribeEngine describes the visible collections (or one) as on a
// file: the count, and the fields and sample of the first `sample`
// documents in _id order, redacted.
func runDescribeEngine(ctx context.Context, c *call) (*output, error) {
	names, err := c.engineTargets(ctx)
	if err != nil {
		return nil, err
	}
	var colls []value.Value
	for _, name := range names {
		n, err := c.srv.reader.Count(ctx, name, value.MissingValue)
		if err != nil {
			return nil, err
		}
		q := &engine.Find{Limit: c.int("sample", 100)}
		src := engine.Stream(ctx, func(ctx context.Context, each func(value.Value) error) error {
			return c.srv.reader.Find(ctx, name, q, each)
		})
		info, err := c.describeDocs(name, n, src, int(q.Limit))
		src.Close()
		if err != nil {
			return nil, err
		}
		colls = append(colls, info)
	}
	return c.describeOutput(colls)
}
