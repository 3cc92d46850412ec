package mcpserver

import (
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// compileFilter compiles a filter argument. A missing or empty filter is
// nil, which matches every document.
func compileFilter(spec value.Value) (*query.Filter, error) {
	if spec.IsMissing() || spec.Kind() == value.Object && spec.Len() == 0 {
		return nil, nil
	}
	f, err := query.CompileFilter(spec)
	if err != nil {
		return nil, filterError(err)
	}
	return f, nil
}
