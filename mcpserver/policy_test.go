package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRedaction: redacted fields never appear in results and cannot be
// probed through filters, including nested fields and arrays of objects.
func TestRedaction(t *testing.T) {
	f := newFixture(t, Config{Redact: []string{"users.ssn", "users.cards.number", "*.secret"}})
	makeStore(t, f.root+"/app.omgdb", map[string][]string{
		"users": {
			`{"_id":1,"name":"ada","ssn":"111","cards":[{"number":"4111","exp":"01/30"},{"number":"5500"}],"secret":"s1"}`,
			`{"_id":2,"name":"bob","ssn":"222","cards":{"number":"3400"}}`,
		},
		"logs": {`{"_id":1,"secret":"s2","msg":"hello"}`},
	})
	for _, tc := range []struct{ coll, filter string }{
		{"users", `{"ssn":"111"}`},
		{"users", `{"ssn":null}`}, // null matches missing: every document, proving the field is gone
		{"users", `{"cards.number":"4111"}`},
		{"users", `{"cards.number":"3400"}`},
		{"users", `{"secret":"s1"}`},
		{"logs", `{"secret":"s2"}`},
	} {
		res := f.callTool("count", `{"path":"app.omgdb","collection":"`+tc.coll+`","filter":`+tc.filter+`}`)
		want := 0.0
		if strings.Contains(tc.filter, "null") {
			want = 2
		}
		if got := structured(t, res)["count"]; got != want {
			t.Errorf("count %s %s = %v, want %v: a filter reached a redacted value", tc.coll, tc.filter, got, want)
		}
	}
	for _, tl := range []string{"find", "describe"} {
		res := f.callTool(tl, `{"path":"app.omgdb","collection":"users"}`)
		text := resultText(res)
		b, _ := json.Marshal(res["structuredContent"])
		for _, secret := range []string{"111", "222", "4111", "5500", "3400", "s1"} {
			if strings.Contains(text, secret) || strings.Contains(string(b), secret) {
				t.Errorf("%s shows the redacted value %s: %s", tl, secret, b)
			}
		}
		if !strings.Contains(text, "01/30") && tl == "find" {
			t.Errorf("find lost a field that is not redacted: %s", text)
		}
	}
	res := f.callTool("find", `{"path":"app.omgdb","collection":"users","filter":{"ssn":"111"}}`)
	if got := structured(t, res)["empty_reason"]; !strings.Contains(got.(string), "redacted") {
		t.Errorf("empty_reason = %v, want it to say the field is redacted", got)
	}
}

func TestRedaction_BadSpec(t *testing.T) {
	for _, spec := range []string{"users", "users.", "users._id", ".ssn", "users..a", "[.x"} {
		if _, err := New(Config{Root: t.TempDir(), Redact: []string{spec}}); err == nil {
			t.Errorf("--redact %q was accepted", spec)
		}
	}
}

// TestCollectionsPolicy: denied collections are invisible, refused with a
// message that does not reveal whether they exist, and never suggested.
func TestCollectionsPolicy(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, DenyCollections: []string{"secret*"}})
	makeStore(t, f.root+"/app.omgdb", map[string][]string{
		"users": {`{"_id":1}`}, "secrets": {`{"_id":1,"k":"v"}`},
	})
	desc := resultText(f.callTool("describe", `{"path":"app.omgdb"}`))
	if strings.Contains(desc, "secrets") {
		t.Errorf("describe shows a denied collection: %s", desc)
	}
	exists := f.callTool("find", `{"path":"app.omgdb","collection":"secrets"}`)
	missing := f.callTool("find", `{"path":"app.omgdb","collection":"secretz"}`)
	if errorCode(exists) != CodePolicyDenied || errorCode(missing) != CodePolicyDenied ||
		strings.ReplaceAll(resultText(missing), "secretz", "secrets") != resultText(exists) {
		t.Errorf("denials differ:\n%s\n%s", resultText(exists), resultText(missing))
	}
	if res := f.callTool("find", `{"path":"app.omgdb","collection":"secret"}`); strings.Contains(resultText(res), "did you mean") {
		t.Errorf("a denied collection was suggested: %s", resultText(res))
	}
	if res := f.callTool("find", `{"path":"app.omgdb","collection":"user"}`); !strings.Contains(resultText(res), "did you mean `users`") {
		t.Errorf("no did-you-mean for an allowed collection: %s", resultText(res))
	}
	if res := f.callTool("insert", `{"path":"app.omgdb","collection":"secrets","document":{}}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("insert into a denied collection: %v", res)
	}

	g := newFixture(t, Config{Collections: []string{"users"}})
	makeStore(t, g.root+"/app.omgdb", map[string][]string{"users": {`{"_id":1}`}, "orders": {`{"_id":1}`}})
	if res := g.callTool("count", `{"path":"app.omgdb","collection":"orders"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("--collections users let orders through: %v", res)
	}
}

// TestToolPolicy: --tools, --deny-tools and --only-canned decide what is
// listed, and what is not listed cannot be called.
func TestToolPolicy(t *testing.T) {
	f := newFixture(t, Config{Scope: ScopeReadWrite, DenyTools: []string{"ins*"}, Tools: []string{"find", "count", "insert"}})
	if got := join(f.srv.listedNames()); got != "find,count" {
		t.Errorf("listed %s, want find,count", got)
	}
	if res := f.callTool("insert", `{}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("insert: %v", res)
	}
	if res := f.callTool("describe", `{}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("describe: %v", res)
	}
	if _, err := New(Config{Root: t.TempDir(), Tools: []string{"[bad"}}); err == nil {
		t.Error("a bad glob was accepted")
	}
}
