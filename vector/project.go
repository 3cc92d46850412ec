package vector

import (
	"strings"

	"github.com/omgdb/omgdb/query"
)

// Projection shapes the documents of search hits: {"a":1,"b.c":1} keeps
// those fields (and _id unless "_id":0), {"a":0} drops them. It is a
// subset of MongoDB's find projection (no operators), until the query
// language's projection is available to this package.
type Projection struct {
	include bool
	paths   [][]string
	noID    bool
}

// CompileProjection checks a projection document.
func CompileProjection(spec query.Value) (*Projection, error) {
	if spec.Kind() != query.Object {
		return nil, query.Errorf(query.Invalid, "projection must be an object, got %s", spec.TypeName())
	}
	p := &Projection{}
	mode := -1
	for _, f := range spec.Fields() {
		v := f.Value
		on := v.Bool() || (v.IsNumber() && v.Float() != 0)
		if !(v.Kind() == query.Bool || v.IsNumber()) || strings.HasPrefix(f.Key, "$") {
			return nil, query.Errorf(query.Invalid, "projection of %q must be 1, 0, true or false", f.Key).
				WithHint(`use {"field":1} to keep fields or {"field":0} to drop them`)
		}
		if f.Key == "_id" {
			p.noID = !on
			continue
		}
		m := 0
		if on {
			m = 1
		}
		if mode >= 0 && m != mode {
			return nil, query.Errorf(query.Invalid, "projection cannot mix inclusion and exclusion (field %q)", f.Key).
				WithHint("list only fields to keep, or only fields to drop; _id may be dropped in either")
		}
		mode = m
		p.paths = append(p.paths, strings.Split(f.Key, "."))
	}
	p.include = mode == 1 || (mode == -1 && p.noID)
	return p, nil
}

// Apply returns doc shaped by the projection.
func (p *Projection) Apply(doc query.Value) query.Value {
	var out query.Value
	if p.include {
		out = query.ObjectValue(nil)
		if !p.noID && !doc.Get("_id").IsMissing() {
			out = out.With("_id", doc.Get("_id"))
		}
		for _, path := range p.paths {
			out = keep(out, doc, path)
		}
		return out
	}
	out = doc
	for _, path := range p.paths {
		out = drop(out, path)
	}
	if p.noID {
		out = out.Without("_id")
	}
	return out
}

func keep(dst, src query.Value, path []string) query.Value {
	v := src.Get(path[0])
	if v.IsMissing() {
		return dst
	}
	if len(path) == 1 {
		return dst.With(path[0], v)
	}
	switch v.Kind() {
	case query.Object:
		sub := dst.Get(path[0])
		if sub.Kind() != query.Object {
			sub = query.ObjectValue(nil)
		}
		return dst.With(path[0], keep(sub, v, path[1:]))
	case query.Array:
		var arr []query.Value
		for _, e := range v.Array() {
			if e.Kind() == query.Object {
				arr = append(arr, keep(query.ObjectValue(nil), e, path[1:]))
			}
		}
		return dst.With(path[0], query.ArrayValue(arr))
	}
	return dst
}

func drop(v query.Value, path []string) query.Value {
	switch {
	case v.Kind() == query.Array:
		arr := make([]query.Value, len(v.Array()))
		for i, e := range v.Array() {
			arr[i] = drop(e, path)
		}
		return query.ArrayValue(arr)
	case v.Kind() != query.Object || v.Get(path[0]).IsMissing():
		return v
	case len(path) == 1:
		return v.Without(path[0])
	}
	return v.With(path[0], drop(v.Get(path[0]), path[1:]))
}
