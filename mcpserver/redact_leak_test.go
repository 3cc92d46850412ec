package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Secrets planted under redacted paths (users.ssn, users.cards.number):
// in documents, and in the filters, updates and array filters of plans
// the user made with the CLI (so in plan records and change notes too).
var plantedSecrets = []string{
	"987-65-4321", "000-00-0000", "555-12-3456", "4111-1111-0001", "4222-2222-0002", "4333-3333-0003", "777-00-7777",
	"246-80-1357", // in the pipeline of an aggregate plan
}

// plantSecrets creates app.omgdb under root, plans and applies changes
// through the library as the CLI would, and returns a pending plan's
// token and an applied change's id.
func plantSecrets(t *testing.T, root string) (pending, applied string) {
	t.Helper()
	path := filepath.Join(root, "app.omgdb")
	makeStore(t, path, map[string][]string{
		"users": {
			`{"_id":1,"name":"ada","ssn":"987-65-4321","cards":[{"number":"4111-1111-0001","brand":"visa"}]}`,
			`{"_id":2,"name":"bob","ssn":"777-00-7777","cards":[]}`,
		},
		"orders": {`{"_id":10,"user":1}`},
	})
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := changes.CreateSnapshot(ctx, db, "planted", nil); err != nil {
		t.Fatal(err)
	}
	plan := func(filter, update, afs string) string {
		t.Helper()
		opts := &changes.PlanOptions{Actor: "cli"}
		if afs != "" {
			opts.ArrayFilters = value.MustParse(afs).Array()
		}
		res, err := changes.PlanUpdate(ctx, db, "users", value.MustParse(filter), value.MustParse(update), opts)
		if err != nil {
			t.Fatalf("plan %s %s: %v", filter, update, err)
		}
		return res.Token
	}
	apply := func(tok string) string {
		t.Helper()
		res, err := changes.Apply(ctx, db, tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.ChangeID
	}
	applied = apply(plan(`{"ssn":"987-65-4321"}`, `{"$set":{"age":42}}`, ""))
	apply(plan(`{"_id":2}`, `{"$set":{"ssn":"555-12-3456"}}`, "")) // changes a redacted field only
	apply(plan(`{"$or":[{"ssn":"4333-3333-0003"},{"cards":{"$elemMatch":{"number":"4111-1111-0001"}}}]}`,
		`{"$set":{"cards.$[c].number":"4222-2222-0002"}}`, `[{"c.number":"4111-1111-0001"}]`))
	// An aggregate plan whose pipeline names a redacted value, applied
	// (its note) and pending (its pipeline).
	for range 2 {
		res, err := changes.PlanAggregate(ctx, db, "users", value.MustParse(`[{"$match":{"ssn":{"$ne":"246-80-1357"}}},{"$project":{"name":1}},{"$merge":{"into":"names"}}]`), &changes.PlanOptions{Actor: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		if applied == "" {
			apply(res.Token)
		}
	}
	pending = plan(`{"_id":1}`, `{"$set":{"ssn":"000-00-0000"}}`, "")
	plan(`{"cards.number":{"$in":["4111-1111-0001"]}}`, `{"$unset":{"x":""}}`, "")
	return pending, applied
}

// TestRedaction_NothingLeaks plants secret values under redacted paths,
// then calls every tool, resource and prompt at every scope, and looks
// for the secrets in every byte the server answered, logged and wrote to
// its audit log.
func TestRedaction_NothingLeaks(t *testing.T) {
	for _, scope := range []Scope{ScopeRead, ScopeReadWrite, ScopeDangerous} {
		t.Run(scope.String(), func(t *testing.T) {
			root := t.TempDir()
			pending, applied := plantSecrets(t, root)
			var logs bytes.Buffer
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			f := newFixture(t, Config{Root: root, Scope: scope, Redact: []string{"users.ssn", "users.cards.number"},
				Audit: audit, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			var sent bytes.Buffer
			for _, line := range leakProbe(f, pending, applied) {
				for _, out := range f.send(line) {
					sent.WriteString(out + "\n")
				}
			}
			f.srv.Close()
			written, _ := os.ReadFile(audit)
			for what, b := range map[string][]byte{"answers": sent.Bytes(), "log": logs.Bytes(), "audit log": written} {
				for _, s := range plantedSecrets {
					if i := bytes.Index(b, []byte(s)); i >= 0 {
						t.Errorf("%s holds %s: …%s…", what, s, b[max(0, i-300):min(len(b), i+100)])
					}
				}
			}
			// The probe reached what it meant to: notes, plans, diffs.
			for _, want := range []string{`plan-update users {\"ssn\":\"<redacted>\"} {\"$set\":{\"age\":42}}`,
				`\"only_redacted\":true`, `\"number\":\"<redacted>\"`} {
				if !strings.Contains(sent.String(), want) {
					t.Errorf("the answers lack %s", want)
				}
			}
			if !bytes.Contains(written, []byte(`"tool":"plans"`)) {
				t.Errorf("audit log: %s", written)
			}
		})
	}
}

// TestRedaction_NothingLeaksOverHTTP runs the same probe over Streamable
// HTTP, and looks for the secrets in the status lines, headers and bodies.
func TestRedaction_NothingLeaksOverHTTP(t *testing.T) {
	root := t.TempDir()
	pending, applied := plantSecrets(t, root)
	f := newFixture(t, Config{Root: root, Scope: ScopeDangerous, Redact: []string{"users.ssn", "users.cards.number"},
		HTTP: HTTPConfig{Token: "t"}})
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	h := map[string]string{"Authorization": "Bearer t"}
	var sent bytes.Buffer
	for i, line := range leakProbe(f, pending, applied) {
		resp, body := do(t, ts, httpReq{"POST", line, h})
		if i == 0 {
			h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
		}
		fmt.Fprintf(&sent, "%s %v\n%s\n", resp.Status, resp.Header, body)
	}
	for _, s := range plantedSecrets {
		if i := bytes.Index(sent.Bytes(), []byte(s)); i >= 0 {
			t.Errorf("HTTP answers hold %s: …%s…", s, sent.Bytes()[max(0, i-300):min(sent.Len(), i+100)])
		}
	}
	if !strings.Contains(sent.String(), `\"only_redacted\":true`) || strings.Count(sent.String(), "200 OK") < 50 {
		t.Errorf("the probe did not reach the server:\n%.2000s", sent.String())
	}
}

// leakProbe returns the requests that reach every tool (the listed ones
// and the refused ones), resource and prompt of a server.
func leakProbe(f *fixture, pending, applied string) []string {
	p := `"path":"app.omgdb",`
	calls := map[string][]string{
		"describe":        {`{` + p + `"sample":10}`},
		"find":            {`{` + p + `"collection":"users"}`, `{` + p + `"collection":"users","filter":{"ssn":{"$regex":"("}}}`},
		"count":           {`{` + p + `"collection":"users"}`},
		"aggregate":       {`{` + p + `"collection":"users","pipeline":[{"$project":{"ssn":1,"cards":1,"r":"$$ROOT"}}]}`},
		"explain":         {`{` + p + `"collection":"users","filter":{"name":"ada"}}`},
		"diagnose":        {`{` + p + `"collection":"users","filter":{"name":"zed"}}`},
		"vsearch":         {`{` + p + `"collection":"users","field":"name","query":"a"}`},
		"search":          {`{` + p + `"collection":"users","query":"ada"}`},
		"context_pack":    {`{` + p + `"collection":"users","field":"name","query":"ada"}`},
		"history":         {`{` + p + `"limit":50}`, `{` + p + `"id":"1"}`, `{` + p + `"collection":"users"}`},
		"diff":            {`{` + p + `"from":"0"}`, `{` + p + `"from":"planted","collection":"users"}`},
		"plans":           {`{` + p + `"all":true}`, `{` + p + `"token":"` + pending + `"}`},
		"insert":          {`{` + p + `"collection":"tmp","document":{"a":1}}`},
		"create_index":    {`{` + p + `"collection":"users","fields":"name"}`},
		"plan_update":     {`{` + p + `"collection":"users","filter":{"_id":1},"update":{"$set":{"age":1}}}`},
		"plan_delete":     {`{` + p + `"collection":"users","filter":{"_id":2}}`},
		"plan_revert":     {`{` + p + `"revision":"0"}`},
		"apply":           {`{` + p + `"token":"` + pending + `"}`},
		"rollback":        {`{` + p + `"change_id":"` + applied + `"}`},
		"create_snapshot": {`{` + p + `"name":"s1"}`},
		"delete_snapshot": {`{` + p + `"name":"s1"}`},
		"drop_index":      {`{` + p + `"collection":"users","name":"name"}`},
		"drop_collection": {`{` + p + `"collection":"tmp"}`},
		"prune_history":   {`{` + p + `"history_before":"0"}`},
	}
	var names []string
	for name := range f.srv.known {
		names = append(names, name)
	}
	sort.Strings(names)
	lines := []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`}
	// Everything runs twice: the second round sees what the first wrote
	// (the applied plan's note, the rollback).
	for range 2 {
		for _, name := range names {
			args, ok := calls[name]
			if !ok { // a tool this probe does not know yet: the common arguments
				args = []string{`{` + p + `"collection":"users"}`}
			}
			for _, a := range args {
				lines = append(lines, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+name+`","arguments":`+a+`}}`)
			}
		}
		for _, uri := range []string{"app.omgdb/collections", "app.omgdb/users/schema", "app.omgdb/history",
			"app.omgdb/snapshots", "app.omgdb/plans/" + pending} {
			lines = append(lines, `{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"omgdb://`+uri+`"}}`)
		}
		lines = append(lines, `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":6,"method":"resources/templates/list"}`, `{"jsonrpc":"2.0","id":7,"method":"prompts/list"}`)
		for _, prompt := range []string{`"explore_store","arguments":{"path":"app.omgdb"}`,
			`"safe_change","arguments":{"path":"app.omgdb","collection":"users","change":"fix ages"}`,
			`"time_travel","arguments":{"path":"app.omgdb","question":"who changed ssn?"}`,
			`"analyze_changes","arguments":{"path":"app.omgdb","collection":"users"}`} {
			lines = append(lines, `{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":`+prompt+`}}`)
		}
	}
	return lines
}
