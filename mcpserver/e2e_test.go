package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/storetest"
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

func e2eDir(t *testing.T) string {
	dir := t.TempDir()
	storetest.Create(t, filepath.Join(dir, "app.omgdb"), map[string][]string{
		"users": {`{"_id":1,"name":"ada","age":36,"tags":["go"]}`, `{"_id":2,"name":"bob","age":25}`},
	})
	return dir
}

type starter func(t *testing.T, dir string, args ...string) *mcp.ClientSession

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
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
	hc := &http.Client{Transport: bearer{"e2e-token"}}
	return connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc})
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestE2E_Stdio(t *testing.T) { runE2E(t, startStdio) }
func TestE2E_HTTP(t *testing.T)  { runE2E(t, startHTTP) }

func runE2E(t *testing.T, start starter) {
	dir := e2eDir(t)
	ctx := context.Background()
	t.Run("read", func(t *testing.T) {
		cs := start(t, dir, "--scope", "read")
		init := cs.InitializeResult()
		if init.ServerInfo == nil || init.ServerInfo.Name != "omgdb" || init.ProtocolVersion != "2025-11-25" || !strings.Contains(init.Instructions, "describe") {
			t.Errorf("initialize: %+v %+v", init, init.ServerInfo)
		}
		if init.Capabilities.Tools == nil || init.Capabilities.Resources == nil || init.Capabilities.Prompts == nil {
			t.Errorf("capabilities: %+v", init.Capabilities)
		}
		tools := listTools(t, cs)
		if names := toolNames(tools); names != "describe,find,count,aggregate,explain,diagnose,vsearch,search,context_pack,history,diff,plans" {
			t.Errorf("read scope lists %s", names)
		}
		for _, tool := range tools {
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Meta["requiredScope"] != "read" {
				t.Errorf("%s: annotations %+v, _meta %v", tool.Name, tool.Annotations, tool.Meta)
			}
		}
		calls := []struct {
			tool          string
			args          map[string]any
			code          string
			schemaInvalid bool
		}{
			{"describe", map[string]any{"path": "app.omgdb"}, "", false},
			{"describe", map[string]any{"path": "app.omgdb", "collection": "user"}, "NOT_FOUND", false},
			{"find", map[string]any{"path": "app.omgdb", "collection": "users", "filter": map[string]any{"tags": "go"}, "limit": 1}, "", false},
			{"find", map[string]any{"path": "app.omgdb", "collection": "users", "limit": 0}, "INVALID_ARGUMENT", true},
			{"find", map[string]any{"path": "../app.omgdb", "collection": "users"}, "PATH_DENIED", false},
			{"find", map[string]any{"path": "app.omgdb", "collection": "users", "filter": map[string]any{"age": map[string]any{"$gt": 20}},
				"sort": map[string]any{"age": -1}, "project": map[string]any{"name": 1, "_id": 0}}, "", false},
			{"find", map[string]any{"path": "app.omgdb", "collection": "users", "sort": map[string]any{"age": "down"}}, "INVALID_ARGUMENT", false},
			{"find", map[string]any{"path": "app.omgdb", "collection": "users", "filter": map[string]any{"age": map[string]any{"$gtee": 1}}}, "INVALID_FILTER", false},
			{"count", map[string]any{"path": "app.omgdb", "collection": "users", "filter": map[string]any{"age": 25}}, "", false},
			{"aggregate", map[string]any{"path": "app.omgdb", "collection": "users", "pipeline": []any{
				map[string]any{"$group": map[string]any{"_id": nil, "n": map[string]any{"$sum": 1}, "avg": map[string]any{"$avg": "$age"}}}}}, "", false},
			{"aggregate", map[string]any{"path": "app.omgdb", "collection": "users", "pipeline": []any{map[string]any{"$out": "x"}}}, "INVALID_ARGUMENT", false},
			{"aggregate", map[string]any{"path": "app.omgdb", "collection": "users", "pipeline": map[string]any{"$match": map[string]any{}}}, "INVALID_ARGUMENT", true},
			{"count", map[string]any{"path": "app.omgdb", "collection": "users", "filter": "age"}, "INVALID_ARGUMENT", true},
			{"insert", map[string]any{"path": "app.omgdb", "collection": "users", "document": map[string]any{}}, "SCOPE_DENIED", false},
			{"history", map[string]any{"path": "app.omgdb", "limit": 5}, "", false},
			{"diff", map[string]any{"path": "app.omgdb", "from": "0"}, "", false},
			{"diff", map[string]any{"path": "app.omgdb"}, "INVALID_ARGUMENT", true},
			{"plans", map[string]any{"path": "app.omgdb", "all": true}, "", false},
			{"find", map[string]any{"path": "app.omgdb", "collection": "users", "at": "0"}, "NOT_FOUND", false},
			{"apply", map[string]any{"path": "app.omgdb", "token": "x"}, "SCOPE_DENIED", false},
		}
		for _, c := range calls {
			callAndValidate(t, cs, tools, c.tool, c.args, c.code)
		}
		// What the inputSchema itself rules out, the server refuses too (above).
		for _, c := range calls {
			if c.schemaInvalid {
				if err := validate(findTool(tools, c.tool).InputSchema, c.args); err == nil {
					t.Errorf("%s %v: passes the inputSchema", c.tool, c.args)
				}
			}
		}
		checkResources(t, cs)
		checkPrompts(t, cs)
	})
	t.Run("read-write", func(t *testing.T) {
		cs := start(t, dir, "--scope", "rw")
		tools := listTools(t, cs)
		if names := toolNames(tools); names != "describe,find,count,aggregate,insert,explain,diagnose,vsearch,search,context_pack,create_index,history,diff,plans,plan_update,plan_delete,plan_revert,apply,rollback,create_snapshot" {
			t.Errorf("read-write scope lists %s", names)
		}
		for _, tool := range tools {
			if tool.Name == "insert" && (tool.Annotations.ReadOnlyHint || tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint || tool.Meta["requiredScope"] != "read-write") {
				t.Errorf("insert annotations: %+v %v", tool.Annotations, tool.Meta)
			}
		}
		sc := callAndValidate(t, cs, tools, "insert", map[string]any{"path": "app.omgdb", "collection": "users", "document": map[string]any{"name": "cy"}}, "")
		if _, ok := sc["inserted_id"].(map[string]any)["$oid"]; !ok {
			t.Errorf("inserted_id = %v, want a generated ObjectId", sc["inserted_id"])
		}
		callAndValidate(t, cs, tools, "insert", map[string]any{"path": "app.omgdb", "collection": "users", "document": map[string]any{"_id": 1}}, "CONFLICT")
		callAndValidate(t, cs, tools, "insert", map[string]any{"path": "app.omgdb", "collection": "users"}, "INVALID_ARGUMENT")
		if validate(findTool(tools, "insert").InputSchema, map[string]any{"path": "app.omgdb", "collection": "users"}) == nil {
			t.Error("insert without a document passes its inputSchema")
		}
		if n := callAndValidate(t, cs, tools, "count", map[string]any{"path": "app.omgdb", "collection": "users"}, "")["count"]; n != 3.0 {
			t.Errorf("count after insert = %v", n)
		}
		// The change lifecycle through a real client, results checked
		// against their outputSchema.
		plan := callAndValidate(t, cs, tools, "plan_update", map[string]any{"path": "app.omgdb", "collection": "users",
			"filter": map[string]any{"name": "cy"}, "update": map[string]any{"$set": map[string]any{"age": 3}}}, "")
		applied := callAndValidate(t, cs, tools, "apply", map[string]any{"path": "app.omgdb", "token": plan["token"]}, "")
		callAndValidate(t, cs, tools, "plans", map[string]any{"path": "app.omgdb", "token": plan["token"]}, "")
		callAndValidate(t, cs, tools, "rollback", map[string]any{"path": "app.omgdb", "change_id": applied["change_id"]}, "")
		callAndValidate(t, cs, tools, "apply", map[string]any{"path": "app.omgdb", "token": plan["token"]}, "CONFLICT")
		for _, tool := range tools {
			if d := tool.Annotations.DestructiveHint; (tool.Name == "apply" || tool.Name == "rollback") && (d == nil || !*d) {
				t.Errorf("%s is not marked destructive", tool.Name)
			}
		}
	})
	_ = ctx
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

func validate(schema any, instance any) error {
	b, _ := json.Marshal(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	b, _ = json.Marshal(instance)
	var v any
	json.Unmarshal(b, &v)
	return rs.Validate(v)
}

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
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "safe_change", Arguments: map[string]string{"path": "app.omgdb", "collection": "users", "change": "rename bob"}})
	if err != nil || len(pr.Messages) != 1 || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, "read-only") {
		t.Errorf("safe_change at read scope: %v %v", pr, err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "safe_change", Arguments: map[string]string{"path": "app.omgdb"}}); err == nil {
		t.Error("safe_change without its required arguments succeeded")
	}
}
