package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Diagnose is the why-not debugger: it says how many documents each
// predicate of a filter matches alone, with the ones before it, and
// without it; which predicate empties the result; and hints that name a
// likely mistake with a corrected filter and how many documents it would
// match: a field no document has (with did-you-mean, including case and
// dotted-path slips), a value of the wrong type ("30" for 30), a regular
// expression that would match with the i flag, and an $in whose only
// element is an array. Its JSON is the MCP server's empty_reason.

// DiagnoseOptions configures Diagnose. The zero value reads every document.
type DiagnoseOptions struct {
	// Limit bounds the documents read to count matches; 0 means all. The
	// counts then describe the first Limit documents in _id order.
	Limit int64
}

// Diagnosis is the result of Diagnose.
type Diagnosis struct {
	Collection string          `json:"collection"`
	Filter     json.RawMessage `json:"filter"`
	Documents  int64           `json:"documents"` // in the collection
	Examined   int64           `json:"examined"`  // documents read to count
	Matches    int64           `json:"matches"`   // of the whole filter, among those examined
	Predicates []PredicateStat `json:"predicates"`
	// EmptiedBy is the index in Predicates of the predicate that leaves no
	// match: the first that matches nothing alone, or else the one at
	// which the running conjunction becomes empty. -1 when there are
	// matches.
	EmptiedBy int    `json:"emptied_by"`
	Verdict   string `json:"verdict"`
	Hints     []Hint `json:"hints"`
	// FixAll is the filter with every hint's fix applied, when two or more
	// hints have one, and WouldMatch what it matches.
	FixAll     json.RawMessage `json:"fix_all,omitempty"`
	WouldMatch int64           `json:"would_match,omitempty"`
	// Bound is, for a diagnosis counted by a DiagnoseSource (a server),
	// the most documents counted among: the first ones in _id order.
	Bound int64 `json:"bound,omitempty"`
}

// PredicateStat is what one predicate matches.
type PredicateStat struct {
	Predicate    json.RawMessage `json:"predicate"`
	Alone        int64           `json:"alone"`         // documents it matches by itself
	WithPrevious int64           `json:"with_previous"` // with the predicates before it
	WithoutThis  int64           `json:"without_this"`  // the whole filter but this predicate
}

// Hint is a likely mistake in one predicate, and its fix.
type Hint struct {
	Kind       string          `json:"kind"` // unknown_field, type_mismatch, regex_case, in_nested_array
	Predicate  int             `json:"predicate"`
	Message    string          `json:"message"`
	Fix        json.RawMessage `json:"fix"`         // the whole filter, corrected
	WouldMatch int64           `json:"would_match"` // documents the corrected filter matches
	fixed      *pred           // the corrected predicate
}

// pred is one predicate of the conjunction being diagnosed.
type pred struct {
	path, op string
	operand  value.Value
	filter   *query.Filter // the predicate alone
}

// value returns the predicate as a filter document.
func (p pred) value() value.Value {
	return predsValue([]pred{p})
}

// predsValue writes predicates as one filter document, merging the
// operators of a path.
func predsValue(ps []pred) value.Value {
	var fields []value.Field
	index := map[string]int{}
	for _, p := range ps {
		if p.path == "" {
			fields = append(fields, value.Field{Key: p.op, Value: p.operand})
			continue
		}
		ops := []value.Field{{Key: p.op, Value: p.operand}}
		if p.op == "$regex" {
			ops = p.operand.Fields()
		}
		if i, ok := index[p.path]; ok {
			fields[i].Value = value.ObjectValue(append(append([]value.Field(nil), fields[i].Value.Fields()...), ops...))
			continue
		}
		index[p.path] = len(fields)
		fields = append(fields, value.Field{Key: p.path, Value: value.ObjectValue(ops)})
	}
	for i, fl := range fields {
		if fl.Key[0] != '$' && fl.Value.Len() == 1 && fl.Value.Fields()[0].Key == "$eq" {
			if v := fl.Value.Fields()[0].Value; v.Kind() != value.Object || v.Len() == 0 || v.Fields()[0].Key[0] != '$' {
				fields[i].Value = v
			}
		}
	}
	return value.ObjectValue(fields)
}

// flatten lists a filter's predicates, with $and expanded.
func flatten(f *query.Filter) ([]pred, error) {
	var out []pred
	for _, p := range f.Predicates() {
		if p.Path == "" && p.Op == "$and" {
			for _, sub := range p.Operand.Array() {
				sf, err := query.CompileFilter(sub)
				if err != nil {
					return nil, err
				}
				more, err := flatten(sf)
				if err != nil {
					return nil, err
				}
				out = append(out, more...)
			}
			continue
		}
		q := pred{path: p.Path, op: p.Op, operand: p.Operand}
		pf, err := query.CompileFilter(q.value())
		if err != nil {
			return nil, err
		}
		q.filter = pf
		out = append(out, q)
	}
	return out, nil
}

// maxDiagnosed bounds the predicates Diagnose tells apart.
const maxDiagnosed = 64

// Diagnose explains what a filter matches in the collection, predicate by
// predicate; see the package comment above.
func (c *Collection) Diagnose(ctx context.Context, f *query.Filter, opts *DiagnoseOptions) (*Diagnosis, error) {
	return diagnose(ctx, c.name, c.count, fileCounter{c}, f, opts)
}

// diagnose diagnoses f with the counts of dc, on a collection named coll
// of documents documents.
func diagnose(ctx context.Context, coll string, documents int64, dc diagCounter, f *query.Filter, opts *DiagnoseOptions) (*Diagnosis, error) {
	if opts == nil {
		opts = &DiagnoseOptions{}
	}
	if f == nil {
		f, _ = query.CompileFilter(value.Value{})
	}
	if f.Text() != nil {
		return nil, errs.Errorf(errs.Invalid, "diagnose does not take $text: it counts each predicate on its own, and $text scores whole documents").
			WithHint("diagnose the filter without $text, and try the $text search alone with find")
	}
	preds, err := flatten(f)
	if err != nil {
		return nil, err
	}
	if len(preds) > maxDiagnosed {
		return nil, errs.Errorf(errs.Limit, "diagnose tells apart at most %d predicates, the filter has %d", maxDiagnosed, len(preds))
	}
	d := &Diagnosis{Collection: coll, Filter: value.JSON(predsValue(preds)), Documents: documents, EmptiedBy: -1,
		Predicates: []PredicateStat{}, Hints: []Hint{}}
	counts, err := dc.countPreds(ctx, preds, opts.Limit)
	if err != nil {
		return nil, err
	}
	d.Examined, d.Matches = counts.examined, counts.all
	for i, p := range preds {
		d.Predicates = append(d.Predicates, PredicateStat{Predicate: value.JSON(p.value()),
			Alone: counts.alone[i], WithPrevious: counts.prefix[i], WithoutThis: counts.without[i]})
	}
	if d.Matches == 0 && len(preds) > 0 {
		d.EmptiedBy = emptiedBy(d.Predicates)
	}
	h := &hinter{dc: dc, ctx: ctx, preds: preds, limit: opts.Limit, fieldCount: counts.fields, alone: counts.alone}
	if d.Hints, err = h.hints(); err != nil {
		return nil, err
	}
	if d.FixAll, d.WouldMatch, err = h.fixAll(d.Hints); err != nil {
		return nil, err
	}
	d.Verdict = verdict(d, preds)
	return d, nil
}

func emptiedBy(stats []PredicateStat) int {
	for i, s := range stats {
		if s.Alone == 0 {
			return i
		}
	}
	for i, s := range stats {
		if s.WithPrevious == 0 {
			return i
		}
	}
	return len(stats) - 1
}

// predCounts are the counts of one pass over the documents.
type predCounts struct {
	examined, all          int64
	alone, prefix, without []int64
	fields                 map[string]int64 // documents that have each predicate's path
}

// countPreds matches every predicate against every document once.
func (fc fileCounter) countPreds(ctx context.Context, preds []pred, limit int64) (*predCounts, error) {
	c := fc.c
	n := len(preds)
	pc := &predCounts{alone: make([]int64, n), prefix: make([]int64, n), without: make([]int64, n), fields: map[string]int64{}}
	exists := map[string]*query.Filter{}
	for _, p := range preds {
		if p.path != "" && exists[p.path] == nil {
			exists[p.path], _ = query.CompileFilter(value.ObjectValue([]value.Field{{Key: p.path, Value: value.MustParse(`{"$exists":true}`)}}))
		}
	}
	allBits := uint64(1)<<n - 1
	cur := c.Scan()
	for cur.Next() && (limit <= 0 || pc.examined < limit) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return nil, err
		}
		pc.examined++
		var bits uint64
		for i, p := range preds {
			ok, err := p.filter.MatchContext(ctx, doc)
			if err != nil {
				return nil, err
			}
			if ok {
				bits |= 1 << i
				pc.alone[i]++
			}
			if mask := uint64(1)<<(i+1) - 1; bits&mask == mask {
				pc.prefix[i]++
			}
		}
		for i := range preds {
			if others := allBits &^ (1 << i); bits&others == others {
				pc.without[i]++
			}
		}
		if bits == allBits {
			pc.all++
		}
		for path, f := range exists {
			if f.Match(doc) {
				pc.fields[path]++
			}
		}
	}
	return pc, cur.Err()
}

func verdict(d *Diagnosis, preds []pred) string {
	if d.Matches > 0 {
		return fmt.Sprintf("the filter matches %d document(s)", d.Matches)
	}
	if len(preds) == 0 {
		return "the collection is empty"
	}
	i := d.EmptiedBy
	p := string(d.Predicates[i].Predicate)
	var hint string
	for _, h := range d.Hints {
		if h.Predicate == i {
			hint = ": " + h.Message
			break
		}
	}
	switch {
	case d.Predicates[i].Alone == 0:
		return fmt.Sprintf("%s matches no document%s", p, hint)
	case len(preds) == 1:
		return fmt.Sprintf("%s matches no document", p)
	}
	before := make([]string, i)
	for j := range before {
		before[j] = string(d.Predicates[j].Predicate)
	}
	return fmt.Sprintf("each predicate matches some documents, but none match %s together with %s; without it, %d match%s",
		p, strings.Join(before, " and "), d.Predicates[i].WithoutThis, hint)
}
