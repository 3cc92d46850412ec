package mcpserver

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// collationParam is the optional collation of find, count, distinct,
// aggregate and explain: MongoDB's collation document. Without it, the collection's
// default collation (define) applies. It has no description, to keep the
// read-scope catalog within its token budget (TestCatalogSize): the name
// is MongoDB's, and docs/mcp.md describes it. planCollationParam is the
// plan tools', described.
var (
	collationParam     = param{Name: "collation", Type: "object"}
	planCollationParam = param{Name: "collation", Type: "object", Description: `String comparison, e.g. {"locale":"en","strength":2}; default the collection's.`}
)

// collation returns the collation argument (nil: none, or simple).
func (c *call) collation() (*collation.Collation, error) {
	coll, err := collation.Parse(c.value("collation"))
	if err != nil {
		return nil, argError(err, "collation")
	}
	return coll, nil
}

// defaultCollation returns the collection's default collation when the
// call gives no collation argument, else nil.
func (c *call) defaultCollation(col *store.Collection) *collation.Collation {
	if c.has("collation") {
		return nil
	}
	return col.DefaultCollation()
}

// compileFilterColl is compileFilter with a collation.
func compileFilterColl(spec value.Value, coll *collation.Collation) (*query.Filter, error) {
	if coll == nil {
		return compileFilter(spec)
	}
	if spec.IsMissing() || spec.Kind() == value.Object && spec.Len() == 0 {
		return nil, nil
	}
	f, err := query.CompileFilterCollation(spec, coll)
	if err != nil {
		return nil, filterError(err)
	}
	return f, nil
}

// collatedFilter returns filter, or spec compiled again with col's
// default collation when the call gives none and col has one.
func (c *call) collatedFilter(col *store.Collection, spec value.Value, filter *query.Filter) (*query.Filter, error) {
	dc := c.defaultCollation(col)
	if dc == nil {
		return filter, nil
	}
	return compileFilterColl(spec, dc)
}

// collatedFind is fq with col's default collation, when it applies.
func (c *call) collatedFind(col *store.Collection, fq findQuery) (findQuery, error) {
	dc := c.defaultCollation(col)
	if dc == nil {
		return fq, nil
	}
	f, err := compileFilterColl(fq.spec, dc)
	if err != nil {
		return fq, err
	}
	fq.filter, fq.sort = f, fq.sort.WithCollation(dc)
	return fq, nil
}

// collatedPipeline is p, or its spec compiled again with col's default
// collation, when it applies.
func (c *call) collatedPipeline(col *store.Collection, p *agg.Pipeline, spec value.Value) (*agg.Pipeline, error) {
	dc := c.defaultCollation(col)
	if dc == nil || spec.IsMissing() {
		return p, nil
	}
	q, err := agg.CompilePipeline(spec, &agg.PipelineOptions{Now: c.srv.cfg.Now(), Collation: dc})
	if err != nil {
		return nil, argError(err, "pipeline")
	}
	return q, nil
}
