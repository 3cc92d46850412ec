package agg

import (
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $unwind: one output document per element of an array field.

type unwindStage struct {
	path     []string
	index    []string // includeArrayIndex, or nil
	preserve bool
}

func compileUnwindStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	s := &unwindStage{}
	path := spec
	if spec.Kind() == value.Object {
		path = spec.Get("path")
		if err := s.options(spec); err != nil {
			return nil, err
		}
	}
	if path.Kind() != value.String {
		return nil, errs.Errorf(errs.Invalid, "$unwind requires a path: a string prefixed with '$', found %s", path.TypeName()).
			WithHint(`write {"$unwind":"$field"}`)
	}
	p := path.Str()
	if !strings.HasPrefix(p, "$") || strings.HasPrefix(p, "$$") {
		return nil, errs.Errorf(errs.Invalid, "path option to $unwind stage should be prefixed with a '$': %s", p).
			WithHint(`write "$%s"`, strings.TrimLeft(p, "$"))
	}
	parts, err := expr.SplitPath(p, p[1:])
	if err != nil {
		return nil, err
	}
	s.path = parts
	return s, nil
}

func (s *unwindStage) options(spec value.Value) error {
	for _, f := range spec.Fields() {
		switch f.Key {
		case "path":
		case "includeArrayIndex":
			if f.Value.Kind() != value.String || f.Value.Str() == "" {
				return errs.Errorf(errs.Invalid, "expected a non-empty string for the includeArrayIndex option to $unwind stage, got %s", f.Value.TypeName())
			}
			if strings.HasPrefix(f.Value.Str(), "$") {
				return errs.Errorf(errs.Invalid, "includeArrayIndex option to $unwind stage should not be prefixed with a '$': %s", f.Value.Str())
			}
			parts, err := projPath("$unwind", f.Value.Str())
			if err != nil {
				return err
			}
			s.index = parts
		case "preserveNullAndEmptyArrays":
			if f.Value.Kind() != value.Bool {
				return errs.Errorf(errs.Invalid, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got %s", f.Value.TypeName())
			}
			s.preserve = f.Value.Bool()
		default:
			return errs.Errorf(errs.Invalid, "unrecognized option to $unwind stage: %s%s", f.Key, errs.DidYouMean(f.Key, []string{"path", "includeArrayIndex", "preserveNullAndEmptyArrays"}))
		}
	}
	if spec.Get("path").IsMissing() {
		return errs.Errorf(errs.Invalid, "no path specified to $unwind stage")
	}
	return nil
}

func (s *unwindStage) run(r *runState, in Source) Source {
	var doc value.Value
	var elems []value.Value
	i := 0
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		for i >= len(elems) {
			var ok bool
			var err error
			if doc, ok, err = r.pull(in); err != nil || !ok {
				return value.Value{}, false, err
			}
			v := getPath(doc, s.path)
			if v.Kind() == value.Array && v.Len() > 0 {
				elems, i = v.Array(), 0
				break
			}
			elems = nil
			if out, ok := s.single(doc, v); ok {
				return out, true, nil
			}
		}
		out := value.SetPath(doc, s.path, elems[i])
		if s.index != nil {
			out = value.SetPath(out, s.index, value.LongValue(int64(i)))
		}
		i++
		return out, true, nil
	}}
}

// single handles a value that is not a non-empty array: a scalar passes
// as is; null, missing and [] pass only with preserveNullAndEmptyArrays,
// and [] is removed.
func (s *unwindStage) single(doc, v value.Value) (value.Value, bool) {
	if (expr.Nullish(v) || v.Kind() == value.Array) && !s.preserve {
		return value.Value{}, false
	}
	if v.Kind() == value.Array {
		doc = unsetPath(doc, s.path)
	}
	if s.index != nil {
		doc = value.SetPath(doc, s.index, value.NullValue())
	}
	return doc, true
}

// getPath follows a path through objects only (no array traversal).
func getPath(v value.Value, path []string) value.Value {
	for _, p := range path {
		if v.Kind() != value.Object {
			return value.MissingValue
		}
		v = v.Get(p)
	}
	return v
}

// unsetPath removes the field at path, if the objects on the way exist.
func unsetPath(doc value.Value, path []string) value.Value {
	if doc.Kind() != value.Object {
		return doc
	}
	if len(path) == 1 {
		return doc.Without(path[0])
	}
	sub := doc.Get(path[0])
	if sub.Kind() != value.Object {
		return doc
	}
	return doc.With(path[0], unsetPath(sub, path[1:]))
}
