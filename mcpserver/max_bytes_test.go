package mcpserver

import (
	"fmt"
	"strings"
	"testing"
)

// TestMaxBytes_EveryTool: every tool that returns documents or long lists
// takes max_bytes, which lowers the byte cap of that one result
// (applied_limits.max_bytes says so, as for find) and never raises
// --max-bytes. Before, describe, vsearch, search, history, diff, plans,
// export and the plan_* tools refused the argument.
func TestMaxBytes_EveryTool(t *testing.T) {
	const serverCap = 250
	f := newFixture(t, Config{Scope: ScopeReadWrite, MaxBytes: serverCap})
	f.standardStore()
	f.kbStore()
	for i := range 8 {
		f.ok("insert", `{"path":"app.omgdb","collection":"orders","document":{"_id":"`+string(rune('a'+i))+`x","note":"`+strings.Repeat(string(rune('a'+i)), 100)+`"}}`)
	}
	f.ok("insert", `{"path":"kb.omgdb","collection":"notes","document":{"_id":9,"title":"Backup","body":"backup `+strings.Repeat("b", 300)+`"}}`)
	var tiny []string
	for i := range 20 {
		tiny = append(tiny, fmt.Sprintf(`{"_id":%d,"v":"tiny"}`, i))
	}
	f.ok("insert_many", `{"path":"app.omgdb","collection":"tiny","documents":[`+strings.Join(tiny, ",")+`]}`)
	f.ok("create_snapshot", `{"path":"app.omgdb","name":"s0","revision":"0"}`)
	seen := f.ok("plan_update", `{"path":"app.omgdb","collection":"orders","update":{"$set":{"seen":false}}}`)["token"].(string)
	f.ok("apply", `{"path":"app.omgdb","token":"`+seen+`"}`) // a second version of each order
	tok := f.ok("plan_update", `{"path":"app.omgdb","collection":"orders","update":{"$set":{"seen":true}}}`)["token"].(string)
	calls := []struct{ tool, args string }{
		{"find", `{"path":"app.omgdb","collection":"orders"`},
		{"aggregate", `{"path":"app.omgdb","collection":"orders","pipeline":[]`},
		{"distinct", `{"path":"app.omgdb","collection":"orders","field":"note"`},
		{"vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup"`},
		{"search", `{"path":"kb.omgdb","collection":"notes","query":"backup"`},
		{"history", `{"path":"app.omgdb"`},
		{"history", `{"path":"app.omgdb","collection":"orders","id":"\"ax\""`},
		{"diff", `{"path":"app.omgdb","from":"s0"`},
		{"plans", `{"path":"app.omgdb","token":"` + tok + `"`},
		{"plan_update", `{"path":"app.omgdb","collection":"orders","update":{"$set":{"seen":1}}`},
		{"plan_delete", `{"path":"app.omgdb","collection":"orders","filter":{}`},
		{"plan_aggregate", `{"path":"app.omgdb","collection":"orders","pipeline":[{"$out":"copy"}]`},
		{"plan_revert", `{"path":"app.omgdb","revision":"s0"`},
	}
	for _, c := range calls {
		if got := appliedMaxBytes(t, f.ok(c.tool, c.args+`,"max_bytes":150}`)); got != 150 {
			t.Errorf("%s with max_bytes 150: applied max_bytes %v, want 150", c.tool, got)
		}
		if got := appliedMaxBytes(t, f.ok(c.tool, c.args+`,"max_bytes":100000}`)); got != serverCap {
			t.Errorf("%s with max_bytes 100000: applied max_bytes %v, want the server's %d", c.tool, got, serverCap)
		}
	}
	// describe drops its samples, then fails, naming the cap it could
	// not fit: max_bytes's, or the server's when max_bytes is higher.
	for arg, want := range map[string]string{"100": "100-byte result limit", "100000": "250-byte result limit"} {
		res := f.callTool("describe", `{"path":"app.omgdb","max_bytes":`+arg+`}`)
		if errorCode(res) != CodeLimitExceeded || !strings.Contains(resultText(res), want) {
			t.Errorf("describe with max_bytes %s: %s", arg, resultText(res))
		}
	}
	// export pages are at most max_bytes.
	small := f.ok("export", `{"path":"app.omgdb","collection":"tiny","max_bytes":100}`)
	whole := f.ok("export", `{"path":"app.omgdb","collection":"tiny","max_bytes":100000}`)
	if small["pages"] != 5.0 || whole["pages"] != 2.0 {
		t.Errorf("export of 20 documents of 20 bytes: %v pages with max_bytes 100, %v with 100000 (want 5 and 2)", small["pages"], whole["pages"])
	}
	if res := f.callTool("history", `{"path":"app.omgdb","max_bytes":99}`); errorCode(res) != CodeInvalidArgument {
		t.Errorf("max_bytes 99: %s", resultText(res))
	}
}

// appliedMaxBytes is applied_limits.max_bytes of a result, or 0.
func appliedMaxBytes(t *testing.T, sc map[string]any) float64 {
	t.Helper()
	lim, _ := sc["applied_limits"].(map[string]any)
	n, _ := lim["max_bytes"].(float64)
	return n
}
