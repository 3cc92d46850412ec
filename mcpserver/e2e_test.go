package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omgdb/omgdb/cli"
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
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
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
	readWriteTools = "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,history,diff,plans,plan_update,plan_delete,plan_revert,apply,rollback,create_snapshot"
	allTools       = "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,drop_index,history,diff,plans,plan_update,plan_delete,plan_revert,apply,rollback,create_snapshot,delete_snapshot,drop_collection,prune_history"
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

// checkNotifications: after logging/setLevel the client gets a log
// message per call, and a call that runs over a second with a
// progressToken gets progress notifications, over the transport tested
// when it streams; an HTTP client that accepts only JSON gets none.
func checkNotifications(t *testing.T, start starter, streams bool) {
	dir := t.TempDir()
	var docs []string
	for i := range 150 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d}`, i))
	}
	storetest.Create(t, filepath.Join(dir, "app.omgdb"), map[string][]string{"slow": docs})
	var mu sync.Mutex
	var logs []string
	var progress []float64
	clientOptions = &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprintf("%s %v", r.Params.Level, r.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			if r.Params.ProgressToken == "e2e" {
				progress = append(progress, r.Params.Progress)
			}
		},
	}
	defer func() { clientOptions = nil }()
	cs := start(t, dir, "--timeout", "60s")
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "verbose"}); err == nil {
		t.Errorf("logging/setLevel verbose: no error")
	}
	slow := m{"path": "app.omgdb", "collection": "slow", "filter": m{"$expr": m{"$gt": []any{m{"$size": m{"$range": []any{0, 200000}}}, 0}}}}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: slow, Meta: mcp.Meta{"progressToken": "e2e"}})
	if err != nil || res.IsError {
		t.Fatalf("slow count: %v %v", res, err)
	}
	// The client hands notifications to its handlers asynchronously.
	for i := 0; i < 100 && streams; i++ {
		mu.Lock()
		n := len(logs)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if !streams {
		if len(progress)+len(logs) != 0 {
			t.Errorf("notifications to a client that accepts only JSON: %v %v", progress, logs)
		}
		return
	}
	if len(progress) == 0 || !slices.IsSorted(progress) {
		t.Errorf("progress of a call over a second: %v", progress)
	}
	if len(logs) != 1 || !strings.HasPrefix(logs[0], "info tool count answered") {
		t.Errorf("log messages: %v", logs)
	}
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
