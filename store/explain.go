package store

import (
	"context"
	"math"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// ExplainOptions configures Explain.
type ExplainOptions struct {
	// Count explains counting the matches rather than finding them.
	Count bool
	// Execute runs the plan and adds what it read (executionStats).
	Execute bool
}

// Explain returns how the planner would run q, as a document (the JSON
// `omgdb explain` prints; see docs/explain.md):
//
//	{"collection","filter","sort","skip","limit","count",
//	 "winningPlan":{stage tree},
//	 "sortBy":"index"|"memory",
//	 "rejectedPlans":[{"stage","indexName","keyPattern","estimatedKeys","estimatedCost","reason"}],
//	 "unusableIndexes":[{"indexName","reason"}],
//	 "executionStats":{"nReturned","totalKeysExamined","totalDocsExamined","executionTimeMillis"}}
//
// The stage tree follows MongoDB's: COLLSCAN, or FETCH over IXSCAN (with
// the index bounds and the estimated keys in them), under SORT when the
// sort is done in memory, SKIP and LIMIT, and for a count COUNT over
// COUNT_SCAN when the index alone answers it.
func (c *Collection) Explain(ctx context.Context, q Query, opts *ExplainOptions) (value.Value, error) {
	if opts == nil {
		opts = &ExplainOptions{}
	}
	if opts.Count {
		q = Query{Filter: q.Filter, Hint: q.Hint}
	}
	near, err := c.explainNear(&q, opts.Count)
	if err != nil {
		return value.Value{}, err
	}
	ch, err := c.planQuery(q, opts.Count)
	if err != nil {
		return value.Value{}, err
	}
	ch.plan.near = near
	fields := []value.Field{{Key: "collection", Value: value.StringValue(c.name)}, {Key: "filter", Value: FilterValue(q.Filter)}}
	if coll := QueryCollation(q); coll != nil {
		fields = append(fields, value.Field{Key: "collation", Value: coll.Value()})
	}
	if q.sorted() {
		fields = append(fields, value.Field{Key: "sort", Value: sortValue(q.Sort.Keys())})
	}
	fields = appendNonZero(fields, "skip", q.Skip)
	fields = appendNonZero(fields, "limit", q.Limit)
	if opts.Count {
		fields = append(fields, value.Field{Key: "count", Value: value.BoolValue(true)})
	}
	fields = append(fields, value.Field{Key: "winningPlan", Value: c.stageTree(q, ch.plan, opts.Count)})
	if q.sorted() && !opts.Count {
		by := "memory"
		if ch.plan.sortGroup > 0 {
			by = "index"
		}
		fields = append(fields, value.Field{Key: "sortBy", Value: value.StringValue(by)})
	}
	fields = append(fields, value.Field{Key: "rejectedPlans", Value: plansValue(ch.rejected)})
	fields = append(fields, value.Field{Key: "unusableIndexes", Value: unusableValue(ch.unusable)})
	if opts.Execute {
		stats, err := c.executeStats(ctx, q, ch.plan, opts.Count)
		if err != nil {
			return value.Value{}, err
		}
		fields = append(fields, value.Field{Key: "executionStats", Value: stats})
	}
	return value.ObjectValue(fields), nil
}

func appendNonZero(fields []value.Field, key string, n int64) []value.Field {
	if n == 0 {
		return fields
	}
	return append(fields, value.Field{Key: key, Value: value.LongValue(n)})
}

// stageTree builds the winning plan's stages, innermost first.
func (c *Collection) stageTree(q Query, p *Plan, count bool) value.Value {
	filter := FilterValue(q.Filter)
	var tree value.Value
	switch {
	case p.Stage == "COLLSCAN":
		tree = obj("stage", str("COLLSCAN"), "filter", filter, "direction", str("forward"))
	case p.Stage == "TEXT":
		tree = p.textValue(filter, q.Redact != nil)
	case count && p.covered:
		tree = p.ixscanValue("COUNT_SCAN")
	default:
		tree = obj("stage", str("FETCH"), "filter", filter, "inputStage", p.ixscanValue("IXSCAN"))
	}
	if count {
		return obj("stage", str("COUNT"), "inputStage", tree)
	}
	if p.near != "" {
		tree = obj("stage", str("GEO_NEAR_2DSPHERE"), "key", str(p.near), "sortBy", str("distance"), "inputStage", tree)
	}
	if q.sorted() && p.sortGroup == 0 {
		tree = obj("stage", str("SORT"), "sortPattern", sortValue(q.Sort.Keys()), "type", str("in_memory"), "inputStage", tree)
	}
	if q.Skip > 0 {
		tree = obj("stage", str("SKIP"), "skipAmount", value.LongValue(q.Skip), "inputStage", tree)
	}
	if q.Limit > 0 {
		tree = obj("stage", str("LIMIT"), "limitAmount", value.LongValue(q.Limit), "inputStage", tree)
	}
	return tree
}

// ixscanValue describes an index scan stage.
func (p *Plan) ixscanValue(stage string) value.Value {
	dir := "forward"
	if p.reverse {
		dir = "backward"
	}
	var bounds []value.Field
	for _, fb := range p.Bounds() {
		ivs := make([]value.Value, len(fb.Intervals))
		for i, iv := range fb.Intervals {
			ivs[i] = str(iv)
		}
		bounds = append(bounds, value.Field{Key: fb.Field, Value: value.ArrayValue(ivs)})
	}
	return obj("stage", str(stage), "indexName", str(p.Index), "keyPattern", p.spec.KeyPattern(),
		"isMultiKey", value.BoolValue(p.multikey), "isUnique", value.BoolValue(p.spec.Unique),
		"isSparse", value.BoolValue(p.spec.Sparse), "direction", str(dir),
		"indexBounds", value.ObjectValue(bounds), "estimatedKeys", p.estValue())
}

// estValue is the estimated keys, or {"atLeast":n} when the count was cut
// short.
func (p *Plan) estValue() value.Value {
	if p.estCapped {
		return obj("atLeast", value.LongValue(p.estKeys))
	}
	return value.LongValue(p.estKeys)
}

func plansValue(plans []*Plan) value.Value {
	out := []value.Value{}
	for _, p := range plans {
		f := []value.Field{{Key: "stage", Value: str(p.Stage)}}
		if p.Stage == "IXSCAN" {
			f = append(f, value.Field{Key: "indexName", Value: str(p.Index)}, value.Field{Key: "keyPattern", Value: p.spec.KeyPattern()},
				value.Field{Key: "estimatedKeys", Value: p.estValue()})
		}
		f = append(f, value.Field{Key: "estimatedCost", Value: value.LongValue(int64(math.Round(p.cost)))},
			value.Field{Key: "reason", Value: str(p.why)})
		out = append(out, value.ObjectValue(f))
	}
	return value.ArrayValue(out)
}

func unusableValue(plans []*Plan) value.Value {
	out := []value.Value{}
	for _, p := range plans {
		f := []value.Field{{Key: "indexName", Value: str(p.Index)}}
		if p.spec != nil {
			f = append(f, value.Field{Key: "keyPattern", Value: p.spec.KeyPattern()})
		}
		out = append(out, value.ObjectValue(append(f, value.Field{Key: "reason", Value: str(p.why)})))
	}
	return value.ArrayValue(out)
}

// executeStats runs the plan and reports what it read.
func (c *Collection) executeStats(ctx context.Context, q Query, p *Plan, count bool) (value.Value, error) {
	start := time.Now()
	var returned, keys, docs int64
	if count && p.covered {
		n, k, err := p.countCovered(ctx)
		if err != nil {
			return value.Value{}, err
		}
		returned, keys = n, k
	} else {
		base := c.baseSource(ctx, q, p)
		src := c.wrap(ctx, q, p, base)
		for src.Next() {
			returned++
		}
		if err := src.Err(); err != nil {
			return value.Value{}, err
		}
		src.Close()
		switch b := base.(type) {
		case *ixSource:
			keys, docs = b.scan.keys, b.docs
		case *scanSource:
			docs = int64(b.n)
		}
	}
	ms := float64(time.Since(start).Microseconds()) / 1000
	return obj("nReturned", value.LongValue(returned), "totalKeysExamined", value.LongValue(keys),
		"totalDocsExamined", value.LongValue(docs), "executionTimeMillis", value.DoubleValue(ms)), nil
}

func str(s string) value.Value { return value.StringValue(s) }

// obj builds an object from alternating keys and values.
func obj(kv ...any) value.Value {
	fields := make([]value.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, value.Field{Key: kv[i].(string), Value: kv[i+1].(value.Value)})
	}
	return value.ObjectValue(fields)
}

func sortValue(keys []query.SortKey) value.Value {
	fields := make([]value.Field, len(keys))
	for i, k := range keys {
		dir := int64(1)
		if k.Desc {
			dir = -1
		}
		fields[i] = value.Field{Key: k.Path, Value: value.LongValue(dir)}
	}
	return value.ObjectValue(fields)
}

// FilterValue rebuilds a filter document from a compiled filter's
// predicates, merging the operators of each path: {"age":{"$gte":30,"$lt":40}}.
func FilterValue(f *query.Filter) value.Value {
	if f == nil {
		return value.ObjectValue(nil)
	}
	var fields []value.Field
	index := map[string]int{}
	for _, p := range f.Predicates() {
		if p.Path == "" {
			fields = append(fields, value.Field{Key: p.Op, Value: p.Operand})
			continue
		}
		ops := []value.Field{{Key: p.Op, Value: p.Operand}}
		if p.Op == "$regex" {
			ops = p.Operand.Fields()
		}
		i, seen := index[p.Path]
		if !seen {
			index[p.Path] = len(fields)
			fields = append(fields, value.Field{Key: p.Path, Value: value.ObjectValue(ops)})
			continue
		}
		merged := append(append([]value.Field(nil), fields[i].Value.Fields()...), ops...)
		fields[i].Value = value.ObjectValue(merged)
	}
	// A lone $eq is written as the value itself.
	for i, fl := range fields {
		if fl.Value.Kind() == value.Object && fl.Value.Len() == 1 && fl.Value.Fields()[0].Key == "$eq" && fl.Key[0] != '$' {
			v := fl.Value.Fields()[0].Value
			if v.Kind() != value.Object || v.Len() == 0 || v.Fields()[0].Key[0] != '$' {
				fields[i].Value = v
			}
		}
	}
	return value.ObjectValue(fields)
}
