package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// reasonSample bounds the documents emptyReason reads.
const reasonSample = 10000

// predStats is what the scan learns about one top-level predicate.
type predStats struct {
	key     string        // the field path, or an operator such as $or
	path    []string      // nil for an operator
	want    value.Value   // the predicate's value: a value, or an operator object
	eq      []value.Value // the values it tests equality or order with
	filter  *query.Filter // the predicate alone
	present int
	matches int
	types   map[string]bool
	strs    []string // distinct string values seen, up to 100
	scalars []string // distinct string and number values seen, as JSON, up to 100
}

// emptyReason explains why a find returned nothing: the collection is
// empty, skip is past the matches, or else the engine's diagnose verdict
// (engineReason), or on a collection with redacted fields the interim
// verdict below.
func emptyReason(ctx context.Context, c *call, col *store.Collection, spec value.Value, skip, matched int64) string {
	if col.Count() > 0 && matched == 0 && spec.Len() > 0 {
		if r, ok := engineReason(ctx, c, col, spec); ok {
			return r
		}
	}
	return interimReason(ctx, c, col, spec, skip, matched)
}

// interimReason explains why a find returned nothing: the collection is
// empty, skip is past the matches, or which predicate eliminated every
// document, with a did-you-mean for field names and string values and a
// note on type mismatches ("30" against 30). It reads at most
// reasonSample documents, redacted like every read, so it is the verdict
// for collections with redacted fields, where the engine's diagnose
// (which reads documents unredacted) cannot be used.
func interimReason(ctx context.Context, c *call, col *store.Collection, spec value.Value, skip, matched int64) string {
	switch {
	case col.Count() == 0:
		return fmt.Sprintf("collection `%s` is empty", col.Name())
	case matched > 0:
		return fmt.Sprintf("skip %d is past the %d matching documents", skip, matched)
	case spec.Len() == 0:
		return ""
	}
	preds, err := predicates(spec, nil)
	if err != nil {
		return ""
	}
	fields := map[string]bool{}
	n := sampleStats(ctx, c, col, preds, fields)
	if ctx.Err() != nil {
		return "" // the deadline came first: no reason rather than a wrong one
	}
	note := ""
	if int64(n) < col.Count() {
		note = fmt.Sprintf(" (in the first %d documents)", n)
	}
	for _, p := range preds {
		if p.matches == 0 && p.path != nil && c.srv.policy.isRedacted(col.Name(), p.path) {
			return fmt.Sprintf("field `%s` is redacted by this server's policy: filters cannot see it", p.key)
		}
		if p.matches == 0 {
			return p.verdict(fields) + note
		}
	}
	return "each predicate matches some documents, but no document matches all of them together" + note
}

// predicates splits a filter into its top-level predicates, going into
// $and.
func predicates(spec value.Value, into []*predStats) ([]*predStats, error) {
	for _, f := range spec.Fields() {
		if f.Key == "$and" {
			for _, sub := range f.Value.Array() {
				var err error
				if into, err = predicates(sub, into); err != nil {
					return nil, err
				}
			}
			continue
		}
		one, err := query.CompileFilter(obj(f.Key, f.Value))
		if err != nil {
			return nil, err
		}
		p := &predStats{key: f.Key, want: f.Value, filter: one, types: map[string]bool{}}
		if !strings.HasPrefix(f.Key, "$") {
			p.path, p.eq = strings.Split(f.Key, "."), operands(f.Value)
		}
		into = append(into, p)
	}
	return into, nil
}

// operands returns the values a predicate compares a field with: the
// value itself, or those of $eq, $gt, $gte, $lt, $lte and $in.
func operands(v value.Value) []value.Value {
	if v.Kind() != value.Object || v.Len() == 0 || !strings.HasPrefix(v.Fields()[0].Key, "$") {
		return []value.Value{v}
	}
	var out []value.Value
	for _, f := range v.Fields() {
		switch f.Key {
		case "$eq", "$gt", "$gte", "$lt", "$lte":
			out = append(out, f.Value)
		case "$in":
			out = append(out, f.Value.Array()...)
		}
	}
	return out
}

func sampleStats(ctx context.Context, c *call, col *store.Collection, preds []*predStats, fields map[string]bool) int {
	src := c.scan(ctx, col, store.Query{})
	defer src.Close()
	n := 0
	for n < reasonSample && src.Next() {
		n++
		doc := src.Doc()
		collectPaths(doc, "", 0, fields)
		for _, p := range preds {
			if !p.observe(ctx, doc) {
				return n
			}
		}
	}
	return n
}

// observe counts doc in p's statistics; it reports false when ctx
// stopped the predicate's $expr.
func (p *predStats) observe(ctx context.Context, doc value.Value) bool {
	ok, err := p.filter.MatchContext(ctx, doc)
	if err != nil {
		return false
	}
	if ok {
		p.matches++
	}
	if p.path == nil {
		return true
	}
	vals := fieldValues(doc, p.path)
	if len(vals) > 0 {
		p.present++
	}
	for _, v := range vals {
		p.types[v.TypeName()] = true
		if v.Kind() == value.String && len(p.strs) < 100 && !contains(p.strs, v.Str()) {
			p.strs = append(p.strs, v.Str())
		}
		if (v.Kind() == value.String || v.IsNumber()) && len(p.scalars) < 100 && !contains(p.scalars, v.String()) {
			p.scalars = append(p.scalars, v.String())
		}
	}
	return true
}

func (p *predStats) verdict(fields map[string]bool) string {
	want := truncate(p.want.String(), 80)
	switch {
	case p.path == nil:
		return fmt.Sprintf("no document matches the `%s` clause", p.key)
	case p.present == 0:
		names := make([]string, 0, len(fields))
		for f := range fields {
			names = append(names, f)
		}
		sort.Strings(names)
		return fmt.Sprintf("no document has the field `%s`%s", p.key, errs.DidYouMean(p.key, names))
	}
	if t, ok := p.typeMismatch(); ok {
		return fmt.Sprintf("field `%s` holds %s values, but the filter compares it with the %s", p.key, typeList(p.types), t)
	}
	if other, ok := p.otherType(); ok {
		return fmt.Sprintf("no document has `%s` equal to %s, but some have %s: the types differ (did you mean %s?)", p.key, want, other, other)
	}
	if len(p.eq) == 1 && p.eq[0].Kind() == value.String {
		if s, ok := errs.Suggest(p.eq[0].Str(), p.strs); ok {
			return fmt.Sprintf("no document has `%s` equal to %s (did you mean %s?)", p.key, truncate(p.eq[0].String(), 80), value.StringValue(s))
		}
	}
	if len(p.eq) == 1 && value.Equal(p.eq[0], p.want) {
		return fmt.Sprintf("no document has `%s` equal to %s", p.key, want)
	}
	return fmt.Sprintf("no document has `%s` matching %s", p.key, want)
}

// typeMismatch reports an operand whose type the field never holds (longs
// and doubles count as one type), as "the string \"30\"".
func (p *predStats) typeMismatch() (string, bool) {
	for _, v := range p.eq {
		k := v.Kind()
		if k == value.Object || k == value.Array || k == value.Null || k == value.Missing || p.types[v.TypeName()] ||
			v.IsNumber() && (p.types["long"] || p.types["double"]) {
			continue
		}
		return v.TypeName() + " " + truncate(v.String(), 80), true
	}
	return "", false
}

// otherType finds the wanted value written as another type: the string
// "30" for the number 30, or the number 30 for the string "30".
func (p *predStats) otherType() (string, bool) {
	if len(p.eq) != 1 {
		return "", false
	}
	want := p.eq[0]
	var alt string
	switch {
	case want.IsNumber():
		alt = value.StringValue(want.String()).String()
	case want.Kind() == value.String:
		if v, err := value.ParseString(want.Str()); err == nil && v.IsNumber() {
			alt = v.String()
		}
	}
	return alt, alt != "" && contains(p.scalars, alt)
}

func typeList(types map[string]bool) string {
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	return strings.Join(names, "/")
}

// fieldValues returns the values at a dotted path, going through arrays
// of objects; the elements of an array at the end of the path count too.
func fieldValues(v value.Value, path []string) []value.Value {
	if len(path) == 0 {
		if v.Kind() == value.Array {
			return append([]value.Value{v}, v.Array()...)
		}
		return []value.Value{v}
	}
	switch v.Kind() {
	case value.Object:
		f := v.Get(path[0])
		if f.IsMissing() {
			return nil
		}
		return fieldValues(f, path[1:])
	case value.Array:
		var out []value.Value
		for _, e := range v.Array() {
			if e.Kind() == value.Object {
				out = append(out, fieldValues(e, path)...)
			}
		}
		return out
	}
	return nil
}

// collectPaths records the dotted paths of an object's fields, three
// levels deep, for did-you-mean on field names.
func collectPaths(v value.Value, prefix string, depth int, into map[string]bool) {
	if depth > 2 || len(into) > 1000 {
		return
	}
	if v.Kind() == value.Array {
		for _, e := range v.Array() {
			collectPaths(e, prefix, depth, into)
		}
		return
	}
	for _, f := range v.Fields() {
		p := f.Key
		if prefix != "" {
			p = prefix + "." + f.Key
		}
		into[p] = true
		collectPaths(f.Value, p, depth+1, into)
	}
}
