package mcpserver

import (
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Parameters shared by the data tools. Descriptions are short: every
// word is paid for on each tools/list.

func (s *Server) pathParam() param {
	if s.cfg.Store != "" {
		return param{Name: "path", Type: "string", Description: "Optional: this server serves only " + s.cfg.Store + "."}
	}
	return param{Name: "path", Type: "string", Required: true, Description: "Store file."}
}

var (
	collectionParam = param{Name: "collection", Type: "string", Required: true}
	filterParam     = param{Name: "filter", Type: "object", Description: "MongoDB filter."}
	limitParam      = param{Name: "limit", Type: "integer", Description: "Max documents.",
		Min: i64(1), Max: i64(MaxLimit), Default: value.LongValue(100)}
	skipParam   = param{Name: "skip", Type: "integer", Min: i64(0), Description: "Matches to skip."}
	cursorParam = param{Name: "cursor", Type: "string", Description: "Next page of a capped result."}
)

// example returns an example argument object as JSON. It leaves out
// path, which every data tool takes and describes once per tool.
func (s *Server) example(kv ...any) string {
	return string(value.AppendJSON(nil, obj(kv...)))
}

// outputSchema returns an object schema whose properties describe a
// success (input echoes such as collection left out: they cost tokens on
// every tools/list and tell nothing); it also admits the error envelope
// ({code, message, …}, told by its code), because some clients validate
// isError results against outputSchema too.
func outputSchema(required []string, props ...any) value.Value {
	return obj("type", "object", "properties", obj(props...),
		"anyOf", arr(obj("required", required), obj("required", []string{"code"})))
}

// Schemas of output properties.
func tInt() value.Value                  { return obj("type", "integer") }
func tStr() value.Value                  { return obj("type", "string") }
func tBool() value.Value                 { return obj("type", "boolean") }
func tObj() value.Value                  { return obj("type", "object") }
func tArr(items value.Value) value.Value { return obj("type", "array", "items", items) }
func tList() value.Value                 { return obj("type", "array") } // of objects: said once here, not per list

func sentence(parts ...string) string { return strings.Join(parts, " ") }
