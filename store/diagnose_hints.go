package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// hinter looks for likely mistakes in the predicates of a diagnosis.
type hinter struct {
	dc         diagCounter
	ctx        context.Context
	preds      []pred
	limit      int64
	fieldCount map[string]int64
	alone      []int64
	schema     *Schema
}

// fixAll applies every hint's fix at once, when there are several.
func (h *hinter) fixAll(hints []Hint) (json.RawMessage, int64, error) {
	ps := append([]pred(nil), h.preds...)
	fixed := 0
	for _, hint := range hints {
		if hint.fixed != nil {
			ps[hint.Predicate] = *hint.fixed
			fixed++
		}
	}
	if fixed < 2 {
		return nil, 0, nil
	}
	v := predsValue(ps)
	if _, err := query.CompileFilter(v); err != nil {
		return nil, 0, nil
	}
	n, err := h.count(v)
	return value.JSON(v), n, err
}

func (h *hinter) hints() ([]Hint, error) {
	out := []Hint{}
	for i, p := range h.preds {
		var hint *Hint
		var err error
		switch {
		case p.path != "" && p.path != "_id" && h.fieldCount[p.path] == 0:
			hint, err = h.unknownField(i)
		case h.alone[i] > 0:
			continue
		case p.op == "$regex":
			hint, err = h.regexCase(i)
		case p.op == "$in" && p.operand.Len() == 1 && p.operand.Index(0).Kind() == value.Array:
			hint, err = h.inNested(i)
		default:
			hint, err = h.typeMismatch(i)
		}
		if err != nil {
			return nil, err
		}
		if hint != nil {
			hint.Predicate = i
			out = append(out, *hint)
		}
	}
	return out, nil
}

// fix returns the filter with predicate i replaced, and how many documents
// it matches.
func (h *hinter) fix(i int, p pred) (value.Value, int64, error) {
	ps := append([]pred(nil), h.preds...)
	ps[i] = p
	v := predsValue(ps)
	if _, err := query.CompileFilter(v); err != nil {
		return v, 0, nil // a fix that does not compile matches nothing
	}
	n, err := h.count(v)
	return v, n, err
}

// count counts the matches of filter v among the documents diagnosed.
func (h *hinter) count(v value.Value) (int64, error) {
	return h.dc.count(h.ctx, v, h.limit)
}

func (h *hinter) fields() (*Schema, error) {
	if h.schema == nil {
		s, err := h.dc.schema(h.ctx)
		if err != nil {
			return nil, err
		}
		h.schema = s
	}
	return h.schema, nil
}

// unknownField: no document has the predicate's field.
func (h *hinter) unknownField(i int) (*Hint, error) {
	p := h.preds[i]
	s, err := h.fields()
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(s.Fields))
	for j, f := range s.Fields {
		paths[j] = f.Path
	}
	hint := &Hint{Kind: "unknown_field", Fix: []byte("null")}
	best, ok := suggestPath(p.path, paths)
	if !ok {
		hint.Message = fmt.Sprintf("no document has field `%s`", p.path)
		return hint, nil
	}
	fixed := p
	fixed.path = best
	v, n, err := h.fix(i, fixed)
	if err != nil {
		return nil, err
	}
	hint.Message = fmt.Sprintf("no document has field `%s` (did you mean `%s`?); the filter with `%s` matches %d", p.path, best, best, n)
	hint.Fix, hint.WouldMatch, hint.fixed = value.JSON(v), n, &fixed
	return hint, nil
}

// suggestPath finds the existing path a mistyped one most likely meant:
// the same path in another case, with other separators (address_city for
// address.city), the same last component at another depth (city for
// address.city), or one within edit distance 2.
func suggestPath(path string, paths []string) (string, bool) {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", ".", "", " ", "").Replace(strings.ToLower(s))
	}
	last := func(s string) string { return strings.ToLower(s[strings.LastIndexByte(s, '.')+1:]) }
	tests := []func(string) bool{
		func(c string) bool { return strings.EqualFold(c, path) },
		func(c string) bool { return norm(c) == norm(path) },
		func(c string) bool { return last(c) == last(path) },
	}
	for _, test := range tests {
		for _, c := range paths {
			if test(c) {
				return c, true
			}
		}
	}
	if s, ok := errs.Suggest(path, paths); ok {
		return s, true
	}
	lower := make([]string, len(paths))
	for i, c := range paths {
		lower[i] = strings.ToLower(c)
	}
	if s, ok := errs.Suggest(strings.ToLower(path), lower); ok {
		for i := range lower {
			if lower[i] == s {
				return paths[i], true
			}
		}
	}
	return "", false
}

// typeMismatch: the operand has a type the field's values do not; the
// same value in another type matches.
func (h *hinter) typeMismatch(i int) (*Hint, error) {
	p := h.preds[i]
	switch p.op {
	case "$eq", "$gt", "$gte", "$lt", "$lte", "$in", "$all":
	default:
		return nil, nil
	}
	var best *Hint
	for _, alt := range h.alternatives(p) {
		if _, err := query.CompileFilter(alt.value()); err != nil {
			continue
		}
		alone, err := h.count(alt.value())
		if err != nil {
			return nil, err
		}
		if alone == 0 {
			continue
		}
		v, n, err := h.fix(i, alt)
		if err != nil {
			return nil, err
		}
		if best == nil || n > best.WouldMatch {
			alt := alt
			best = &Hint{Kind: "type_mismatch", Fix: value.JSON(v), WouldMatch: n, fixed: &alt,
				Message: fmt.Sprintf("`%s` holds %s values, not %s; written as %s it matches %d document(s)",
					p.path, h.typesAt(p.path), operandType(p.operand), alt.value(), alone)}
		}
	}
	return best, nil
}

func operandType(v value.Value) string {
	if v.Kind() == value.Array && v.Len() > 0 {
		return v.Index(0).TypeName()
	}
	return v.TypeName()
}

func (h *hinter) typesAt(path string) string {
	if s, err := h.fields(); err == nil {
		for _, f := range s.Fields {
			if f.Path == path {
				return strings.Join(f.Types, " or ")
			}
		}
	}
	return "other"
}

// alternatives returns the predicate with its operand in other types.
func (h *hinter) alternatives(p pred) []pred {
	var out []pred
	if p.operand.Kind() == value.Array && (p.op == "$in" || p.op == "$all") {
		seen := map[string]bool{}
		for _, want := range kindsOf(p.operand.Array()) {
			elems := make([]value.Value, 0, p.operand.Len())
			for _, e := range p.operand.Array() {
				for _, c := range convert(e) {
					if c.Kind() == want {
						elems = append(elems, c)
					}
				}
			}
			if len(elems) > 0 && !seen[want.String()] {
				seen[want.String()] = true
				q := p
				q.operand = value.ArrayValue(elems)
				out = append(out, q)
			}
		}
		return out
	}
	for _, c := range convert(p.operand) {
		q := p
		q.operand = c
		out = append(out, q)
	}
	return out
}

// kindsOf lists the kinds the elements convert to.
func kindsOf(vs []value.Value) []value.Kind {
	var kinds []value.Kind
	seen := map[value.Kind]bool{}
	for _, v := range vs {
		for _, c := range convert(v) {
			if !seen[c.Kind()] {
				seen[c.Kind()] = true
				kinds = append(kinds, c.Kind())
			}
		}
	}
	return kinds
}

// convert returns v written as the other types a user may have meant:
// "30" and 30, "true" and true, an ObjectId and its hex, an ISO date and
// a date.
func convert(v value.Value) []value.Value {
	var out []value.Value
	switch v.Kind() {
	case value.String:
		s := strings.TrimSpace(v.Str())
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, value.LongValue(i))
		} else if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			out = append(out, value.DoubleValue(f))
		}
		if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
			out = append(out, value.BoolValue(b))
		}
		if oid, ok := value.ParseOID(s); ok {
			out = append(out, value.ObjectIDValue(oid))
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			out = append(out, value.DateValue(t.UnixMilli()))
		} else if t, err := time.Parse("2006-01-02", s); err == nil {
			out = append(out, value.DateValue(t.UnixMilli()))
		}
	case value.Int, value.Long:
		out = append(out, value.StringValue(strconv.FormatInt(v.Long(), 10)))
	case value.Double:
		out = append(out, value.StringValue(strconv.FormatFloat(v.Double(), 'f', -1, 64)))
	case value.Bool:
		out = append(out, value.StringValue(strconv.FormatBool(v.Bool())))
	case value.ObjectID:
		out = append(out, value.StringValue(v.OID().Hex()))
	case value.Date:
		out = append(out, value.StringValue(time.UnixMilli(v.Date()).UTC().Format(time.RFC3339Nano)))
	}
	return out
}

// regexCase: the regex matches only when case is ignored.
func (h *hinter) regexCase(i int) (*Hint, error) {
	p := h.preds[i]
	opts := p.operand.Get("$options").Str()
	pattern := p.operand.Get("$regex").Str()
	if strings.Contains(opts, "i") || (strings.HasPrefix(pattern, "/") && strings.HasSuffix(strings.TrimRight(pattern, "msxu"), "i")) {
		return nil, nil
	}
	q := p
	if strings.HasPrefix(pattern, "/") && strings.LastIndexByte(pattern, '/') > 0 {
		q.operand = value.ObjectValue([]value.Field{{Key: "$regex", Value: value.StringValue(pattern + "i")}})
	} else {
		q.operand = value.ObjectValue([]value.Field{{Key: "$regex", Value: value.StringValue(pattern)}, {Key: "$options", Value: value.StringValue(opts + "i")}})
	}
	if _, err := query.CompileFilter(q.value()); err != nil {
		return nil, nil
	}
	alone, err := h.count(q.value())
	if err != nil || alone == 0 {
		return nil, err
	}
	v, n, err := h.fix(i, q)
	if err != nil {
		return nil, err
	}
	return &Hint{Kind: "regex_case", Fix: value.JSON(v), WouldMatch: n, fixed: &q,
		Message: fmt.Sprintf("the regular expression matches %d document(s) when case is ignored (the i option): %s", alone, q.value())}, nil
}

// inNested: $in with one element that is an array looks for that array,
// not for any of its values.
func (h *hinter) inNested(i int) (*Hint, error) {
	p := h.preds[i]
	q := p
	q.operand = p.operand.Index(0)
	v, n, err := h.fix(i, q)
	if err != nil {
		return nil, err
	}
	return &Hint{Kind: "in_nested_array", Fix: value.JSON(v), WouldMatch: n, fixed: &q,
		Message: fmt.Sprintf("$in lists one element, which is an array, so it looks for that whole array; to match any of its values, list them: %s matches %d", q.value(), n)}, nil
}
