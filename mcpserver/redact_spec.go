package mcpserver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Filters, updates and array filters hold values too: a plan made with
// {"ssn":"987-65-4321"} keeps it in its filter and in the note of the
// change that applies it. Wherever the server shows one, a value given to
// a redacted path is replaced by redactedMark, the way documents lose
// their redacted fields.

// redactedMark stands for a value the policy hides.
const redactedMark = "<redacted>"

// specRedactor hides, in the filters and updates of one collection, the
// values that address its redacted paths. hit records whether it hid
// anything.
type specRedactor struct {
	paths  [][]string // redacted paths, normalised
	hit    bool
	hidden []string // the text of the scalars it hid, for scrubbing messages
}

// specRedactor returns the redactor of a collection's filters and
// updates, or nil when the collection has no redacted field. With coll
// empty (a revert plan, which spans collections) every redaction counts.
func (p *policy) specRedactor(coll string) *specRedactor {
	paths := p.redactions(coll)
	if coll == "" {
		paths = p.redactionsAny()
	}
	if len(paths) == 0 {
		return nil
	}
	r := &specRedactor{}
	for _, fp := range paths {
		r.paths = append(r.paths, normalPath(fp))
	}
	return r
}

// normalPath drops the components of a field path that may stand for an
// array index (numbers, $, $[] and $[id]): redaction goes through
// arrays, so items.0.ssn and items.$[].ssn address items.ssn.
func normalPath(p []string) []string {
	out := make([]string, 0, len(p))
	for _, c := range p {
		if _, err := strconv.Atoi(c); err == nil || strings.HasPrefix(c, "$") {
			continue
		}
		out = append(out, c)
	}
	return out
}

func splitPath(prefix []string, key string) []string {
	return append(slices.Clip(prefix), normalPath(strings.Split(key, "."))...)
}

// inside reports whether a path is, or is inside, a redacted path.
func (r *specRedactor) inside(path []string) bool {
	for _, rp := range r.paths {
		if len(path) >= len(rp) && slices.Equal(path[:len(rp)], rp) {
			return true
		}
	}
	return false
}

// above reports whether a redacted path lies strictly below path.
func (r *specRedactor) above(path []string) bool {
	for _, rp := range r.paths {
		if len(rp) > len(path) && slices.Equal(rp[:len(path)], path) {
			return true
		}
	}
	return false
}

// mark returns redactedMark in place of v, and remembers v's scalars.
func (r *specRedactor) mark(v value.Value) value.Value {
	r.hit = true
	r.remember(v)
	return value.StringValue(redactedMark)
}

func (r *specRedactor) remember(v value.Value) {
	switch v.Kind() {
	case value.Array:
		for _, e := range v.Array() {
			r.remember(e)
		}
	case value.Object:
		for _, f := range v.Fields() {
			r.remember(f.Value)
		}
	case value.String:
		r.hidden = append(r.hidden, v.Str())
	default:
		r.hidden = append(r.hidden, v.String())
	}
}

// filter returns a filter with the values it gives to redacted paths
// replaced, at any depth of $and, $or, $nor and $elemMatch. Top-level
// operators that can read any field ($where, $jsonSchema, $text, an
// $expr that names a redacted field or a variable) are hidden whole.
func (r *specRedactor) filter(f value.Value, prefix []string) value.Value {
	if f.Kind() != value.Object {
		return f
	}
	fields := make([]value.Field, len(f.Fields()))
	for i, fl := range f.Fields() {
		fields[i] = value.Field{Key: fl.Key, Value: r.clause(fl.Key, fl.Value, prefix)}
	}
	return value.ObjectValue(fields)
}

func (r *specRedactor) clause(key string, v value.Value, prefix []string) value.Value {
	switch key {
	case "$and", "$or", "$nor":
		if v.Kind() != value.Array {
			return v
		}
		elems := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = r.filter(e, prefix)
		}
		return value.ArrayValue(elems)
	case "$expr":
		if r.exprReads(v) {
			return r.mark(v)
		}
		return v
	}
	if strings.HasPrefix(key, "$") {
		return r.mark(v)
	}
	path := splitPath(prefix, key)
	switch {
	case r.inside(path):
		return r.mark(v)
	case r.above(path):
		return r.condition(path, v)
	}
	return v
}

// condition hides the redacted parts of the condition on a path above a
// redacted one: an operator object, or a value compared for equality.
func (r *specRedactor) condition(path []string, v value.Value) value.Value {
	if !isOperatorObject(v) {
		return r.value(path, v)
	}
	fields := make([]value.Field, len(v.Fields()))
	for i, op := range v.Fields() {
		nv := op.Value
		switch op.Key {
		case "$elemMatch":
			if isOperatorObject(nv) {
				nv = r.condition(path, nv)
			} else {
				nv = r.filter(nv, path)
			}
		case "$not":
			nv = r.condition(path, nv)
		case "$exists", "$type", "$size", "$options":
		default:
			nv = r.value(path, nv)
		}
		fields[i] = value.Field{Key: op.Key, Value: nv}
	}
	return value.ObjectValue(fields)
}

func isOperatorObject(v value.Value) bool {
	fs := v.Fields()
	return v.Kind() == value.Object && len(fs) > 0 && strings.HasPrefix(fs[0].Key, "$")
}

// value hides the parts of a value, found at path, that lie under a
// redacted path.
func (r *specRedactor) value(path []string, v value.Value) value.Value {
	for _, rp := range r.paths {
		if len(rp) > len(path) && slices.Equal(rp[:len(path)], path) {
			v = r.markPath(v, rp[len(path):])
		}
	}
	return v
}

// markPath replaces the field at p (through arrays, and through
// operator keys such as $each and $in) with redactedMark.
func (r *specRedactor) markPath(v value.Value, p []string) value.Value {
	switch v.Kind() {
	case value.Array:
		elems := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = r.markPath(e, p)
		}
		return value.ArrayValue(elems)
	case value.Object:
		fields := make([]value.Field, len(v.Fields()))
		for i, f := range v.Fields() {
			nv := f.Value
			switch {
			case strings.HasPrefix(f.Key, "$"):
				nv = r.markPath(nv, p)
			default:
				fp := normalPath(strings.Split(f.Key, "."))
				if len(fp) >= len(p) && slices.Equal(fp[:len(p)], p) {
					nv = r.mark(nv)
				} else if len(fp) < len(p) && slices.Equal(p[:len(fp)], fp) {
					nv = r.markPath(nv, p[len(fp):])
				}
			}
			fields[i] = value.Field{Key: f.Key, Value: nv}
		}
		return value.ObjectValue(fields)
	}
	return v
}

// exprReads reports whether an aggregation expression may read a
// redacted field: it names one ($ssn, $profile), a variable ($$ROOT,
// $$CURRENT, a let), or reads fields by name.
func (r *specRedactor) exprReads(v value.Value) bool {
	switch v.Kind() {
	case value.String:
		s := v.Str()
		if strings.HasPrefix(s, "$$") {
			return true
		}
		if ref, ok := strings.CutPrefix(s, "$"); ok {
			p := normalPath(strings.Split(ref, "."))
			return r.inside(p) || r.above(p)
		}
	case value.Array:
		return slices.ContainsFunc(v.Array(), r.exprReads)
	case value.Object:
		for _, f := range v.Fields() {
			if f.Key == "$getField" || f.Key == "$setField" || f.Key == "$function" || f.Key == "$accumulator" ||
				f.Key == "$literal" || r.exprReads(f.Value) {
				return true
			}
		}
	}
	return false
}

// update returns an update with the values it writes to redacted paths
// replaced: operator values ({"$set":{"ssn":"<redacted>"}}, $push's
// $each, $pull's conditions), $rename's source and target, and the
// fields of a replacement document.
func (r *specRedactor) update(u value.Value) value.Value {
	switch {
	case u.Kind() == value.Array:
		return r.mark(u) // a pipeline: any stage may read any field
	case !isOperatorObject(u):
		return r.value(nil, u)
	}
	fields := make([]value.Field, len(u.Fields()))
	for i, op := range u.Fields() {
		nv := op.Value
		if nv.Kind() == value.Object {
			nv = r.operatorFields(op.Key, nv)
		}
		fields[i] = value.Field{Key: op.Key, Value: nv}
	}
	return value.ObjectValue(fields)
}

func (r *specRedactor) operatorFields(op string, v value.Value) value.Value {
	fields := make([]value.Field, len(v.Fields()))
	for i, f := range v.Fields() {
		path, nv := splitPath(nil, f.Key), f.Value
		switch {
		case op == "$rename":
			to := normalPath(strings.Split(nv.Str(), "."))
			if r.inside(path) || r.above(path) || r.inside(to) || r.above(to) {
				r.hit = true // a name, not a value: shown, but the plan touches a redacted field
			}
		case r.inside(path):
			nv = r.mark(nv)
		case r.above(path):
			nv = r.value(path, nv)
		}
		fields[i] = value.Field{Key: f.Key, Value: nv}
	}
	return value.ObjectValue(fields)
}

// arrayFilters hides the values array filters give to redacted paths.
// An identifier's filter addresses the elements of the array its $[id]
// stands in (in the update's paths); one whose array is unknown is
// hidden whole.
func (r *specRedactor) arrayFilters(update value.Value, afs []value.Value) []value.Value {
	bases := identifierPaths(update)
	out := make([]value.Value, len(afs))
	for i, af := range afs {
		if af.Kind() != value.Object {
			out[i] = af
			continue
		}
		fields := make([]value.Field, len(af.Fields()))
		for j, f := range af.Fields() {
			ident, rest, _ := strings.Cut(f.Key, ".")
			base, ok := bases[ident]
			nv := f.Value
			switch {
			case !ok:
				nv = r.mark(nv)
			case rest == "":
				nv = r.clause(strings.Join(base, "."), nv, nil)
			default:
				nv = r.clause(rest, nv, base)
			}
			fields[j] = value.Field{Key: f.Key, Value: nv}
		}
		out[i] = value.ObjectValue(fields)
	}
	return out
}

// identifierPaths maps each $[id] of an update's paths to the path of the
// array it stands in, normalised.
func identifierPaths(u value.Value) map[string][]string {
	bases := map[string][]string{}
	for _, op := range u.Fields() {
		for _, f := range op.Value.Fields() {
			comps := strings.Split(f.Key, ".")
			for i, c := range comps {
				if id, ok := strings.CutPrefix(c, "$["); ok && id != "]" {
					bases[strings.TrimSuffix(id, "]")] = normalPath(comps[:i])
				}
			}
		}
	}
	return bases
}
