package store

import (
	"context"
	"math"
	"time"

	"github.com/omgdb/omgdb/query"
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
func (c *Collection) Explain(ctx context.Context, q Query, opts *ExplainOptions) (query.Value, error) {
	if opts == nil {
		opts = &ExplainOptions{}
	}
	if opts.Count {
		q = Query{Filter: q.Filter, Hint: q.Hint}
	}
	ch, err := c.planQuery(q, opts.Count)
	if err != nil {
		return query.Value{}, err
	}
	fields := []query.Field{{Key: "collection", Value: query.StringValue(c.name)}, {Key: "filter", Value: FilterValue(q.Filter)}}
	if q.sorted() {
		fields = append(fields, query.Field{Key: "sort", Value: sortValue(q.Sort.Keys())})
	}
	fields = appendNonZero(fields, "skip", q.Skip)
	fields = appendNonZero(fields, "limit", q.Limit)
	if opts.Count {
		fields = append(fields, query.Field{Key: "count", Value: query.BoolValue(true)})
	}
	fields = append(fields, query.Field{Key: "winningPlan", Value: c.stageTree(q, ch.plan, opts.Count)})
	if q.sorted() && !opts.Count {
		by := "memory"
		if ch.plan.sortGroup > 0 {
			by = "index"
		}
		fields = append(fields, query.Field{Key: "sortBy", Value: query.StringValue(by)})
	}
	fields = append(fields, query.Field{Key: "rejectedPlans", Value: plansValue(ch.rejected)})
	fields = append(fields, query.Field{Key: "unusableIndexes", Value: unusableValue(ch.unusable)})
	if opts.Execute {
		stats, err := c.executeStats(ctx, q, ch.plan, opts.Count)
		if err != nil {
			return query.Value{}, err
		}
		fields = append(fields, query.Field{Key: "executionStats", Value: stats})
	}
	return query.ObjectValue(fields), nil
}

func appendNonZero(fields []query.Field, key string, n int64) []query.Field {
	if n == 0 {
		return fields
	}
	return append(fields, query.Field{Key: key, Value: query.LongValue(n)})
}

// stageTree builds the winning plan's stages, innermost first.
func (c *Collection) stageTree(q Query, p *Plan, count bool) query.Value {
	filter := FilterValue(q.Filter)
	var tree query.Value
	switch {
	case p.Stage == "COLLSCAN":
		tree = obj("stage", str("COLLSCAN"), "filter", filter, "direction", str("forward"))
	case count && p.covered:
		tree = p.ixscanValue("COUNT_SCAN")
	default:
		tree = obj("stage", str("FETCH"), "filter", filter, "inputStage", p.ixscanValue("IXSCAN"))
	}
	if count {
		return obj("stage", str("COUNT"), "inputStage", tree)
	}
	if q.sorted() && p.sortGroup == 0 {
		tree = obj("stage", str("SORT"), "sortPattern", sortValue(q.Sort.Keys()), "type", str("in_memory"), "inputStage", tree)
	}
	if q.Skip > 0 {
		tree = obj("stage", str("SKIP"), "skipAmount", query.LongValue(q.Skip), "inputStage", tree)
	}
	if q.Limit > 0 {
		tree = obj("stage", str("LIMIT"), "limitAmount", query.LongValue(q.Limit), "inputStage", tree)
	}
	return tree
}

// ixscanValue describes an index scan stage.
func (p *Plan) ixscanValue(stage string) query.Value {
	dir := "forward"
	if p.reverse {
		dir = "backward"
	}
	var bounds []query.Field
	for _, fb := range p.Bounds() {
		ivs := make([]query.Value, len(fb.Intervals))
		for i, iv := range fb.Intervals {
			ivs[i] = str(iv)
		}
		bounds = append(bounds, query.Field{Key: fb.Field, Value: query.ArrayValue(ivs)})
	}
	return obj("stage", str(stage), "indexName", str(p.Index), "keyPattern", p.spec.KeyPattern(),
		"isMultiKey", query.BoolValue(p.multikey), "isUnique", query.BoolValue(p.spec.Unique),
		"isSparse", query.BoolValue(p.spec.Sparse), "direction", str(dir),
		"indexBounds", query.ObjectValue(bounds), "estimatedKeys", p.estValue())
}

// estValue is the estimated keys, or {"atLeast":n} when the count was cut
// short.
func (p *Plan) estValue() query.Value {
	if p.estCapped {
		return obj("atLeast", query.LongValue(p.estKeys))
	}
	return query.LongValue(p.estKeys)
}

func plansValue(plans []*Plan) query.Value {
	out := []query.Value{}
	for _, p := range plans {
		f := []query.Field{{Key: "stage", Value: str(p.Stage)}}
		if p.Stage == "IXSCAN" {
			f = append(f, query.Field{Key: "indexName", Value: str(p.Index)}, query.Field{Key: "keyPattern", Value: p.spec.KeyPattern()},
				query.Field{Key: "estimatedKeys", Value: p.estValue()})
		}
		f = append(f, query.Field{Key: "estimatedCost", Value: query.LongValue(int64(math.Round(p.cost)))},
			query.Field{Key: "reason", Value: str(p.why)})
		out = append(out, query.ObjectValue(f))
	}
	return query.ArrayValue(out)
}

func unusableValue(plans []*Plan) query.Value {
	out := []query.Value{}
	for _, p := range plans {
		f := []query.Field{{Key: "indexName", Value: str(p.Index)}}
		if p.spec != nil {
			f = append(f, query.Field{Key: "keyPattern", Value: p.spec.KeyPattern()})
		}
		out = append(out, query.ObjectValue(append(f, query.Field{Key: "reason", Value: str(p.why)})))
	}
	return query.ArrayValue(out)
}

// executeStats runs the plan and reports what it read.
func (c *Collection) executeStats(ctx context.Context, q Query, p *Plan, count bool) (query.Value, error) {
	start := time.Now()
	var returned, keys, docs int64
	if count && p.covered {
		n, k, err := p.countCovered(ctx)
		if err != nil {
			return query.Value{}, err
		}
		returned, keys = n, k
	} else {
		base := c.baseSource(ctx, q, p)
		src := c.wrap(q, p, base)
		for src.Next() {
			returned++
		}
		if err := src.Err(); err != nil {
			return query.Value{}, err
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
	return obj("nReturned", query.LongValue(returned), "totalKeysExamined", query.LongValue(keys),
		"totalDocsExamined", query.LongValue(docs), "executionTimeMillis", query.DoubleValue(ms)), nil
}

func str(s string) query.Value { return query.StringValue(s) }

// obj builds an object from alternating keys and values.
func obj(kv ...any) query.Value {
	fields := make([]query.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, query.Field{Key: kv[i].(string), Value: kv[i+1].(query.Value)})
	}
	return query.ObjectValue(fields)
}

func sortValue(keys []query.SortKey) query.Value {
	fields := make([]query.Field, len(keys))
	for i, k := range keys {
		dir := int64(1)
		if k.Desc {
			dir = -1
		}
		fields[i] = query.Field{Key: k.Path, Value: query.LongValue(dir)}
	}
	return query.ObjectValue(fields)
}

// FilterValue rebuilds a filter document from a compiled filter's
// predicates, merging the operators of each path: {"age":{"$gte":30,"$lt":40}}.
func FilterValue(f *query.Filter) query.Value {
	if f == nil {
		return query.ObjectValue(nil)
	}
	var fields []query.Field
	index := map[string]int{}
	for _, p := range f.Predicates() {
		if p.Path == "" {
			fields = append(fields, query.Field{Key: p.Op, Value: p.Operand})
			continue
		}
		ops := []query.Field{{Key: p.Op, Value: p.Operand}}
		if p.Op == "$regex" {
			ops = p.Operand.Fields()
		}
		i, seen := index[p.Path]
		if !seen {
			index[p.Path] = len(fields)
			fields = append(fields, query.Field{Key: p.Path, Value: query.ObjectValue(ops)})
			continue
		}
		merged := append(append([]query.Field(nil), fields[i].Value.Fields()...), ops...)
		fields[i].Value = query.ObjectValue(merged)
	}
	// A lone $eq is written as the value itself.
	for i, fl := range fields {
		if fl.Value.Kind() == query.Object && fl.Value.Len() == 1 && fl.Value.Fields()[0].Key == "$eq" && fl.Key[0] != '$' {
			v := fl.Value.Fields()[0].Value
			if v.Kind() != query.Object || v.Len() == 0 || v.Fields()[0].Key[0] != '$' {
				fields[i].Value = v
			}
		}
	}
	return query.ObjectValue(fields)
}
