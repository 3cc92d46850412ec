package mcpserver

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestResults_RelaxedEJSON: every tool and resource that returns documents
// answers in Extended JSON v2 relaxed mode, as mongodb-mcp-server does, in
// its structuredContent and its text alike: an int and a long as plain
// numbers, a date as ISO text, binData in its v2 wrapper; never omgdb's
// stored form. A redacted value appears in none of them.
func TestResults_RelaxedEJSON(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, Redact: []string{"t.ssn"}})
	path := filepath.Join(f.root, "app.omgdb")
	makeStore(t, path, map[string][]string{"t": {
		`{"_id":{"$numberInt":"1"},"n":{"$numberInt":"7"},"l":5000000000,"at":{"$date":1747785600000},"dec":{"$numberDecimal":"1.50"},"bin":{"$binary":"AAEC"},"ssn":"SECRET-111"}`,
	}})
	relaxed := []string{`"_id":1,"n":7,"l":5000000000,"at":{"$date":"2025-05-21T00:00:00Z"},"dec":{"$numberDecimal":"1.50"},"bin":{"$binary":{"base64":"AAEC","subType":"00"}}`}
	dateOnly := []string{`{"$date":"2025-05-21T00:00:00Z"}`}
	calls := []struct {
		tool, args string
		want       []string
	}{
		{"find", `{"path":"app.omgdb","collection":"t"}`, relaxed},
		{"find", `{"path":"app.omgdb","collection":"t","project":{"ssn":0}}`, relaxed},
		{"find", `{"path":"app.omgdb","collection":"t","at":"1"}`, relaxed},
		{"aggregate", `{"path":"app.omgdb","collection":"t","pipeline":[{"$match":{}}]}`, relaxed},
		{"aggregate", `{"path":"app.omgdb","collection":"t","pipeline":[{"$group":{"_id":"$at","n":{"$sum":"$n"}}}]}`, []string{`{"_id":{"$date":"2025-05-21T00:00:00Z"},"n":7}`}},
		{"distinct", `{"path":"app.omgdb","collection":"t","field":"at"}`, []string{`"values":[{"$date":"2025-05-21T00:00:00Z"}]`}},
		{"describe", `{"path":"app.omgdb","collection":"t"}`, relaxed},
		{"history", `{"path":"app.omgdb","collection":"t","id":"1"}`, relaxed},
		{"plan_update", `{"path":"app.omgdb","collection":"t","filter":{"_id":1},"update":{"$set":{"m":1}}}`, append([]string{`"m":1`}, relaxed...)},
		{"plan_delete", `{"path":"app.omgdb","collection":"t","filter":{"at":{"$date":"2025-05-21T00:00:00Z"}}}`, relaxed},
		{"diff", `{"path":"app.omgdb","from":"0"}`, dateOnly},
	}
	for _, c := range calls {
		line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":` + c.args + `}}`
		out := f.send(line)
		if len(out) != 1 {
			t.Fatalf("%s: %d answers", c.tool, len(out))
		}
		checkRelaxed(t, c.tool+" "+c.args, out[0], c.want)
	}
	text, _, errCode := f.readURI("omgdb://app.omgdb/t/schema")
	if errCode != "" {
		t.Fatalf("schema resource: %s", errCode)
	}
	checkRelaxed(t, "schema resource", text, nil)
	exp := f.ok("export", `{"path":"app.omgdb","collection":"t"}`)
	text, _, errCode = f.readURI(exp["uri"].(string))
	if errCode != "" {
		t.Fatalf("export resource: %s", errCode)
	}
	checkRelaxed(t, "export resource", text, relaxed)
}

// TestResults_RelaxedEJSON_Raw: a page of documents passed on as stored
// (no redaction, projection or long string) is transcoded too.
func TestResults_RelaxedEJSON_Raw(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeRead})
	makeStore(t, filepath.Join(f.root, "app.omgdb"), map[string][]string{"t": {
		`{"_id":{"$numberInt":"1"},"n":{"$numberInt":"7"},"l":5000000000,"at":{"$date":1747785600000},"dec":{"$numberDecimal":"1.50"},"bin":{"$binary":"AAEC"}}`,
	}})
	want := []string{`{"_id":1,"n":7,"l":5000000000,"at":{"$date":"2025-05-21T00:00:00Z"},"dec":{"$numberDecimal":"1.50"},"bin":{"$binary":{"base64":"AAEC","subType":"00"}}}`}
	for _, args := range []string{`{"path":"app.omgdb","collection":"t"}`, `{"path":"app.omgdb","collection":"t","filter":{"n":7},"sort":{"_id":1}}`} {
		out := f.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":` + args + `}}`)
		checkRelaxed(t, "find "+args, out[0], want)
	}
}

// checkRelaxed fails unless the answer holds each want (in its structured
// content, and in its text as JSON-escaped) and none of the stored forms
// or the redacted value.
func checkRelaxed(t *testing.T, what, answer string, want []string) {
	t.Helper()
	for _, w := range want {
		esc, _ := json.Marshal(w)
		if !strings.Contains(answer, w) && !strings.Contains(answer, string(esc[1:len(esc)-1])) {
			t.Errorf("%s: no %s in %s", what, w, answer)
		}
	}
	for _, stored := range []string{`$numberInt`, `{\"$date\":1747785600000}`, `{"$date":1747785600000}`, `"$binary":"AAEC"`, `\"$binary\":\"AAEC\"`, `SECRET-111`} {
		if strings.Contains(answer, stored) {
			t.Errorf("%s: the answer holds %s: %s", what, stored, answer)
		}
	}
}
