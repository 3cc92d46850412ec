package mcpserver

import (
	"testing"
)

// TestOutputRequired: a success holds the properties its tool's output
// schema names as always present (the anyOf that tools/list leaves out
// to save tokens). One valid call per read tool and per parity tool.
func TestOutputRequired(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.standardStore()
	f.kbStore()
	calls := []struct{ tool, args string }{
		{"describe", `{"path":"app.omgdb"}`},
		{"find", `{"path":"app.omgdb","collection":"users"}`},
		{"count", `{"path":"app.omgdb","collection":"users"}`},
		{"distinct", `{"path":"app.omgdb","collection":"users","field":"city"}`},
		{"aggregate", `{"path":"app.omgdb","collection":"users","pipeline":[{"$count":"n"}]}`},
		{"export", `{"path":"app.omgdb","collection":"users"}`},
		{"explain", `{"path":"app.omgdb","collection":"users","verbosity":"executionStats"}`},
		{"diagnose", `{"path":"app.omgdb","collection":"users","filter":{"age":40}}`},
		{"vsearch", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup"}`},
		{"search", `{"path":"kb.omgdb","collection":"notes","query":"backup"}`},
		{"context_pack", `{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup"}`},
		{"stats", `{"path":"app.omgdb"}`},
		{"list_indexes", `{"path":"kb.omgdb","collection":"users"}`},
		{"suggest_indexes", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`},
		{"history", `{"path":"app.omgdb"}`},
		{"diff", `{"path":"app.omgdb","from":"0"}`},
		{"plans", `{"path":"app.omgdb","all":true}`},
		{"insert_many", `{"path":"app.omgdb","collection":"logs","documents":[{"a":1}]}`},
		{"create_collection", `{"path":"app.omgdb","collection":"events"}`},
	}
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c.tool] = true
		sc := structured(t, f.callTool(c.tool, c.args))
		if code, _ := sc["code"].(string); code != "" {
			t.Errorf("%s %s: %s %v", c.tool, c.args, code, sc["message"])
			continue
		}
		for _, name := range f.srv.known[c.tool].Output.Get("anyOf").Array()[0].Get("required").Array() {
			if _, ok := sc[name.Str()]; !ok {
				t.Errorf("%s: the success lacks %s, which its output schema requires: %v", c.tool, name.Str(), sc)
			}
		}
	}
	for _, tl := range f.srv.tools {
		if tl.Scope == ScopeRead && !seen[tl.Name] {
			t.Errorf("read tool %s has no call here", tl.Name)
		}
	}
}
