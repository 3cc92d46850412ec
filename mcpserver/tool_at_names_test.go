package mcpserver

import (
	"strings"
	"testing"
)

// TestAt_MissingNamesNoHidden: over a store file, find, count and
// aggregate with at of a name that never held a collection are
// NOT_FOUND with a did-you-mean among the visible collections only,
// never naming a denied one (the store's own error would suggest
// `orders`), as without at.
func TestAt_MissingNamesNoHidden(t *testing.T) {
	f := newFixture(t, Config{DenyCollections: []string{"orders"}})
	f.standardStore()
	for _, call := range []struct{ tool, args string }{
		{"find", `{"path":"app.omgdb","collection":"order","at":"1"}`},
		{"count", `{"path":"app.omgdb","collection":"order","at":"1"}`},
		{"aggregate", `{"path":"app.omgdb","collection":"order","at":"1","pipeline":[]}`},
		{"find", `{"path":"app.omgdb","collection":"user","at":"1"}`},
	} {
		res := f.callTool(call.tool, call.args)
		text := resultText(res)
		if errorCode(res) != CodeNotFound || strings.Contains(text, "orders") || !strings.Contains(text, "collection `") {
			t.Errorf("%s %s: %s", call.tool, call.args, text)
		}
		if strings.Contains(call.args, `"user"`) && !strings.Contains(text, "did you mean `users`?") {
			t.Errorf("%s %s: no did-you-mean among the visible collections: %s", call.tool, call.args, text)
		}
	}
}
