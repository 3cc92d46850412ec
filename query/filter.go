package query

import "strings"

// Filter is a compiled query filter. (Interim: equality on top-level and
// dotted fields, with implicit array traversal; the full language lands in
// the query-language issue.)
type Filter struct {
	preds []eqPred
}

type eqPred struct {
	path []string
	want Value
}

// CompileFilter validates a filter document and compiles it.
func CompileFilter(spec Value) (*Filter, error) {
	if spec.Kind() != Object {
		return nil, Errorf(Invalid, "malformed query: filter must be an object, got %s", spec.TypeName())
	}
	f := &Filter{}
	for _, fl := range spec.Fields() {
		if strings.HasPrefix(fl.Key, "$") {
			return nil, Errorf(Invalid, "unknown top level operator: %s", fl.Key)
		}
		f.preds = append(f.preds, eqPred{strings.Split(fl.Key, "."), fl.Value})
	}
	return f, nil
}

// Match reports whether doc satisfies the filter.
func (f *Filter) Match(doc Value) bool {
	for _, p := range f.preds {
		if !matchEq(doc, p.path, p.want) {
			return false
		}
	}
	return true
}

func matchEq(v Value, path []string, want Value) bool {
	if len(path) == 0 {
		if Equal(v, want) {
			return true
		}
		for _, e := range v.Array() {
			if Equal(e, want) {
				return true
			}
		}
		return false
	}
	switch v.Kind() {
	case Object:
		return matchEq(v.Get(path[0]), path[1:], want)
	case Array:
		for _, e := range v.Array() {
			if e.Kind() == Object && matchEq(e, path, want) {
				return true
			}
		}
		return false
	}
	return want.IsNull() && matchEq(Value{}, path[1:], want)
}
