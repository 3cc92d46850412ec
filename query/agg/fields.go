package agg

import (
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// Fields returns the dotted paths of the input documents that the
// pipeline reads, when it can tell: for pipelines of $match and $unwind
// stages that end in $group or $count, whose output holds only what they
// compute. ok is false when the pipeline may need whole documents (other
// stages, $expr, $$ROOT, $getField, …). The store decodes only these paths
// (ParseFields), as MongoDB projects a pipeline's dependencies.
func (p *Pipeline) Fields() (paths []string, ok bool) { return p.fields, p.fieldsOK }

// pipelineFields computes Fields from the pipeline's specification.
func pipelineFields(stages value.Value) ([]string, bool) {
	var out []string
	for _, s := range stages.Array() {
		if s.Kind() != value.Object || s.Len() != 1 {
			return nil, false
		}
		name, arg := s.Fields()[0].Key, s.Fields()[0].Value
		switch name {
		case "$match":
			if arg.Kind() != value.Object || hasExpr(arg) {
				return nil, false
			}
			f, err := query.CompileFilter(arg)
			if err != nil {
				return nil, false
			}
			out = append(out, f.Fields()...)
		case "$unwind":
			if !exprFields(arg, &out) {
				return nil, false
			}
		case "$group":
			return out, exprFields(arg, &out)
		case "$count":
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// exprFields adds the field paths an expression (or a stage specification
// made of expressions) refers to, and reports false when it may read the
// whole document. It errs towards adding too much, which costs only time.
func exprFields(v value.Value, out *[]string) bool {
	switch v.Kind() {
	case value.String:
		s := v.Str()
		switch {
		case strings.HasPrefix(s, "$$"):
			name, path, _ := strings.Cut(s[2:], ".")
			if name == "ROOT" || name == "CURRENT" {
				if path == "" {
					return false
				}
				*out = append(*out, path)
			}
		case strings.HasPrefix(s, "$") && len(s) > 1:
			*out = append(*out, s[1:])
		}
	case value.Array:
		for _, e := range v.Array() {
			if !exprFields(e, out) {
				return false
			}
		}
	case value.Object:
		for _, f := range v.Fields() {
			switch f.Key {
			case "$getField", "$setField", "$unsetField":
				return false // they name fields without '$'
			case "sortBy": // $top, $bottom, $topN, $bottomN sort by field names
				for _, k := range f.Value.Fields() {
					*out = append(*out, k.Key)
				}
			}
			if !exprFields(f.Value, out) {
				return false
			}
		}
	}
	return true
}
