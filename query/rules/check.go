package rules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Check returns the first way doc breaks the rules, as an Invalid error
// naming the collection, the field, what was expected and what was found,
// and the document's _id; or nil.
func (r *Rules) Check(coll string, doc value.Value) error {
	if r == nil {
		return nil
	}
	for _, path := range r.required {
		if lookupRule(doc, strings.Split(path, ".")).IsMissing() {
			return r.violation(coll, doc, path, "required field `%s` is missing", path)
		}
	}
	for i := range r.fields {
		if msg := r.fields[i].check(doc, r.fields[i].parts); msg != "" {
			return r.violation(coll, doc, r.fields[i].path, "%s", msg)
		}
	}
	if r.validator != nil {
		ok, err := r.validator.MatchErr(doc)
		if err != nil || !ok {
			e := violationErr("document _id %s breaks the rules of collection `%s`: it does not match the validator (Document failed validation)", doc.Get("_id"), coll)
			e.Hint = "make the document match the `validator` of the rules (see `omgdb describe`), or change it with `omgdb define`"
			return e
		}
	}
	return nil
}

func (r *Rules) violation(coll string, doc value.Value, field, format string, args ...any) error {
	e := violationErr("document _id %s breaks the rules of collection `%s`: "+format,
		append([]any{doc.Get("_id"), coll}, args...)...)
	e.Hint = fmt.Sprintf("fix field `%s` of the document, or change the rules with `omgdb define`", field)
	return e
}

// ErrViolation is wrapped by every error of Check: a document breaks its
// collection's rules.
var ErrViolation = errors.New("rules: document breaks the collection's rules")

func violationErr(format string, args ...any) *errs.Error {
	e := errs.Errorf(errs.Invalid, format, args...)
	e.Err = ErrViolation
	return e
}

// lookupRule follows a dotted path through objects only.
func lookupRule(v value.Value, parts []string) value.Value {
	for _, p := range parts {
		if v.Kind() != value.Object {
			return value.Value{}
		}
		v = v.Get(p)
	}
	return v
}

// check applies the rule at parts within v, descending into each object
// element of an array met along the way, and returns a message or "".
func (fr *fieldRule) check(v value.Value, parts []string) string {
	for i, p := range parts {
		switch v.Kind() {
		case value.Object:
			v = v.Get(p)
		case value.Array:
			for _, e := range v.Array() {
				if e.Kind() == value.Object {
					if msg := fr.check(e, parts[i:]); msg != "" {
						return msg
					}
				}
			}
			return ""
		default:
			return ""
		}
	}
	if v.IsMissing() {
		return ""
	}
	return fr.checkValue(v)
}

func (fr *fieldRule) checkValue(v value.Value) string {
	if len(fr.types) > 0 {
		ok := false
		for _, t := range fr.types {
			ok = ok || typeMatches(t, v)
		}
		if !ok {
			return fmt.Sprintf("field `%s` must be %s, got %s %s", fr.path, strings.Join(fr.types, " or "), v.TypeName(), clip(v))
		}
	}
	if fr.enum != nil {
		ok := false
		for _, e := range fr.enum {
			ok = ok || value.Equal(e, v)
		}
		if !ok {
			return fmt.Sprintf("field `%s` must be one of %s, got %s", fr.path, value.ArrayValue(fr.enum), clip(v))
		}
	}
	if !fr.min.IsMissing() && value.TypeRank(fr.min) == value.TypeRank(v) && value.Compare(v, fr.min) < 0 {
		return fmt.Sprintf("field `%s` must be at least %s, got %s", fr.path, fr.min, clip(v))
	}
	if !fr.max.IsMissing() && value.TypeRank(fr.max) == value.TypeRank(v) && value.Compare(v, fr.max) > 0 {
		return fmt.Sprintf("field `%s` must be at most %s, got %s", fr.path, fr.max, clip(v))
	}
	if fr.pattern != nil && v.Kind() == value.String && !fr.pattern.MatchString(v.Str()) {
		return fmt.Sprintf("field `%s` must match /%s/, got %s", fr.path, fr.pattern, clip(v))
	}
	return ""
}

// clip returns v as JSON, shortened for a message.
func clip(v value.Value) string {
	s := []rune(v.String())
	if len(s) > 60 {
		return string(s[:57]) + "…"
	}
	return string(s)
}
