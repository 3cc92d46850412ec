package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	return suggestIndexes(ctx, &fileSuggester{c: c}, q)
}

// suggester is what suggest-indexes reads: a store file's collection
// (fileSuggester) or a SuggestSource's.
type suggester interface {
	name() string
	documents() int64
	// currentPlan is how the query runs today and what it reads.
	currentPlan(ctx context.Context, q Query) (CurrentPlan, error)
	// matcher returns how many documents match every predicate of a set
	// (a bit per predicate).
	matcher(ctx context.Context, preds []pred) (*setCounts, error)
	// geoNote is the note on a geospatial predicate; "" for others.
	geoNote(path, op string) string
	// hasArrays reports whether a sample shows an array at path.
	hasArrays(path string) bool
	// btrees lists the B-tree indexes, by name.
	btrees() []namedKey
	// createCommand is the command that creates an index of fields.
	createCommand(fields []IndexField) string
}

// namedKey is an index's name and fields.
type namedKey struct {
	name   string
	fields []IndexField
}

// setCounts counts the documents that match sets of predicates; the
// first error of count is kept in err.
type setCounts struct {
	count func(set uint64) (int64, error)
	err   error
}

func (sc *setCounts) matching(set uint64) int64 {
	n, err := sc.count(set)
	if err != nil && sc.err == nil {
		sc.err = err
	}
	return n
}

func suggestIndexes(ctx context.Context, sg suggester, q Query) (*Suggestions, error) {
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
	s := &Suggestions{Collection: sg.name(), Filter: value.JSON(predsValue(preds)), Documents: sg.documents(),
		Suggestions: []Suggestion{}, Notes: []string{}}
	var sortKeys []query.SortKey
	if q.sorted() {
		sortKeys = q.Sort.Keys()
		s.Sort = value.JSON(sortValue(sortKeys))
	}
	if s.Current, err = sg.currentPlan(ctx, q); err != nil {
		return nil, err
	}
	masks, err := sg.matcher(ctx, preds)
	if err != nil {
		return nil, err
	}
	fields, bounded := esrFields(sg, preds, sortKeys, masks, s)
	if len(fields) == 0 {
		s.Notes = append(s.Notes, "no predicate or sort of this query can use a B-tree index")
		return s, masks.err
	}
	s.Suggestions = append(s.Suggestions, suggestion(sg, fields, bounded, masks, sortKeys, s.Current))
	// A single-field index on the most selective equality is a smaller
	// alternative to a compound one.
	if len(fields) > 1 && fields[0].equality {
		s.Suggestions = append(s.Suggestions, suggestion(sg, fields[:1], bounded[:1], masks, sortKeys, s.Current))
	}
	return s, masks.err
}

// fileSuggester reads a store file's collection.
type fileSuggester struct {
	c      *Collection
	schema *Schema // the sample's fields, read once (nil: not yet)
}

func (fs *fileSuggester) name() string     { return fs.c.name }
func (fs *fileSuggester) documents() int64 { return fs.c.count }

func (fs *fileSuggester) geoNote(path, op string) string { return fs.c.geoNote(path, op) }

func (fs *fileSuggester) currentPlan(ctx context.Context, q Query) (CurrentPlan, error) {
	return fs.c.currentPlan(ctx, q)
}

func (fs *fileSuggester) matcher(ctx context.Context, preds []pred) (*setCounts, error) {
	masks, err := fs.c.matchMasks(ctx, preds)
	if err != nil {
		return nil, err
	}
	return &setCounts{count: func(set uint64) (int64, error) { return matching(masks, set), nil }}, nil
}

func (fs *fileSuggester) hasArrays(path string) bool {
	if fs.schema == nil {
		s, err := fs.c.Schema(context.Background(), DefaultSchemaSample, 4)
		if err != nil {
			return true
		}
		fs.schema = s
	}
	return schemaHasArray(fs.schema, path)
}

// schemaHasArray reports whether the schema saw an array at path.
func schemaHasArray(s *Schema, path string) bool {
	for _, f := range s.Fields {
		if f.Path == path && slices.Contains(f.Types, "array") {
			return true
		}
	}
	return false
}

func (fs *fileSuggester) btrees() []namedKey {
	var out []namedKey
	for _, def := range fs.c.Indexes() {
		if def.Kind != BTreeKind {
			continue
		}
		if spec, err := ParseBTreeSpec(def); err == nil {
			out = append(out, namedKey{def.Name, spec.Fields})
		}
	}
	return out
}

func (fs *fileSuggester) createCommand(fields []IndexField) string {
	args := make([]string, len(fields))
	for i, f := range fields {
		args[i] = f.Path
		if f.Desc {
			args[i] += ":-1"
		}
	}
	return fmt.Sprintf("omgdb create-index %s %s %s", shellQuote(fs.c.tx.db.path), shellQuote(fs.c.name), shellQuote(strings.Join(args, ",")))
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
func esrFields(sg suggester, preds []pred, sortKeys []query.SortKey, masks *setCounts, s *Suggestions) ([]keyField, []uint64) {
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
				list[j].alone = masks.matching(list[j].set)
				return list
			}
		}
		return append(list, cand{path, 1 << i, masks.matching(1 << i)})
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
		if note := sg.geoNote(p.path, p.op); note != "" {
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
func suggestion(sg suggester, fields []keyField, bounded []uint64, masks *setCounts, sortKeys []query.SortKey, now CurrentPlan) Suggestion {
	spec := BTreeSpec{}
	var set uint64
	var reasons []string
	for i, f := range fields {
		spec.Fields = append(spec.Fields, f.IndexField)
		set |= bounded[i]
		reasons = append(reasons, f.why)
	}
	sug := Suggestion{
		Key:          value.JSON(spec.KeyPattern()),
		Command:      sg.createCommand(spec.Fields),
		DocsExamined: masks.matching(set),
		Reason:       "ESR (equality, sort, range): " + strings.Join(reasons, ", then "),
	}
	sug.SortInMemory = len(sortKeys) > 0 && !wouldSort(sg, fields, sortKeys)
	if set == 0 {
		sug.DocsExamined = sg.documents()
	}
	switch {
	case sug.DocsExamined < now.DocsExamined:
		sug.Gain = fmt.Sprintf("reads about %d document(s) instead of %d", sug.DocsExamined, now.DocsExamined)
	case now.SortInMemory && !sug.SortInMemory:
		sug.Gain = "avoids the in-memory sort"
	default:
		sug.Gain = "none: the query already reads no more than this index would make it read"
	}
	if now.SortInMemory && !sug.SortInMemory && sug.DocsExamined < now.DocsExamined {
		sug.Gain += ", and avoids the in-memory sort"
	}
	if name := servingIndex(sg, spec.Fields); name != "" {
		sug.Existing = name
	}
	return sug
}

// wouldSort reports whether an index on fields gives the sort: the sort's
// fields follow fields compared for equality, in the same or all opposite
// directions, and the sample shows no array in them.
func wouldSort(sg suggester, fields []keyField, keys []query.SortKey) bool {
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
	for _, k := range keys {
		if sg.hasArrays(k.Path) {
			return false
		}
	}
	return true
}

// servingIndex returns an existing B-tree index whose fields start with
// fields, in the same or all opposite directions.
func servingIndex(sg suggester, fields []IndexField) string {
	for _, ix := range sg.btrees() {
		if len(ix.fields) < len(fields) {
			continue
		}
		same, flipped := true, true
		for i, f := range fields {
			g := ix.fields[i]
			same = same && g == f
			flipped = flipped && g.Path == f.Path && g.Desc != f.Desc
		}
		if same || flipped {
			return ix.name
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
