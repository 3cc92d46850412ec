package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

// The end-to-end tests run the omgdb binary: this test binary, which
// acts as `omgdb` when OMGDB_TEST_MAIN is set (as testscript does), and
// drive it with the official MCP Go SDK's client.
func TestMain(m *testing.M) {
	if os.Getenv("OMGDB_TEST_MAIN") == "1" {
		// The notification tests' server reports progress every 100 ms,
		// so that their call needs not run for seconds.
		if d, err := time.ParseDuration(os.Getenv("OMGDB_TEST_PROGRESS_EVERY")); err == nil {
			mcpserver.SetProgressEvery(d)
		}
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	crashtest.ChildrenExitAtOnce()
	mongotest.Main(m) // runs the tests, then stops the FerretDB the MongoDB ones started

}

// omgdb returns a command running `omgdb mcp args…` in dir.
func omgdb(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "OMGDB_TEST_MAIN=1")
	cmd.Dir = dir
	return cmd
}

type starter func(t *testing.T, dir string, args ...string) *mcp.ClientSession

// clientOptions, when set, are the options of the clients connect makes
// (the notifications subtest sets and resets it).
var clientOptions *mcp.ClientOptions

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, clientOptions)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func startStdio(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	return connect(t, &mcp.CommandTransport{Command: omgdb(dir, args...)})
}

// startHTTP runs `omgdb mcp --http 127.0.0.1:0` with a token and connects
// to the URL it logs.
func startHTTP(t *testing.T, dir string, args ...string) *mcp.ClientSession {
	return startHTTPWith(t, wantType{bearer{"e2e-token"}, "", "text/event-stream"}, dir, args...)
}

func startHTTPWith(t *testing.T, rt http.RoundTripper, dir string, args ...string) *mcp.ClientSession {
	cmd := omgdb(dir, append(args, "--http", "127.0.0.1:0", "--token", "e2e-token")...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`url=(\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-url:
	case <-time.After(20 * time.Second):
		t.Fatal("the HTTP server never said where it listens")
	}
	hc := &http.Client{Transport: rt}
	return connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc})
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// wantType sets Accept (unless accept is "", leaving the SDK's) and
// fails a POST answered 200 with another Content-Type than want.
type wantType struct {
	next         http.RoundTripper
	accept, want string
}

func (w wantType) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if w.accept != "" {
		r.Header.Set("Accept", w.accept)
	}
	res, err := w.next.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost && res.StatusCode == http.StatusOK && res.Header.Get("Content-Type") != w.want {
		res.Body.Close()
		return nil, fmt.Errorf("POST answered with %s, want %s", res.Header.Get("Content-Type"), w.want)
	}
	return res, err
}

func TestE2E_Stdio(t *testing.T) { runE2E(t, startStdio) }

// TestE2E_HTTP answers with SSE (the SDK client accepts it, so the server
// streams); TestE2E_HTTPJSON strips text/event-stream from Accept, so the
// server answers plain JSON.
func TestE2E_HTTP(t *testing.T) { runE2E(t, startHTTP) }
func TestE2E_HTTPJSON(t *testing.T) {
	runE2EWith(t, func(t *testing.T, dir string, args ...string) *mcp.ClientSession {
		return startHTTPWith(t, wantType{bearer{"e2e-token"}, "application/json", "application/json"}, dir, args...)
	}, false)
}

// e2eCall is one tools/call of the end-to-end table.
type e2eCall struct {
	tool string
	// args: a string value "{{name}}" is replaced by the value an earlier
	// call saved under that name.
	args map[string]any
	code string // "" for a success, else the error code
	// schemaInvalid: the tool's inputSchema rules these arguments out too.
	schemaInvalid bool
	save          map[string]string // name -> structuredContent key, to remember for later calls
	check         func(t *testing.T, sc map[string]any)
}

// e2eRun runs tables of calls and records which tools had a valid and an
// invalid call, so that a tool without both fails the test.
type e2eRun struct {
	vars    map[string]any
	valid   map[string]bool
	invalid map[string]bool
}

func (r *e2eRun) calls(t *testing.T, cs *mcp.ClientSession, tools []*mcp.Tool, calls []e2eCall) {
	t.Helper()
	for _, c := range calls {
		args := map[string]any{}
		for k, v := range c.args {
			if s, ok := v.(string); ok && strings.HasPrefix(s, "{{") {
				v = r.vars[strings.Trim(s, "{}")]
			}
			args[k] = v
		}
		sc := callAndValidate(t, cs, tools, c.tool, args, c.code)
		if c.schemaInvalid {
			if err := validate(findTool(tools, c.tool).InputSchema, args); err == nil {
				t.Errorf("%s %v: passes the inputSchema", c.tool, args)
			}
		}
		if c.check != nil && !t.Failed() {
			c.check(t, sc)
		}
		for name, key := range c.save {
			r.vars[name] = sc[key]
		}
		if findTool(tools, c.tool).Name == "" {
			continue // not listed: a scope check, not an argument check
		}
		switch {
		case c.code == "":
			r.valid[c.tool] = true
		case c.code != "SCOPE_DENIED":
			r.invalid[c.tool] = true
		}
	}
}

func e2eDir(t *testing.T) string {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.omgdb")
	storetest.Create(t, path, map[string][]string{
		"users": {`{"_id":1,"name":"ada","age":36,"tags":["go"]}`, `{"_id":2,"name":"bob","age":25}`},
		"notes": {
			`{"_id":1,"title":"Backups","body":"Nightly backup policy for the database servers."}`,
			`{"_id":2,"title":"Pasta","body":"Cooking pasta: boil water, add salt."}`,
			`{"_id":3,"title":"Tapes","body":"Tape backup rotation schedule, weekly."}`,
		},
	})
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(store.Change{Kind: "create_index"}, func(tx *store.Tx) error {
		c, err := tx.Collection("notes")
		if err != nil {
			return err
		}
		_, err = c.CreateIndex(vector.NewSearchIndexDef("text", []string{"title", "body"}, "en"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

const (
	readTools      = "describe,find,count,distinct,aggregate,export,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,history,diff,plans"
	readWriteTools = "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,rename_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,history,diff,plans,plan_update,plan_delete,plan_aggregate,plan_revert,apply,rollback,create_snapshot"
	allTools       = "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,rename_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,drop_index,history,diff,plans,plan_update,plan_delete,plan_aggregate,plan_revert,apply,rollback,create_snapshot,delete_snapshot,drop_collection,prune_history"
)

// runE2E drives three servers, at read, read-write and dangerous scope,
// over one transport, through every tool of the catalog.
func runE2E(t *testing.T, start starter) { runE2EWith(t, start, true) }

// runE2EWith is runE2E; streams says whether the transport can carry
// notifications during a call (not an HTTP client that accepts only JSON).
func runE2EWith(t *testing.T, start starter, streams bool) {
	dir := e2eDir(t)
	r := &e2eRun{vars: map[string]any{}, valid: map[string]bool{}, invalid: map[string]bool{}}
	t.Run("read", func(t *testing.T) {
		cs := start(t, dir, "--scope", "read")
		init := cs.InitializeResult()
		if init.ServerInfo == nil || init.ServerInfo.Name != "omgdb" || init.ProtocolVersion != "2025-11-25" || !strings.Contains(init.Instructions, "describe") {
			t.Errorf("initialize: %+v %+v", init, init.ServerInfo)
		}
		if init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Capabilities.Prompts == nil || init.Capabilities.Logging == nil {
			t.Errorf("capabilities: %+v", init.Capabilities)
		}
		tools := listTools(t, cs)
		if names := toolNames(tools); names != readTools {
			t.Errorf("read scope lists %s", names)
		}
		for _, tool := range tools {
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Meta["requiredScope"] != "read" {
				t.Errorf("%s: annotations %+v, _meta %v", tool.Name, tool.Annotations, tool.Meta)
			}
		}
		r.calls(t, cs, tools, readCalls)
		uri := r.vars["export"].(string)
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil || rr.Contents[0].MIMEType != "application/x-ndjson" || rr.Contents[0].Text != "{\"_id\":2,\"name\":\"bob\"}\n{\"_id\":1,\"name\":\"ada\"}\n" {
			t.Errorf("read %s: %+v %v", uri, rr, err)
		}
		if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri + "/2"}); err == nil {
			t.Errorf("read page 2 of a one-page export: no error")
		}
		checkResources(t, cs)
		checkPrompts(t, cs)
	})
	t.Run("pinned", func(t *testing.T) {
		cs := start(t, dir, "--store", "app.omgdb")
		tools := listTools(t, cs)
		if req := findTool(tools, "find").InputSchema.(map[string]any)["required"]; !reflect.DeepEqual(req, []any{"collection"}) {
			t.Errorf("with --store, find requires %v", req)
		}
		callAndValidate(t, cs, tools, "count", m{"collection": "users"}, "")
		callAndValidate(t, cs, tools, "count", m{"path": "other.omgdb", "collection": "users"}, "PATH_DENIED")
	})
	t.Run("canned", func(t *testing.T) {
		tf := filepath.Join(t.TempDir(), "tools.json")
		os.WriteFile(tf, []byte(`{"tools":[{"name":"users_older","description":"Users older than an age.","path":"app.omgdb",
			"collection":"users","parameters":{"age":{"type":"integer","description":"Age","minimum":0,"maximum":150}},
			"filter":{"age":{"$gt":{"$param":"age"}}},"reject":{"name":"ada"}}]}`), 0o644)
		cs := start(t, dir, "--tools-file", tf, "--only-canned")
		tools := listTools(t, cs)
		if names := toolNames(tools); names != "users_older" {
			t.Errorf("--only-canned lists %s", names)
		}
		r.calls(t, cs, tools, []e2eCall{
			{tool: "users_older", args: m{"age": 30}, code: "POLICY_DENIED"}, // ada is 36
			{tool: "users_older", args: m{"age": 40}, check: wantField("matched", 0.0)},
			{tool: "users_older", args: m{"age": 200}, code: "INVALID_ARGUMENT", schemaInvalid: true},
			{tool: "users_older", args: m{"age": 40, "path": "app.omgdb"}, code: "INVALID_ARGUMENT", schemaInvalid: true},
			{tool: "find", args: app("collection", "users"), code: "POLICY_DENIED"},
		})
	})
	t.Run("max-bytes", func(t *testing.T) {
		cs := start(t, dir, "--max-bytes", "150")
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "omgdb://docs/mcp"})
		if err != nil || len(rr.Contents[0].Text) > 150 || !strings.Contains(rr.Contents[0].Text, "[truncated: this page is") {
			t.Errorf("docs/mcp at --max-bytes 150: %v %v", rr, err)
		}
		tools := listTools(t, cs)
		sc := callAndValidate(t, cs, tools, "find", app("collection", "notes"), "")
		if lim, _ := sc["applied_limits"].(map[string]any); lim["max_bytes"] != 150.0 {
			t.Errorf("find at --max-bytes 150: applied_limits %v", sc["applied_limits"])
		}
		// max_bytes lowers the cap, never raises it
		sc = callAndValidate(t, cs, tools, "find", app("collection", "notes", "max_bytes", 100000), "")
		if lim, _ := sc["applied_limits"].(map[string]any); lim["max_bytes"] != 150.0 {
			t.Errorf("find with max_bytes 100000 at --max-bytes 150: applied_limits %v", sc["applied_limits"])
		}
	})
	t.Run("index-check", func(t *testing.T) {
		cs := start(t, dir, "--index-check")
		tools := listTools(t, cs)
		sc := callAndValidate(t, cs, tools, "find", app("collection", "users", "filter", m{"name": "ada"}), "POLICY_DENIED")
		if !strings.Contains(sc["remediation_hint"].(string), `{"name":1}`) {
			t.Errorf("--index-check refusal: %v", sc)
		}
		callAndValidate(t, cs, tools, "count", app("collection", "users"), "")
	})
	t.Run("notifications", func(t *testing.T) { checkNotifications(t, start, streams) })
	t.Run("read-write", func(t *testing.T) {
		cs := start(t, dir, "--scope", "rw")
		tools := listTools(t, cs)
		if names := toolNames(tools); names != readWriteTools {
			t.Errorf("read-write scope lists %s", names)
		}
		for _, tool := range tools {
			if tool.Name == "insert" && (tool.Annotations.ReadOnlyHint || tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint || tool.Meta["requiredScope"] != "read-write") {
				t.Errorf("insert annotations: %+v %v", tool.Annotations, tool.Meta)
			}
			if d := tool.Annotations.DestructiveHint; (tool.Name == "apply" || tool.Name == "rollback") && (d == nil || !*d) {
				t.Errorf("%s is not marked destructive", tool.Name)
			}
		}
		r.calls(t, cs, tools, readWriteCalls)
		uri := "omgdb://app.omgdb/plans/" + r.vars["token"].(string)
		if rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err != nil || !strings.Contains(rr.Contents[0].Text, `"status":"rolled_back"`) && !strings.Contains(rr.Contents[0].Text, `"plan":{`) {
			t.Errorf("read %s: %v %v", uri, rr, err)
		}
	})
	t.Run("dangerous", func(t *testing.T) {
		cs := start(t, dir, "--scope", "all")
		tools := listTools(t, cs)
		if names := toolNames(tools); names != allTools {
			t.Errorf("dangerous scope lists %s", names)
		}
		for _, tool := range tools {
			dangerous := tool.Meta["requiredScope"] == "dangerous"
			if d := tool.Annotations.DestructiveHint; dangerous && (tool.Annotations.ReadOnlyHint || d == nil || !*d) {
				t.Errorf("%s: dangerous but annotated %+v", tool.Name, tool.Annotations)
			}
		}
		r.calls(t, cs, tools, dangerousCalls)
		// Every tool of the full catalog had a valid and an invalid call:
		// a new tool without cases fails here.
		for _, tool := range tools {
			if !r.valid[tool.Name] || !r.invalid[tool.Name] {
				t.Errorf("tool %s: valid call %v, invalid call %v: add cases to the e2e tables", tool.Name, r.valid[tool.Name], r.invalid[tool.Name])
			}
		}
	})
}

type m = map[string]any

func app(kv ...any) m {
	args := m{"path": "app.omgdb"}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i].(string)] = kv[i+1]
	}
	return args
}

func wantField(key string, want any) func(*testing.T, map[string]any) {
	return func(t *testing.T, sc map[string]any) {
		t.Helper()
		if got := sc[key]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v (%v)", key, got, want, sc)
		}
	}
}

func wantLen(key string, n int) func(*testing.T, map[string]any) {
	return func(t *testing.T, sc map[string]any) {
		t.Helper()
		if list, _ := sc[key].([]any); len(list) != n {
			t.Errorf("%s has %d entries, want %d: %v", key, len(list), n, sc)
		}
	}
}

func listTools(t *testing.T, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

func toolNames(tools []*mcp.Tool) string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, ",")
}

// callAndValidate calls a tool, checks the outcome (code "" for success),
// checks that the arguments of a successful call pass the inputSchema,
// validates structuredContent against the outputSchema, and returns the
// structuredContent.
func callAndValidate(t *testing.T, cs *mcp.ClientSession, tools []*mcp.Tool, name string, args map[string]any, code string) map[string]any {
	t.Helper()
	tool := findTool(tools, name)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	gotCode, _ := sc["code"].(string)
	if !res.IsError {
		gotCode = ""
	}
	if gotCode != code {
		t.Errorf("%s %v: code %q, want %q: %v", name, args, gotCode, code, sc)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError && !strings.HasPrefix(text, sc["message"].(string)) {
		t.Errorf("%s: error text %q does not start with the message %q", name, text, sc["message"])
	}
	if tool.Name == "" {
		return sc // not listed
	}
	if err := validate(tool.OutputSchema, sc); err != nil {
		t.Errorf("%s: structuredContent does not match outputSchema: %v\n%v", name, err, sc)
	}
	if err := validate(tool.InputSchema, args); code == "" && err != nil {
		t.Errorf("%s: valid arguments fail inputSchema: %v", name, err)
	}
	return sc
}

func findTool(tools []*mcp.Tool, name string) *mcp.Tool {
	for _, tl := range tools {
		if tl.Name == name {
			return tl
		}
	}
	return &mcp.Tool{InputSchema: map[string]any{}}
}

// validate checks a value against a JSON Schema (2020-12).
var validate = mcpserver.ValidateSchema

func checkResources(t *testing.T, cs *mcp.ClientSession) {
	ctx := context.Background()
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"omgdb://app.omgdb/collections", "omgdb://docs/limits", "omgdb://docs/mcp"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 6 {
		t.Errorf("templates: %v %v", tmpl, err)
	}
	for uri, want := range map[string]string{
		"omgdb://app.omgdb/collections":  `"name":"users","count":2`,
		"omgdb://app.omgdb/users/schema": `"field":"tags","types":["array"]`,
		"omgdb://docs/limits":            "# Limits",
		"omgdb://app.omgdb/history":      `"changes":[{"change":`,
		"omgdb://app.omgdb/snapshots":    `{"snapshots":[]}`,
	} {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, want) {
			t.Errorf("read %s: %v %v", uri, rr, err)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "omgdb://nope.omgdb/collections"}); err == nil {
		t.Error("reading a missing store's resource succeeded")
	}
}

func checkPrompts(t *testing.T, cs *mcp.ClientSession) {
	ctx := context.Background()
	res, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "explore_store,safe_change,time_travel,analyze_changes" {
		t.Errorf("prompts: %v", names)
	}
	// Every listed prompt, got with all its arguments, then without a
	// required one.
	values := map[string]string{"path": "app.omgdb", "collection": "users", "change": "rename bob to rob", "question": "who was deleted last week?"}
	for _, p := range res.Prompts {
		args := map[string]string{}
		var required []string
		for _, a := range p.Arguments {
			if values[a.Name] == "" {
				t.Errorf("prompt %s: argument %s has no test value", p.Name, a.Name)
			}
			args[a.Name] = values[a.Name]
			if a.Required {
				required = append(required, a.Name)
			}
		}
		pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil || len(pr.Messages) == 0 || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, "app.omgdb") {
			t.Errorf("prompt %s: %v %v", p.Name, pr, err)
		}
		if len(required) == 0 {
			t.Errorf("prompt %s has no required argument", p.Name)
			continue
		}
		delete(args, required[len(required)-1])
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args}); err == nil {
			t.Errorf("prompt %s without %s succeeded", p.Name, required[len(required)-1])
		}
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "safe_change", Arguments: map[string]string{"path": "app.omgdb", "collection": "users", "change": "rename bob"}})
	if err != nil || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, "read-only") {
		t.Errorf("safe_change at read scope: %v %v", pr, err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"}); err == nil {
		t.Error("an unknown prompt succeeded")
	}
}
