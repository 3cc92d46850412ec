package mcpserver

import (
	"strings"

	"github.com/omgdb/omgdb/query"
)

// compileFilter compiles a filter argument. A missing or empty filter is
// nil, which matches every document.
func compileFilter(spec query.Value) (*query.Filter, error) {
	if spec.IsMissing() || spec.Kind() == query.Object && spec.Len() == 0 {
		return nil, nil
	}
	if op := firstOperator(spec); op != "" {
		// Interim, until the full filter language lands in query: the
		// equality-only compiler would take an operator for a value and
		// match nothing, silently.
		return nil, &toolError{code: CodeInvalidFilter,
			msg:  "query operator " + op + " is not supported by this build yet",
			hint: `use equality on fields and dotted paths, e.g. {"address.city":"Paris"}`, next: []string{"describe"}}
	}
	f, err := query.CompileFilter(spec)
	if err != nil {
		return nil, filterError(err)
	}
	return f, nil
}

// firstOperator returns the first key starting with '$' anywhere in v.
func firstOperator(v query.Value) string {
	switch v.Kind() {
	case query.Object:
		for _, f := range v.Fields() {
			if strings.HasPrefix(f.Key, "$") {
				return f.Key
			}
			if op := firstOperator(f.Value); op != "" {
				return op
			}
		}
	case query.Array:
		for _, e := range v.Array() {
			if op := firstOperator(e); op != "" {
				return op
			}
		}
	}
	return ""
}
