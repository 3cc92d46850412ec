package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMongo_MCPReadScope_Inspect: explain, diagnose and stats over the
// MongoDB engine at read scope, with result values checked, and the
// redaction probes a diagnose or an explain could be: no count, hint or
// nearest value may tell a redacted value.
func TestMongo_MCPReadScope_Inspect(t *testing.T) {
	cs, uri, audit := startMongoMCP(t)
	tools := listTools(t, cs)
	cases := []mongoCase{
		{name: "explain", tool: "explain", args: m{"collection": "visits", "filter": m{"ward": "A"}, "sort": m{"ward": 1}}, check: func(t *testing.T, sc map[string]any) {
			plan, _ := sc["plan"].(map[string]any)
			wp, _ := plan["winningPlan"].(map[string]any)
			if plan["planner"] != "server" || wp["stage"] != "COLLSCAN" || plan["sortBy"] != "memory" || plan["serverExplain"] == nil {
				t.Errorf("plan = %v", plan)
			}
			if f, _ := json.Marshal(plan["filter"]); string(f) != `{"ward":"A"}` {
				t.Errorf("plan filter %s", f)
			}
		}},
		{name: "explain_execute", tool: "explain", args: m{"collection": "visits", "filter": m{}, "verbosity": "executionStats"}, check: func(t *testing.T, sc map[string]any) {
			notes, _ := json.Marshal(sc["plan"].(map[string]any)["notes"])
			if !strings.Contains(string(notes), "no execution statistics") {
				t.Errorf("notes %s do not say FerretDB gave no statistics", notes)
			}
		}},
		{name: "explain_redacted", tool: "explain", args: m{"collection": "patients", "filter": m{"ssn": "111-12"}, "verbosity": "executionStats"}, check: all(
			wantField("redacted", []any{"ssn", "card.number"}), func(t *testing.T, sc map[string]any) {
				if sc["plan"].(map[string]any)["planner"] != "server" {
					t.Errorf("plan %v", sc["plan"])
				}
			})},
		{name: "explain_bad_filter", tool: "explain", args: m{"collection": "visits", "filter": m{"ward": m{"$eqq": 1}}}, code: "INVALID_FILTER"},
		{name: "explain_denied", tool: "explain", args: m{"collection": "secrets", "filter": m{}}, code: "POLICY_DENIED"},
		{name: "explain_collation_ferretdb_refuses", tool: "explain", args: m{"collection": "visits", "collation": m{"locale": "en"}}, code: "INVALID_ARGUMENT",
			check: wantMessage("does not support collations: it answered NotImplemented")},
		{name: "explain_collation_bad", tool: "explain", args: m{"collection": "visits", "collation": m{"locale": "en", "strenght": 2}}, code: "INVALID_ARGUMENT",
			check: wantMessage("collation: invalid collation: unknown field `strenght`")},

		// diagnose: the file's diagnosis, counted on the server.
		{name: "diagnose_type_mismatch", tool: "diagnose", args: m{"collection": "patients", "filter": m{"age": "30"}}, check: all(
			wantField("matches", 0.0), wantField("examined", 3.0), wantField("bound", 100000.0), func(t *testing.T, sc map[string]any) {
				hints, _ := sc["hints"].([]any)
				h, _ := hints[0].(map[string]any)
				fix, _ := json.Marshal(h["fix"])
				if len(hints) != 1 || h["kind"] != "type_mismatch" || string(fix) != `{"age":30}` || h["would_match"] != 1.0 {
					t.Errorf("hints %v", hints)
				}
			})},
		{name: "diagnose_did_you_mean", tool: "diagnose", args: m{"collection": "visits", "filter": m{"Ward": "A", "note": nil}}, check: func(t *testing.T, sc map[string]any) {
			if v, _ := sc["verdict"].(string); !strings.Contains(v, "did you mean `ward`?") {
				t.Errorf("verdict %q", v)
			}
			preds, _ := sc["predicates"].([]any)
			if p, _ := preds[1].(map[string]any); p["alone"] != 2.0 {
				t.Errorf("null against missing: %v", preds)
			}
		}},
		{name: "diagnose_mixed_numbers", tool: "diagnose", args: m{"collection": "visits", "filter": m{"patient": 2, "ward": "C"}}, check: wantField("matches", 1.0)},
		// A redacted value is never counted, hinted or suggested.
		{name: "diagnose_redacted_equality", tool: "diagnose", args: m{"collection": "patients", "filter": m{"ssn": "111-12"}}, check: all(
			wantField("matches", 0.0), wantField("redacted", []any{"ssn", "card.number"}), func(t *testing.T, sc map[string]any) {
				preds, _ := json.Marshal(sc["predicates"])
				if !strings.Contains(string(preds), `"alone":0`) {
					t.Errorf("a redacted value was counted: %s", preds)
				}
			})},
		{name: "diagnose_redacted_type", tool: "diagnose", args: m{"collection": "patients", "filter": m{"card.number": 4111}}, check: all(wantField("matches", 0.0), wantField("hints", []any{map[string]any{
			"kind": "unknown_field", "predicate": 0.0, "message": "no document has field `card.number`", "fix": nil, "would_match": 0.0}}))},
		{name: "diagnose_redacted_case", tool: "diagnose", args: m{"collection": "patients", "filter": m{"SSN": "111-12"}}, check: func(t *testing.T, sc map[string]any) {
			if v, _ := sc["verdict"].(string); v != "{\"SSN\":\"111-12\"} matches no document: no document has field `SSN`" {
				t.Errorf("verdict %q suggests a redacted field", v)
			}
		}},
		{name: "diagnose_redacted_regex", tool: "diagnose", args: m{"collection": "patients", "filter": m{"ssn": m{"$regex": "^1"}}}, check: wantField("matches", 0.0)},
		{name: "diagnose_redacted_exists", tool: "diagnose", args: m{"collection": "patients", "filter": m{"ssn": m{"$exists": true}, "name": "ana"}}, check: wantField("matches", 0.0)},
		{name: "diagnose_bad_filter", tool: "diagnose", args: m{"collection": "patients", "filter": m{"$where": "1"}}, code: "INVALID_FILTER"},
		{name: "diagnose_denied", tool: "diagnose", args: m{"collection": "secrets", "filter": m{"key": "x"}}, code: "POLICY_DENIED"},
		{name: "diagnose_missing", tool: "diagnose", args: m{"collection": "visit", "filter": m{}}, code: "NOT_FOUND", check: wantMessage("visits")},

		// An empty find gives the diagnose verdict as its empty_reason.
		{name: "find_empty_reason", tool: "find", args: m{"collection": "visits", "filter": m{"Ward": "A"}}, check: wantField("empty_reason",
			"{\"Ward\":\"A\"} matches no document: no document has field `Ward` (did you mean `ward`?); the filter with `ward` matches 1")},
		{name: "find_empty_reason_types", tool: "find", args: m{"collection": "visits", "filter": m{"patient": "2"}}, check: wantField("empty_reason",
			"{\"patient\":\"2\"} matches no document: `patient` holds long or array values, not string; written as {\"patient\":2} it matches 2 document(s)")},
		{name: "find_empty_reason_redacted", tool: "find", args: m{"collection": "patients", "filter": m{"ssn": "111-12"}}, check: wantField("empty_reason",
			"no document of `patients` matched the filter (the diagnose tool tells why, predicate by predicate)")},

		// stats: the server's figures, for the visible collections only.
		{name: "stats", tool: "stats", args: m{}, check: func(t *testing.T, sc map[string]any) {
			colls, _ := sc["collections"].([]any)
			var names []string
			for _, c := range colls {
				c := c.(map[string]any)
				names = append(names, c["name"].(string))
				if c["documents"] != 3.0 || c["indexes"] != 1.0 {
					t.Errorf("stats of %v", c)
				}
			}
			if strings.Join(names, ",") != "patients,visits" || sc["documents"] != 6.0 || sc["file_bytes"] != nil {
				t.Errorf("stats = %v", sc)
			}
		}},
		{name: "stats_one", tool: "stats", args: m{"collection": "visits"}, check: wantField("documents", 3.0)},
		{name: "stats_denied", tool: "stats", args: m{"collection": "secrets"}, code: "POLICY_DENIED"},

		// suggest_indexes: the ESR suggestion, estimated on the server.
		{name: "suggest", tool: "suggest_indexes", args: m{"collection": "visits", "filter": m{"ward": "A", "patient": m{"$gte": 1}}, "sort": m{"ward": 1}},
			check: func(t *testing.T, sc map[string]any) {
				sugs, _ := sc["suggestions"].([]any)
				if len(sugs) != 1 {
					t.Fatalf("suggestions %v", sc["suggestions"])
				}
				s0 := sugs[0].(map[string]any)
				key, _ := s0["key"].(map[string]any)
				if len(key) != 2 || key["ward"] != 1.0 || key["patient"] != 1.0 || s0["docs_examined"] != 1.0 || s0["command"] != `db.getCollection("visits").createIndex({"ward":1,"patient":1})` {
					t.Errorf("suggestion %v", s0)
				}
				if cur := sc["current"].(map[string]any); cur["plan"] != "COLLSCAN" || cur["docs_examined"] != 3.0 {
					t.Errorf("current %v", cur)
				}
			}},
		// On redacted documents a redacted field matches nothing: the
		// estimate tells no value.
		{name: "suggest_redacted", tool: "suggest_indexes", args: m{"collection": "patients", "filter": m{"ssn": "111-12", "name": "ana"}}, check: func(t *testing.T, sc map[string]any) {
			for _, s := range sc["suggestions"].([]any) {
				if s.(map[string]any)["docs_examined"] != 0.0 {
					t.Errorf("an estimate counts a redacted value: %v", s)
				}
			}
		}},
		{name: "suggest_denied", tool: "suggest_indexes", args: m{"collection": "secrets", "filter": m{"key": "x"}}, code: "POLICY_DENIED"},
		{name: "suggest_bad_sort", tool: "suggest_indexes", args: m{"collection": "visits", "filter": m{}, "sort": m{"ward": "up"}}, code: "INVALID_ARGUMENT"},
	}
	texts := runMongoCases(t, cs, tools, cases)
	checkLeaks(t, texts, "diagnosis of `patients`", audit, len(cases),
		[]string{"111-11", `\"4111\"`, `"4111"`, "4222", "4333", "topsecret"}, []string{"111-11", "topsecret", uri})
}
