package store

import (
	"bytes"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query"
)

// Plan is how a query runs: a scan of the whole collection (COLLSCAN) or
// of ranges of one index (IXSCAN), whose documents are then fetched and
// checked against the full filter.
type Plan struct {
	Stage string // "COLLSCAN" or "IXSCAN"
	Index string // IXSCAN: the index's name

	spec     *BTreeSpec
	bucket   *bolt.Bucket // the index's entries, or the documents for _id
	idIndex  bool         // the documents themselves, keyed by _id
	multikey bool         // some document had an array on an indexed path: dedupe
	spans    [][]span     // per index field, in its direction
	bounded  []bool       // per index field: the filter restricts it
	ranges   []keyRange
	check    []int // fields whose key components are checked against spans
	reverse  bool  // scan the ranges backwards

	// sortGroup > 0 when the index gives the requested order: entries whose
	// first sortGroup components are equal form a group, emitted in _id
	// order.
	sortGroup int
	// idOrder: every entry has the same field components (one point on
	// every field), so index order is _id order.
	idOrder bool
	// covered: a count can be answered from the index alone, counting
	// entries in bounds without fetching a document.
	covered bool

	// near is the path of the filter's $near, whose results a find sorts
	// by distance (geo.go); for explain.
	near string

	estKeys   int64 // entries in bounds, counted up to estimateCap
	estCapped bool
	cost      float64
	why       string // why it won or lost

	textFilter *query.Filter // TEXT: the filter bound to the text index
}

// keyRange is a range [lo, hi) of whole index entry keys; hi nil means
// unbounded.
type keyRange struct{ lo, hi []byte }

// maxPointPrefixes bounds how many equality combinations of a compound
// index ($in on several fields) are scanned as separate ranges.
const maxPointPrefixes = 4096

// estimateCap bounds how many index entries the planner counts to
// estimate a plan's size.
const estimateCap = 10_000

// planIndex builds the IXSCAN plan of one B-tree index for the filter's
// conditions and the requested sort, or returns nil with the reason it
// cannot serve the query.
func planIndex(ix *Index, conds []fieldCond, residual bool, sortKeys []query.SortKey) (*Plan, string) {
	t, err := btreeOf(ix)
	if err != nil {
		return nil, err.Error()
	}
	s := t.spec
	return planSpec(ix.Def.Name, s, ix.bucket, t.multikey, conds, residual, sortKeys)
}

// IDIndex is the name of the implicit index on _id: the documents
// themselves, stored by the key of their _id.
const IDIndex = "_id_"

var idSpec = &BTreeSpec{Fields: []IndexField{{Path: "_id"}}, Unique: true}

// planID builds the plan that scans the documents by _id.
func (c *Collection) planID(conds []fieldCond, residual bool, sortKeys []query.SortKey) (*Plan, string) {
	p, why := planSpec(IDIndex, idSpec, c.docs, 0, conds, residual, sortKeys)
	if p != nil {
		p.idIndex = true
	}
	return p, why
}

// planSpec builds the IXSCAN plan of an index with the given spec.
func planSpec(name string, s *BTreeSpec, bucket *bolt.Bucket, multikey uint64, conds []fieldCond, residual bool, sortKeys []query.SortKey) (*Plan, string) {
	multikey |= s.geoMask() // a geometry has many cells: always multikey
	p := &Plan{Stage: "IXSCAN", Index: name, spec: s, bucket: bucket, multikey: multikey != 0,
		spans: make([][]span, len(s.Fields)), bounded: make([]bool, len(s.Fields))}
	exists, covered := false, !residual && multikey == 0
	for i, f := range s.Fields {
		var mine []fieldCond
		for _, c := range conds {
			if c.path == f.Path && c.geo == (f.Type == Geo2DSphere) {
				exists = exists || c.exists
				mine = append(mine, c)
			}
		}
		p.spans[i], p.bounded[i] = fieldSpans(f, mine, multikey&(1<<i) != 0)
	}
	if why := geoUnusable(s, p.bounded); why != "" {
		return nil, why
	}
	for _, c := range conds {
		covered = covered && c.exact && fieldIndex(s, c.path) >= 0
	}
	if s.Sparse && !exists {
		return nil, "it is sparse, and the filter does not require any of its fields to exist"
	}
	p.covered = covered
	p.planSort(sortKeys, multikey)
	p.buildRanges()
	// A sparse index holds only the documents that have its fields: when
	// the filter requires them, scanning all of it still narrows the query.
	if !p.bounded[0] && p.sortGroup == 0 && !s.Sparse && !s.hasGeo() {
		return p, "the filter does not restrict its first field `" + s.Fields[0].Path + "`, nor can it give the sort"
	}
	return p, ""
}

// fieldSpans combines the bounds of the conditions on one field. On a
// field that is not multikey, a document has one value, which must satisfy
// every condition: their bounds intersect. On a multikey field, each
// condition may be met by a different element, so only the conditions
// one element must meet together ($elemMatch) intersect, and the bounds
// of one such group are used, preferring one made of points.
func fieldSpans(f IndexField, conds []fieldCond, multikey bool) ([]span, bool) {
	spans := []span{full.toSpan(f.Desc)}
	if !multikey {
		bounded := false
		for _, c := range conds {
			if c.bounded {
				spans, bounded = intersect(spans, c.spans(f.Desc)), true
			}
		}
		return spans, bounded
	}
	var best []span
	found := false
	groups := map[int][]span{}
	for i, c := range conds {
		if !c.bounded {
			continue
		}
		g := c.group
		if g == 0 {
			g = -1 - i
		}
		if prev, ok := groups[g]; ok {
			groups[g] = intersect(prev, c.spans(f.Desc))
		} else {
			groups[g] = c.spans(f.Desc)
		}
	}
	for i, c := range conds {
		g := c.group
		if g == 0 {
			g = -1 - i
		}
		cand, ok := groups[g]
		if ok && (!found || allPoints(cand) && !allPoints(best)) {
			best, found = cand, true
		}
	}
	if !found {
		return spans, false
	}
	return best, true
}

func (c fieldCond) spans(desc bool) []span {
	out := make([]span, 0, len(c.ranges))
	for _, r := range c.ranges {
		out = append(out, r.toSpan(desc))
	}
	return union(out)
}

func fieldIndex(s *BTreeSpec, path string) int {
	for i, f := range s.Fields {
		if f.Path == path {
			return i
		}
	}
	return -1
}

func isPoint(spans []span) bool { return len(spans) == 1 && spans[0].point }

// planSort finds whether scanning the index, forwards or backwards, gives
// the requested order: the sort's fields must follow one another in the
// index after fields fixed to one value, with all directions the same as
// the index's or all opposite, and none of them multikey.
func (p *Plan) planSort(keys []query.SortKey, multikey uint64) {
	if len(keys) == 0 {
		return
	}
	fields := p.spec.Fields
	for start := 0; start+len(keys) <= len(fields); start++ {
		if p.sortFrom(start, keys, multikey) {
			p.sortGroup = start + len(keys)
			return
		}
		if !isPoint(p.spans[start]) {
			return
		}
	}
}

func (p *Plan) sortFrom(start int, keys []query.SortKey, multikey uint64) bool {
	fields := p.spec.Fields
	reverse := fields[start].Desc != keys[0].Desc
	for k, key := range keys {
		f := fields[start+k]
		if f.Path != key.Path || (f.Desc != key.Desc) != reverse || multikey&(1<<(start+k)) != 0 {
			return false
		}
	}
	p.reverse = reverse
	return true
}

// buildRanges turns the per-field spans into ranges of entry keys: the
// leading fields fixed to points give prefixes, the first other field
// gives the ranges under each prefix, and later bounded fields are
// checked on each entry's key.
func (p *Plan) buildRanges() {
	prefixes := [][]byte{{}}
	i := 0
	for ; i < len(p.spans); i++ {
		if !allPoints(p.spans[i]) || len(prefixes)*len(p.spans[i]) > maxPointPrefixes {
			break
		}
		var next [][]byte
		for _, pre := range prefixes {
			for _, s := range p.spans[i] {
				next = append(next, append(pre[:len(pre):len(pre)], s.lo...))
			}
		}
		prefixes = next
	}
	p.idOrder = i == len(p.spans) && len(prefixes) == 1
	if i == len(p.spans) {
		for _, pre := range prefixes {
			p.ranges = append(p.ranges, keyRange{pre, succ(pre)})
		}
		return
	}
	for _, pre := range prefixes {
		for _, s := range p.spans[i] {
			r := keyRange{lo: append(pre[:len(pre):len(pre)], s.lo...)}
			if s.hi != nil {
				r.hi = append(pre[:len(pre):len(pre)], s.hi...)
			} else {
				r.hi = succ(pre)
			}
			p.ranges = append(p.ranges, r)
		}
	}
	for j := i + 1; j < len(p.spans); j++ {
		if p.bounded[j] {
			p.check = append(p.check, j)
		}
	}
}

func allPoints(spans []span) bool {
	for _, s := range spans {
		if !s.point {
			return false
		}
	}
	return len(spans) > 0
}

// Bounds returns the plan's index bounds as MongoDB's explain shows them:
// per field, its intervals in scan order, such as "[30, 30]" or
// "(30, inf.0]".
func (p *Plan) Bounds() []FieldBounds {
	if p.Stage != "IXSCAN" {
		return nil
	}
	out := make([]FieldBounds, len(p.spec.Fields))
	for i, f := range p.spec.Fields {
		spans := p.spans[i]
		if p.reverse {
			spans = reversed(spans)
		}
		fb := FieldBounds{Field: f.Path, Intervals: []string{}}
		for _, s := range spans {
			fb.Intervals = append(fb.Intervals, s.show(p.reverse))
		}
		out[i] = fb
	}
	return out
}

// FieldBounds are the intervals of one index field.
type FieldBounds struct {
	Field     string
	Intervals []string
}

func reversed(s []span) []span {
	out := make([]span, len(s))
	for i := range s {
		out[len(s)-1-i] = s[i]
	}
	return out
}

func (s span) show(reverse bool) string {
	lo, hi, loIncl, hiIncl := s.loShow, s.hiShow, s.loIncl, s.hiIncl
	if reverse {
		lo, hi, loIncl, hiIncl = hi, lo, hiIncl, loIncl
	}
	open, closing := "(", ")"
	if loIncl {
		open = "["
	}
	if hiIncl {
		closing = "]"
	}
	return open + lo + ", " + hi + closing
}

// estimate counts the entries within the plan's ranges, up to limit.
func (p *Plan) estimate(limit int64) {
	var n int64
	p.estCapped = false
	c := p.bucket.Cursor()
	for _, r := range p.ranges {
		for k, _ := c.Seek(r.lo); k != nil && (r.hi == nil || bytes.Compare(k, r.hi) < 0); k, _ = c.Next() {
			if !isEntry(k) {
				continue
			}
			if n++; n >= limit {
				p.estKeys, p.estCapped = n, true
				return
			}
		}
	}
	p.estKeys = n
}

func sortPlans(plans []*Plan) {
	sort.SliceStable(plans, func(i, j int) bool {
		if plans[i].cost != plans[j].cost {
			return plans[i].cost < plans[j].cost
		}
		return plans[i].Index < plans[j].Index
	})
}
