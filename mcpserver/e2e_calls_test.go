package mcpserver_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// The end-to-end tables: every tool of the catalog with valid and
// invalid arguments, at read, read-write and dangerous scope (runE2E).

var readCalls = []e2eCall{
	{tool: "describe", args: app()},
	{tool: "describe", args: app("collection", "user"), code: "NOT_FOUND"},
	{tool: "find", args: app("collection", "users", "filter", m{"tags": "go"}, "limit", 1), check: wantLen("documents", 1)},
	{tool: "find", args: app("collection", "users", "limit", 0), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "find", args: m{"path": "../app.omgdb", "collection": "users"}, code: "PATH_DENIED"},
	{tool: "find", args: app("collection", "users", "filter", m{"age": m{"$gt": 20}}, "sort", m{"age": -1}, "project", m{"name": 1, "_id": 0}),
		check: wantField("documents", []any{m{"name": "ada"}, m{"name": "bob"}})},
	{tool: "find", args: app("collection", "users", "sort", m{"age": "down"}), code: "INVALID_ARGUMENT"},
	{tool: "find", args: app("collection", "users", "filter", m{"age": m{"$gtee": 1}}), code: "INVALID_FILTER"},
	{tool: "find", args: app("collection", "users", "at", "0"), code: "NOT_FOUND"},
	{tool: "count", args: app("collection", "users", "filter", m{"age": 25}), check: wantField("count", 1.0)},
	{tool: "count", args: app("collection", "users", "filter", "age"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "aggregate", args: app("collection", "users", "pipeline", []any{
		m{"$group": m{"_id": nil, "n": m{"$sum": 1}, "avg": m{"$avg": "$age"}}}})},
	{tool: "aggregate", args: app("collection", "users", "pipeline", []any{m{"$out": "x"}}), code: "INVALID_ARGUMENT"},
	{tool: "aggregate", args: app("collection", "users", "pipeline", m{"$match": m{}}), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "explain", args: app("collection", "users", "filter", m{"age": m{"$gt": 30}}, "sort", m{"name": 1})},
	{tool: "explain", args: app("collection", "users", "filter", m{"$where": "1"}), code: "INVALID_FILTER"},
	{tool: "diagnose", args: app("collection", "users", "filter", m{"nmae": "ada"})},
	{tool: "diagnose", args: app("filter", m{"name": "ada"}), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "vsearch", args: app("collection", "notes", "field", "body", "query", "backup policy", "k", 2), check: wantLen("hits", 2)},
	{tool: "vsearch", args: app("collection", "notes", "field", "body", "query", "backup", "k", 0), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "search", args: app("collection", "notes", "query", "backup -tape"), check: wantLen("hits", 1)},
	{tool: "search", args: app("collection", "users", "query", "ada"), code: "NOT_FOUND"},
	{tool: "search", args: app("collection", "notes"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "context_pack", args: app("collection", "notes", "field", "body", "query", "backup schedule", "budget", 100)},
	{tool: "context_pack", args: app("collection", "notes", "field", "body", "query", "x", "budget", 0), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "history", args: app("limit", 5)},
	{tool: "history", args: app("limt", 5), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "diff", args: app("from", "0")},
	{tool: "diff", args: app(), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "plans", args: app("all", true)},
	{tool: "plans", args: app("token", "nope"), code: "INVALID_ARGUMENT"},
	// the parity tools (tool_distinct.go, tool_stats.go, tool_suggest.go)
	{tool: "distinct", args: app("collection", "users", "field", "tags"), check: wantField("values", []any{"go"})},
	{tool: "distinct", args: app("collection", "users", "field", "age", "filter", m{"age": m{"$lt": 30}}), check: wantField("values", []any{25.0})},
	{tool: "distinct", args: app("collection", "users", "field", "$age"), code: "INVALID_ARGUMENT"},
	{tool: "distinct", args: app("collection", "users"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "export", args: app("collection", "users", "sort", m{"age": 1}, "project", m{"name": 1}), save: map[string]string{"export": "uri"},
		check: func(t *testing.T, sc map[string]any) {
			if sc["documents"] != 2.0 || sc["pages"] != 1.0 || !strings.HasPrefix(sc["uri"].(string), "omgdb://app.omgdb/exports/") {
				t.Errorf("export: %v", sc)
			}
		}},
	{tool: "export", args: app("collection", "users", "limit", 0), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "stats", args: app(), check: func(t *testing.T, sc map[string]any) {
		if sc["documents"] != 5.0 || sc["file_bytes"].(float64) <= 0 || len(sc["collections"].([]any)) != 2 {
			t.Errorf("stats: %v", sc)
		}
	}},
	{tool: "stats", args: app("collection", "nope"), code: "NOT_FOUND"},
	{tool: "list_indexes", args: app("collection", "notes"), check: func(t *testing.T, sc map[string]any) {
		list, _ := sc["indexes"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["name"] != "text" {
			t.Errorf("list_indexes notes: %v", sc)
		}
	}},
	{tool: "list_indexes", args: app(), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "suggest_indexes", args: app("collection", "users", "filter", m{"name": "ada"}), check: func(t *testing.T, sc map[string]any) {
		list, _ := sc["suggestions"].([]any)
		if len(list) == 0 || !reflect.DeepEqual(list[0].(map[string]any)["key"], m{"name": 1.0}) {
			t.Errorf("suggest_indexes: %v", sc)
		}
	}},
	{tool: "suggest_indexes", args: app("collection", "users", "sort", m{"age": "up"}), code: "INVALID_ARGUMENT"},
	{tool: "explain", args: app("collection", "users", "verbosity", "executionStats"), check: func(t *testing.T, sc map[string]any) {
		st, _ := sc["plan"].(map[string]any)["executionStats"].(map[string]any)
		if st["totalDocsExamined"] != 2.0 || st["nReturned"] != 2.0 {
			t.Errorf("explain executionStats: %v", sc["plan"])
		}
	}},
	{tool: "explain", args: app("collection", "users", "verbosity", "allPlans"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "find", args: app("collection", "notes", "max_bytes", 100), check: func(t *testing.T, sc map[string]any) {
		if lim, _ := sc["applied_limits"].(map[string]any); lim["max_bytes"] != 100.0 || sc["returned"] != 1.0 {
			t.Errorf("find with max_bytes 100: %v", sc)
		}
	}},
	{tool: "find", args: app("collection", "notes", "max_bytes", 10), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "plans", args: app("token", "0123456789abcdef01234567"), code: "NOT_FOUND"},
	// above the scope: refused, whatever the arguments
	{tool: "insert", args: app("collection", "users", "document", m{}), code: "SCOPE_DENIED"},
	{tool: "apply", args: app("token", "x"), code: "SCOPE_DENIED"},
	{tool: "drop_collection", args: app("collection", "users"), code: "SCOPE_DENIED"},
	{tool: "plan_aggregate", args: app("collection", "users", "pipeline", []any{m{"$out": "copy"}}), code: "SCOPE_DENIED"},
}

var readWriteCalls = []e2eCall{
	{tool: "create_snapshot", args: app("name", "before"), check: wantField("name", "before")},
	{tool: "create_snapshot", args: app("name", "before"), code: "CONFLICT"},
	{tool: "create_snapshot", args: app("name", "9lives"), code: "INVALID_ARGUMENT"},
	{tool: "insert", args: app("collection", "users", "document", m{"name": "cy"}), check: func(t *testing.T, sc map[string]any) {
		if _, ok := sc["inserted_id"].(map[string]any)["$oid"]; !ok {
			t.Errorf("inserted_id = %v, want a generated ObjectId", sc["inserted_id"])
		}
	}},
	{tool: "insert", args: app("collection", "users", "document", m{"_id": 1}), code: "CONFLICT"},
	{tool: "insert", args: app("collection", "users"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	// time travel: the snapshot predates cy
	{tool: "count", args: app("collection", "users"), check: wantField("count", 3.0)},
	{tool: "count", args: app("collection", "users", "at", "before"), check: wantField("count", 2.0)},
	{tool: "find", args: app("collection", "users", "at", "before", "filter", m{"name": "cy"}), check: wantField("matched", 0.0)},
	{tool: "aggregate", args: app("collection", "users", "at", "before", "pipeline", []any{m{"$count": "n"}}),
		check: wantField("documents", []any{m{"n": 2.0}})},
	{tool: "count", args: app("collection", "users", "at", "nope"), code: "NOT_FOUND"},
	{tool: "create_index", args: app("collection", "users", "fields", "age"), check: wantField("name", "age_1")},
	{tool: "create_index", args: app("collection", "users", "fields", "age:2"), code: "INVALID_ARGUMENT"},
	{tool: "create_index", args: app("collection", "users", "fields", "age", "unique", "yes"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "explain", args: app("collection", "users", "filter", m{"age": 25}), check: func(t *testing.T, sc map[string]any) {
		if b, _ := json.Marshal(sc["plan"]); !strings.Contains(string(b), "age_1") {
			t.Errorf("explain does not use age_1: %s", b)
		}
	}},
	// the change lifecycle
	{tool: "plan_update", args: app("collection", "users", "filter", m{"name": "cy"}, "update", m{"$set": m{"age": 3}}),
		save: map[string]string{"token": "token"}, check: wantField("matched", 1.0)},
	{tool: "plan_update", args: app("collection", "users", "update", m{"$frob": m{"age": 1}}), code: "INVALID_ARGUMENT"},
	{tool: "apply", args: app("token", "{{token}}"), save: map[string]string{"applied": "change_id"}},
	{tool: "plans", args: app("token", "{{token}}")},
	{tool: "rollback", args: app("change_id", "{{applied}}")},
	{tool: "rollback", args: app("change_id", "nope"), code: "INVALID_ARGUMENT"},
	{tool: "rollback", args: app("change_id", "0123456789abcdef01234567"), code: "NOT_FOUND"},
	{tool: "apply", args: app("token", "{{token}}"), code: "CONFLICT"},
	{tool: "plan_delete", args: app("collection", "users", "filter", m{"name": "cy"}), check: wantField("matched", 1.0)},
	{tool: "plan_delete", args: app("collection", "users"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "plan_revert", args: app("revision", "before"), save: map[string]string{"revert": "token"}},
	{tool: "plan_revert", args: app("revision", "nope"), code: "NOT_FOUND"},
	{tool: "apply", args: app("token", "{{revert}}")},
	{tool: "count", args: app("collection", "users"), check: wantField("count", 2.0)},
	// plan_aggregate: the writes of $out and $merge, planned, applied, undone
	{tool: "plan_aggregate", args: app("collection", "users", "pipeline", []any{m{"$project": m{"name": 1}}, m{"$out": "names"}}),
		save: map[string]string{"agg": "token"}, check: wantField("matched", 2.0)},
	{tool: "count", args: app("collection", "names"), code: "NOT_FOUND"}, // planning writes nothing
	{tool: "apply", args: app("token", "{{agg}}"), save: map[string]string{"aggApplied": "change_id"}, check: wantField("inserted", 2.0)},
	{tool: "find", args: app("collection", "names", "sort", m{"name": 1}, "project", m{"_id": 0}),
		check: wantField("documents", []any{m{"name": "ada"}, m{"name": "bob"}})},
	{tool: "plan_aggregate", args: app("collection", "users", "pipeline", []any{m{"$set": m{"seen": true}}, m{"$merge": m{"into": "names", "whenMatched": "keepExisting"}}}),
		check: wantField("modified", 0.0)},
	{tool: "rollback", args: app("change_id", "{{aggApplied}}")},
	{tool: "count", args: app("collection", "names"), code: "NOT_FOUND"}, // the collection the apply created is gone
	{tool: "plan_aggregate", args: app("collection", "users", "pipeline", []any{m{"$match": m{}}}), code: "INVALID_ARGUMENT"},
	{tool: "plan_aggregate", args: app("collection", "users", "pipeline", []any{m{"$merge": m{"into": "names", "whenMatched": "sometimes"}}}), code: "INVALID_ARGUMENT"},
	{tool: "plan_aggregate", args: app("collection", "userz", "pipeline", []any{m{"$out": "names"}}), code: "NOT_FOUND"},
	{tool: "plan_aggregate", args: app("collection", "users", "pipeline", m{"$out": "names"}), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "insert", args: app("collection", "scratch", "document", m{"_id": "tmp"})},
	// insert_many and create_collection write one change each, undone by rollback
	{tool: "insert_many", args: app("collection", "batch", "documents", []any{m{"_id": 1}, m{"_id": 2, "a": []any{1, 2}}}),
		save: map[string]string{"batch": "change_id"}, check: wantField("inserted_ids", []any{1.0, 2.0})},
	{tool: "insert_many", args: app("collection", "batch", "documents", []any{m{"_id": 3}, m{"_id": 1}}), code: "CONFLICT"},
	{tool: "count", args: app("collection", "batch"), check: wantField("count", 2.0)}, // all or none
	{tool: "insert_many", args: app("collection", "batch", "documents", []any{}), code: "INVALID_ARGUMENT"},
	{tool: "insert_many", args: app("collection", "batch", "documents", []any{1}), code: "INVALID_ARGUMENT"},
	{tool: "insert_many", args: app("collection", "batch", "documents", m{"_id": 1}), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "rollback", args: app("change_id", "{{batch}}")},
	{tool: "find", args: app("collection", "batch"), code: "NOT_FOUND"},
	{tool: "create_collection", args: app("collection", "events"), save: map[string]string{"events": "change_id"}},
	{tool: "create_collection", args: app("collection", "events"), code: "CONFLICT"},
	{tool: "create_collection", args: app("collection", "$bad"), code: "INVALID_ARGUMENT"},
	{tool: "count", args: app("collection", "events"), check: wantField("count", 0.0)},
	{tool: "rollback", args: app("change_id", "{{events}}")},
	{tool: "count", args: app("collection", "events"), code: "NOT_FOUND"},
	// rename_collection: one journaled change, undone by rollback
	{tool: "create_collection", args: app("collection", "tmp1")},
	{tool: "rename_collection", args: app("collection", "tmp1", "to", "tmp2"), save: map[string]string{"renamed": "change_id"},
		check: wantField("renamed_to", "tmp2")},
	{tool: "rename_collection", args: app("collection", "tmp2", "to", "users"), code: "CONFLICT"},
	{tool: "rename_collection", args: app("collection", "tmp2", "to", "$x"), code: "INVALID_ARGUMENT"},
	{tool: "rename_collection", args: app("collection", "nope", "to", "tmp3"), code: "NOT_FOUND"},
	{tool: "rename_collection", args: app("collection", "tmp2"), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "rollback", args: app("change_id", "{{renamed}}")},
	{tool: "count", args: app("collection", "tmp1"), check: wantField("count", 0.0)},
	{tool: "count", args: app("collection", "tmp2"), code: "NOT_FOUND"},
	// above the scope
	{tool: "drop_index", args: app("collection", "users", "name", "age_1"), code: "SCOPE_DENIED"},
}

var dangerousCalls = []e2eCall{
	{tool: "drop_index", args: app("collection", "users", "name", "age_1"), check: wantField("dropped", "age_1")},
	{tool: "drop_index", args: app("collection", "users", "name", "age_1"), code: "NOT_FOUND"},
	{tool: "delete_snapshot", args: app("name", "before"), check: wantField("name", "before")},
	{tool: "delete_snapshot", args: app("name", "before"), code: "NOT_FOUND"},
	{tool: "drop_collection", args: app("collection", "scratch"), check: wantField("dropped", 1.0)},
	{tool: "drop_collection", args: app("collection", "scratch"), code: "NOT_FOUND"},
	{tool: "find", args: app("collection", "scratch"), code: "NOT_FOUND"},
	{tool: "prune_history", args: app("history_before", "0"), code: "INVALID_ARGUMENT"},
	{tool: "prune_history", args: app(), code: "INVALID_ARGUMENT", schemaInvalid: true},
	{tool: "history", args: app("limit", 1), save: map[string]string{"newest": "changes"}},
	{tool: "prune_history", args: app("history_before", "1"), check: func(t *testing.T, sc map[string]any) {
		if n, _ := sc["records_pruned"].(float64); n < 1 {
			t.Errorf("records_pruned = %v", sc["records_pruned"])
		}
	}},
	{tool: "count", args: app("collection", "users"), check: wantField("count", 2.0)},
}
