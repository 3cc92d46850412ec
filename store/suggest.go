package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Suggestions are the indexes that would help a query, from
// SuggestIndexes.
type Suggestions struct {
	Collection  string          `json:"collection"`
	Filter      json.RawMessage `json:"filter"`
	Sort        json.RawMessage `json:"sort,omitempty"`
	Documents   int64           `json:"documents"`
	Current     CurrentPlan     `json:"current"`
	Suggestions []Suggestion    `json:"suggestions"`
	Notes       []string        `json:"notes"`
}

// CurrentPlan is how the query runs today.
type CurrentPlan struct {
	Plan         string `json:"plan"` // COLLSCAN, or IXSCAN <index>
	DocsExamined int64  `json:"docs_examined"`
	SortInMemory bool   `json:"sort_in_memory"`
}

// Suggestion is one index that would help.
type Suggestion struct {
	Key          json.RawMessage `json:"key"`
	Command      string          `json:"command"`
	DocsExamined int64           `json:"docs_examined"` // estimated, with the index
	SortInMemory bool            `json:"sort_in_memory"`
	Gain         string          `json:"gain"`
	Reason       string          `json:"reason"`
	Existing     string          `json:"existing,omitempty"` // an index that already serves this
}

// keyField is a field of a suggested index, with why it is there.
type keyField struct {
	IndexField
	why      string
	equality bool
}

// SuggestIndexes proposes indexes for a find with q's filter and sort,
// following the ESR rule for compound keys: fields compared for equality
// first (most selective first), then the sort's fields in its directions,
// then fields compared by range. It estimates the documents each index
// would make the query read, from one pass over the collection, against
// what the current plan reads.
func (c *Collection) SuggestIndexes(ctx context.Context, q Query) (*Suggestions, error) {
	f := q.Filter
	if f == nil {
		f, _ = query.CompileFilter(value.Value{})
	}
	preds, err := flatten(f)
	if err != nil {
		return nil, err
	}
	if len(preds) > maxDiagnosed {
		return nil, errs.Errorf(errs.Limit, "suggest-indexes reads at most %d predicates, the filter has %d", maxDiagnosed, len(preds))
	}
	s := &Suggestions{Collection: c.name, Filter: value.JSON(predsValue(preds)), Documents: c.count,
		Suggestions: []Suggestion{}, Notes: []string{}}
	var sortKeys []query.SortKey
	if q.sorted() {
		sortKeys = q.Sort.Keys()
		s.Sort = value.JSON(sortValue(sortKeys))
	}
	if s.Current, err = c.currentPlan(ctx, q); err != nil {
		return nil, err
	}
	masks, err := c.matchMasks(ctx, preds)
	if err != nil {
		return nil, err
	}
	fields, bounded := c.esrFields(preds, sortKeys, masks, s)
	if len(fields) == 0 {
		s.Notes = append(s.Notes, "no predicate or sort of this query can use a B-tree index")
		return s, nil
	}
	s.Suggestions = append(s.Suggestions, c.suggestion(fields, bounded, masks, sortKeys, s.Current))
	// A single-field index on the most selective equality is a smaller
	// alternative to a compound one.
	if len(fields) > 1 && fields[0].equality {
		s.Suggestions = append(s.Suggestions, c.suggestion(fields[:1], bounded[:1], masks, sortKeys, s.Current))
	}
	return s, nil
}

// currentPlan runs the query as planned today and counts what it reads.
func (c *Collection) currentPlan(ctx context.Context, q Query) (CurrentPlan, error) {
	q.Projection = nil
	ch, err := c.planQuery(q, false)
	if err != nil {
		return CurrentPlan{}, err
	}
	cp := CurrentPlan{Plan: ch.plan.Stage, SortInMemory: q.sorted() && ch.plan.sortGroup == 0}
	if ch.plan.Stage == "IXSCAN" {
		cp.Plan += " " + ch.plan.Index
	}
	stats, err := c.executeStats(ctx, q, ch.plan, false)
	if err != nil {
		return cp, err
	}
	cp.DocsExamined = stats.Get("totalDocsExamined").Long()
	return cp, nil
}

// matchMasks counts the documents per set of predicates they match.
func (c *Collection) matchMasks(ctx context.Context, preds []pred) (map[uint64]int64, error) {
	masks := map[uint64]int64{}
	cur := c.Scan()
	for n := 0; cur.Next(); n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return nil, err
		}
		var bits uint64
		for i, p := range preds {
			ok, err := p.filter.MatchContext(ctx, doc)
			if err != nil {
				return nil, err
			}
			if ok {
				bits |= 1 << i
			}
		}
		masks[bits]++
	}
	return masks, cur.Err()
}

// matching counts the documents that match every predicate in set.
func matching(masks map[uint64]int64, set uint64) int64 {
	var n int64
	for m, k := range masks {
		if m&set == set {
			n += k
		}
	}
	return n
}

// esrFields orders the fields of the suggested index, and returns with
// them the predicates whose bounds the index would use.
func (c *Collection) esrFields(preds []pred, sortKeys []query.SortKey, masks map[uint64]int64, s *Suggestions) ([]keyField, []uint64) {
	type cand struct {
		path  string
		set   uint64
		alone int64
	}
	var eq, rng []cand
	add := func(list []cand, path string, i int) []cand {
		for j := range list {
			if list[j].path == path {
				list[j].set |= 1 << i
				list[j].alone = matching(masks, list[j].set)
				return list
			}
		}
		return append(list, cand{path, 1 << i, matching(masks, 1<<i)})
	}
	inSort := map[string]bool{}
	for _, k := range sortKeys {
		inSort[k.Path] = true
	}
	for i, p := range preds {
		if p.path == "" {
			s.Notes = append(s.Notes, fmt.Sprintf("%s cannot use an index: only a conjunction of field conditions can", p.value()))
			continue
		}
		if note := c.geoNote(p.path, p.op); note != "" {
			s.Notes = append(s.Notes, note)
			continue
		}
		cond := opCond(p.path, p.op, p.operand)
		switch {
		case !cond.bounded:
			s.Notes = append(s.Notes, fmt.Sprintf("%s cannot narrow an index scan (%s); it is checked on each document", p.value(), p.op))
		case allPointRanges(cond.ranges) && (len(sortKeys) == 0 || len(cond.ranges) <= 1) && !inSort[p.path]:
			eq = add(eq, p.path, i)
		default:
			rng = add(rng, p.path, i)
		}
	}
	sort.SliceStable(eq, func(i, j int) bool { return eq[i].alone < eq[j].alone })
	sort.SliceStable(rng, func(i, j int) bool { return rng[i].alone < rng[j].alone })
	var fields []keyField
	var bounded []uint64
	seen := map[string]bool{}
	for _, e := range eq {
		fields = append(fields, keyField{IndexField{Path: e.path}, fmt.Sprintf("equality on `%s` (matches %d alone)", e.path, e.alone), true})
		bounded, seen[e.path] = append(bounded, e.set), true
	}
	for _, k := range sortKeys {
		if seen[k.Path] {
			continue
		}
		var set uint64
		for _, r := range rng {
			if r.path == k.Path {
				set = r.set
			}
		}
		dir := "ascending"
		if k.Desc {
			dir = "descending"
		}
		fields = append(fields, keyField{IndexField{Path: k.Path, Desc: k.Desc}, fmt.Sprintf("the sort on `%s` (%s)", k.Path, dir), false})
		bounded, seen[k.Path] = append(bounded, set), true
	}
	for _, r := range rng {
		if seen[r.path] {
			continue
		}
		fields = append(fields, keyField{IndexField{Path: r.path}, fmt.Sprintf("range on `%s` (matches %d alone)", r.path, r.alone), false})
		bounded, seen[r.path] = append(bounded, r.set), true
	}
	return fields, bounded
}

func allPointRanges(rs []vrange) bool {
	for _, r := range rs {
		if !r.point {
			return false
		}
	}
	return len(rs) > 0
}

// suggestion estimates one index: it reads the documents that match the
// predicates it bounds.
func (c *Collection) suggestion(fields []keyField, bounded []uint64, masks map[uint64]int64, sortKeys []query.SortKey, now CurrentPlan) Suggestion {
	spec := BTreeSpec{}
	var set uint64
	var reasons, args []string
	for i, f := range fields {
		spec.Fields = append(spec.Fields, f.IndexField)
		set |= bounded[i]
		reasons = append(reasons, f.why)
		arg := f.Path
		if f.Desc {
			arg += ":-1"
		}
		args = append(args, arg)
	}
	sg := Suggestion{
		Key:          value.JSON(spec.KeyPattern()),
		Command:      fmt.Sprintf("omgdb create-index %s %s %s", shellQuote(c.tx.db.path), shellQuote(c.name), shellQuote(strings.Join(args, ","))),
		DocsExamined: matching(masks, set),
		Reason:       "ESR (equality, sort, range): " + strings.Join(reasons, ", then "),
	}
	sg.SortInMemory = len(sortKeys) > 0 && !c.wouldSort(fields, sortKeys)
	if set == 0 {
		sg.DocsExamined = c.count
	}
	switch {
	case sg.DocsExamined < now.DocsExamined:
		sg.Gain = fmt.Sprintf("reads about %d document(s) instead of %d", sg.DocsExamined, now.DocsExamined)
	case now.SortInMemory && !sg.SortInMemory:
		sg.Gain = "avoids the in-memory sort"
	default:
		sg.Gain = "none: the query already reads no more than this index would make it read"
	}
	if now.SortInMemory && !sg.SortInMemory && sg.DocsExamined < now.DocsExamined {
		sg.Gain += ", and avoids the in-memory sort"
	}
	if name := c.servingIndex(spec.Fields); name != "" {
		sg.Existing = name
	}
	return sg
}

// wouldSort reports whether an index on fields gives the sort: the sort's
// fields follow fields compared for equality, in the same or all opposite
// directions, and the sample shows no array in them.
func (c *Collection) wouldSort(fields []keyField, keys []query.SortKey) bool {
	start := 0
	for start < len(fields) && fields[start].Path != keys[0].Path {
		if !fields[start].equality {
			return false
		}
		start++
	}
	if start+len(keys) > len(fields) {
		return false
	}
	flip := fields[start].Desc != keys[0].Desc
	for i, k := range keys {
		f := fields[start+i]
		if f.Path != k.Path || (f.Desc != k.Desc) != flip {
			return false
		}
	}
	s, err := c.Schema(context.Background(), DefaultSchemaSample, 4)
	if err != nil {
		return false
	}
	for _, f := range s.Fields {
		for _, t := range f.Types {
			for _, k := range keys {
				if t == "array" && f.Path == k.Path {
					return false
				}
			}
		}
	}
	return true
}

// servingIndex returns an existing B-tree index whose fields start with
// fields, in the same or all opposite directions.
func (c *Collection) servingIndex(fields []IndexField) string {
	for _, def := range c.Indexes() {
		if def.Kind != BTreeKind {
			continue
		}
		spec, err := ParseBTreeSpec(def)
		if err != nil || len(spec.Fields) < len(fields) {
			continue
		}
		same, flipped := true, true
		for i, f := range fields {
			g := spec.Fields[i]
			same = same && g == f
			flipped = flipped && g.Path == f.Path && g.Desc != f.Desc
		}
		if same || flipped {
			return def.Name
		}
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/:,@+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
