package store

import (
	"fmt"
	"math"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
)

// The planner considers a collection scan and, for each B-tree index, a
// scan of the index ranges the filter allows. It counts the index entries
// in each candidate's ranges (up to estimateCap) and gives each candidate
// a cost in units of one document read in a collection scan:
//
//   - COLLSCAN reads every document: N.
//   - IXSCAN reads its keys (cheap, keyCost each) and fetches a document
//     per key (fetchCost each, as fetches jump around the file); a count
//     it covers fetches nothing.
//   - A sort the plan does not give costs sortCost per document sorted.
//   - When the plan gives the sort and there is a limit, it stops after
//     about skip+limit matches: its fetches shrink in proportion.
//
// The cheapest wins; ties go to the index whose name sorts first. When a
// candidate's count reaches the cap its size is unknown, and it is taken
// to cover a quarter of the collection (at least the cap).

const (
	keyCost   = 0.05
	fetchCost = 1.3
	sortCost  = 0.3
)

// choice is the planner's decision with the candidates it turned down.
type choice struct {
	plan     *Plan
	rejected []*Plan
	// unusable lists indexes that could not serve the query, with why.
	unusable []*Plan
}

// planQuery chooses how to run q; count says the result is only counted.
func (c *Collection) planQuery(q Query, count bool) (*choice, error) {
	if err := checkTextScore(q); err != nil {
		return nil, err
	}
	if q.Filter.Text() != nil {
		return c.planText(q)
	}
	var sortKeys []query.SortKey
	if q.sorted() {
		sortKeys = q.Sort.Keys()
	}
	conds, residual := conditions(q.Filter)
	n := float64(c.count)
	coll := &Plan{Stage: "COLLSCAN", cost: n}
	if q.Hint == "$natural" {
		coll.why = "hinted"
		return &choice{plan: coll}, nil
	}
	if q.Redact != nil {
		// Index bounds, order and covered counts see unredacted values.
		coll.why = "redacting query"
		return &choice{plan: coll}, nil
	}
	ch := &choice{}
	var viable []*Plan
	if q.Hint == "" || q.Hint == IDIndex {
		idConds, idResidual, idSort := condsFor(q, nil, conds, residual, sortKeys)
		if p, why := c.planID(idConds, idResidual, idSort); why == "" || q.Hint == IDIndex {
			viable = append(viable, p)
		}
	}
	for _, def := range c.Indexes() {
		if def.Kind != BTreeKind || (q.Hint != "" && q.Hint != def.Name) {
			continue
		}
		spec, _ := ParseBTreeSpec(def)
		ixConds, ixResidual, ixSort := conds, residual, sortKeys
		if spec != nil {
			ixConds, ixResidual, ixSort = condsFor(q, spec.Coll(), conds, residual, sortKeys)
		}
		if q.Hint == "" {
			if why := irrelevant(def, ixConds, ixSort); why != "" {
				if spec != nil && !collation.Equal(spec.Coll(), QueryCollation(q)) {
					why = collationMismatch
				}
				p := &Plan{Stage: "IXSCAN", Index: def.Name, why: why}
				p.spec, _ = ParseBTreeSpec(def)
				ch.unusable = append(ch.unusable, p)
				continue
			}
		}
		ix, err := c.openIndex(def)
		if err != nil {
			return nil, err
		}
		p, why := planIndex(ix, ixConds, ixResidual, ixSort)
		switch {
		case p == nil && q.Hint != "":
			return nil, errs.Errorf(errs.Invalid, "hint: index `%s` cannot answer this query: %s", def.Name, why).
				WithHint("drop the hint, or hint another index")
		case p == nil || (why != "" && q.Hint == ""):
			if p == nil {
				p = &Plan{Stage: "IXSCAN", Index: def.Name}
				if spec, err := ParseBTreeSpec(def); err == nil {
					p.spec = spec
				}
			}
			p.why = why
			ch.unusable = append(ch.unusable, p)
			continue
		}
		viable = append(viable, p)
	}
	if q.Hint != "" && len(viable) == 0 {
		return nil, c.hintNotFound(q.Hint)
	}
	for _, p := range viable {
		p.estimate(estimateCap)
	}
	c.costPlans(viable, coll, q, count, len(sortKeys) > 0)
	cands := viable
	if q.Hint == "" {
		cands = append(cands, coll)
	}
	sortPlans(cands)
	if w := cands[0]; w != coll && w.estCapped && !(count && w.covered) && q.Hint == "" {
		// The winner's size is unknown: count further, up to where fetching
		// would cost more than scanning the collection, and choose again.
		for _, p := range viable {
			if p.estCapped {
				p.estimate(int64(float64(c.count)/fetchCost) + 1)
			}
		}
		c.costPlans(viable, coll, q, count, len(sortKeys) > 0)
		sortPlans(cands)
	}
	viable = cands
	ch.plan, ch.rejected = viable[0], viable[1:]
	explainChoice(ch)
	return ch, nil
}

// irrelevant says why an index cannot help, without opening it: the
// filter does not touch its first field and the sort none of its fields.
// It returns "" when the index is worth planning.
func irrelevant(def IndexDef, conds []fieldCond, sortKeys []query.SortKey) string {
	spec, err := ParseBTreeSpec(def)
	if err != nil {
		return ""
	}
	for _, c := range conds {
		if c.path == spec.Fields[0].Path || (spec.Sparse && fieldIndex(spec, c.path) >= 0) || (c.geo && spec.geoField(c.path) >= 0) {
			return ""
		}
	}
	for _, k := range sortKeys {
		if fieldIndex(spec, k.Path) >= 0 {
			return ""
		}
	}
	return "the filter does not restrict its first field `" + spec.Fields[0].Path + "`, nor can it give the sort"
}

func (c *Collection) hintNotFound(name string) error {
	names := []string{IDIndex}
	for _, d := range c.Indexes() {
		names = append(names, d.Name)
	}
	return wrap(errs.NotFound, ErrNotFound, "hint: no index `%s` on collection `%s`%s", name, c.name, errs.DidYouMean(name, names)).
		WithHint("list indexes with `omgdb indexes %s %s`, or hint $natural for a collection scan", c.tx.db.path, c.name)
}

// costPlans gives each plan, and the collection scan, its cost from the
// plans' estimated keys.
func (c *Collection) costPlans(plans []*Plan, coll *Plan, q Query, count, sorted bool) {
	n := float64(c.count)
	// Each plan's keys in bounds bound the number of matches from above.
	matches := n
	for _, p := range plans {
		if p != coll {
			matches = math.Min(matches, p.keys(n))
		}
	}
	matches = math.Max(matches, 1)
	need := float64(q.Skip + q.Limit)
	if count || q.Limit == 0 {
		need = 0
	}
	// A scan with a limit and no sort stops after about need matches.
	coll.cost = n
	if need > 0 && !sorted {
		coll.cost = math.Min(n, need*n/matches)
	}
	if sorted && !count {
		coll.cost += sortCost * matches
	}
	for _, p := range plans {
		if p == coll {
			continue
		}
		keys := p.keys(n)
		read, fetched := keys, keys
		switch {
		case count && p.covered:
			fetched = 0
		case need > 0 && (p.sortGroup > 0 || !sorted):
			// Stops after need matches; a fraction matches/keys of its
			// entries match. Without a sort, it still reads every key to
			// put the documents in _id order, unless index order is _id
			// order.
			fetched = math.Min(keys, need*keys/math.Min(matches, keys))
			if p.sortGroup > 0 || p.idOrder {
				read = fetched
			}
		}
		p.cost = keyCost*read + fetchCost*fetched
		if sorted && p.sortGroup == 0 && !count {
			p.cost += sortCost * fetched
		}
	}
}

// keys is the plan's estimated number of entries in bounds.
func (p *Plan) keys(n float64) float64 {
	if !p.estCapped {
		return float64(p.estKeys)
	}
	return math.Max(float64(p.estKeys), n/4)
}

// explainChoice writes why the winner won and each other plan lost.
func explainChoice(ch *choice) {
	w := ch.plan
	if w.why == "" {
		w.why = "lowest estimated cost"
	}
	for _, p := range ch.rejected {
		if fmtCost(p.cost) == fmtCost(w.cost) {
			p.why = fmt.Sprintf("estimated cost %s, the same as the winner's, which comes first by name", fmtCost(p.cost))
			continue
		}
		p.why = fmt.Sprintf("estimated cost %s, above the winner's %s", fmtCost(p.cost), fmtCost(w.cost))
	}
}

func fmtCost(f float64) string {
	if f < 10 {
		return fmt.Sprintf("%.2f", f)
	}
	return fmt.Sprintf("%.0f", f)
}
