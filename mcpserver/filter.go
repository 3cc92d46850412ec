package mcpserver

import (
	"github.com/omgdb/omgdb/query"
)

// compileFilter compiles a filter argument. A missing or empty filter is
// nil, which matches every document.
func compileFilter(spec query.Value) (*query.Filter, error) {
	if spec.IsMissing() || spec.Kind() == query.Object && spec.Len() == 0 {
		return nil, nil
	}
	f, err := query.CompileFilter(spec)
	if err != nil {
		return nil, filterError(err)
	}
	return f, nil
}
