package mcpserver

import (
	"context"
	"math"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) aggregateTool() *tool {
	return &tool{
		Name: "aggregate", Title: "Aggregate documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Run a MongoDB aggregation pipeline (not $out or $merge).",
			"Capped like find. Example:",
			s.example("collection", "orders", "pipeline", arr(obj("$group", obj("_id", "$city", "n", obj("$sum", 1)))))),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "pipeline", Type: "array", Required: true, Description: "The stages (objects)."},
			limitParam, cursorParam, atParam, maxBytesParam, collationParam},
		Output: outputSchema([]string{"documents", "returned", "matched"}, "at", tObj(), "documents", tList(), "returned", tInt(), "matched", tInt(),
			"applied_limits", tObj(), "cursor", tStr(), "redacted", tArr(tStr())),
		Run: runAggregate,
	}
}

func runAggregate(ctx context.Context, c *call) (*output, error) {
	p, err := c.compilePipeline(c.value("pipeline"))
	if err != nil {
		return nil, err
	}
	coll := c.str("collection")
	if c.has("at") {
		return c.aggregateAt(ctx, coll, p, obj("tool", "aggregate", "path", c.storePath(), "collection", coll, "pipeline", c.value("pipeline")))
	}
	return c.aggregate(ctx, coll, p, nil, obj("tool", "aggregate", "path", c.storePath(), "collection", coll, "pipeline", c.value("pipeline"), "collation", c.value("collation")))
}

// compilePipeline compiles a pipeline with the collation argument, and
// keeps its spec, to compile it again with a collection's default
// collation (collatedPipeline).
func (c *call) compilePipeline(spec value.Value) (*agg.Pipeline, error) {
	coll, err := c.collation()
	if err != nil {
		return nil, err
	}
	p, err := agg.CompilePipeline(spec, &agg.PipelineOptions{Now: c.srv.cfg.Now(), Collation: coll})
	if err != nil && writes(spec) {
		te := asToolError(argError(err, "pipeline"), "", "")
		if c.srv.listed("plan_aggregate") {
			return nil, te.withHint("call plan_aggregate with this pipeline, show the user the plan, then apply its token").withNext("plan_aggregate")
		}
		return nil, te.withHint("writes go through plan_aggregate, which needs a read-write server; this one cannot write")
	}
	if err != nil {
		return nil, argError(err, "pipeline")
	}
	c.pipeline = spec
	return p, nil
}

// writes reports whether a pipeline has a $out or $merge stage.
func writes(spec value.Value) bool {
	for _, st := range spec.Array() {
		if st.Kind() == value.Object && (st.Has("$out") || st.Has("$merge")) {
			return true
		}
	}
	return false
}

// aggregate runs a pipeline over the collection as the agent sees it and
// returns one page of its results; it reads them all, to count them. A
// canned tool's reject filter refuses the call if any result matches it.
func (c *call) aggregate(ctx context.Context, coll string, p *agg.Pipeline, reject *query.Filter, key value.Value) (*output, error) {
	skip, err := c.offset(key)
	if err != nil {
		return nil, err
	}
	var out *output
	err = c.view(coll, func(tx *store.Tx, col *store.Collection) error {
		p, err := c.collatedPipeline(col, p, c.pipeline)
		if err != nil {
			return err
		}
		filter, sort, _, _ := p.Leading()
		if err := c.indexCheck(ctx, col, store.Query{Filter: filter, Sort: sort}, false); err != nil {
			return err
		}
		src := col.Aggregate(ctx, p, &store.AggregateOptions{Env: policyEnv{c: c, tx: tx}, Redact: c.redactor(col.Name())})
		if reject != nil {
			src = &rejectSource{Source: src, reject: reject, tool: c.tool.Name}
		}
		defer src.Close()
		pg, err := c.readAll(ctx, src, skip)
		if err != nil {
			return err
		}
		out = c.pageOutput(ctx, col, findQuery{key: key, pipelined: true}, skip, matchCount{n: pg.seen}, pg)
		return nil
	})
	return out, err
}

// readAll reads a page of an aggregate's results, then counts the rest:
// a pipeline's results are all read, for the count, in the one run.
func (c *call) readAll(ctx context.Context, src agg.Source, skip int64) (*page, error) {
	pg, err := c.readPage(ctx, src, skip, c.int("limit", 100))
	if err == nil && pg.more {
		_, err = pg.countOn(ctx, src, math.MaxInt64)
	}
	return pg, err
}

// policyEnv gives $lookup and $unionWith the other collections as the
// agent may see them: only visible collections, redacted.
type policyEnv struct {
	c  *call
	tx *store.Tx
}

func (e policyEnv) Collection(ctx context.Context, name string) (agg.Source, error) {
	col, err := e.c.collection(e.tx, name)
	if err != nil {
		return nil, err
	}
	return e.c.scan(ctx, col, store.Query{}), nil
}
