package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/storetest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testNow is the fixed clock of test servers.
var testNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// fixture is a server over a temporary root, driven line by line.
type fixture struct {
	t    testing.TB
	root string
	srv  *Server
	sess *session
}

// newFixture starts a server on cfg with a deterministic clock and random
// source, rooted in a new temporary directory unless cfg says otherwise.
func newFixture(t testing.TB, cfg Config) *fixture {
	t.Helper()
	if cfg.Root == "" && cfg.Store == "" {
		cfg.Root = t.TempDir()
	}
	if cfg.Rand == nil {
		cfg.Rand = mrand.NewChaCha8([32]byte{1})
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testNow }
	}
	if cfg.Version == "" {
		cfg.Version = "test"
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return &fixture{t: t, root: cfg.Root, srv: srv, sess: srv.newSession("stdio")}
}

// makeStore creates a store holding the given documents per collection.
var makeStore = storetest.Create

// standardStore is the store most tests use: app.omgdb under the root.
func (f *fixture) standardStore() string {
	path := filepath.Join(f.root, "app.omgdb")
	makeStore(f.t, path, map[string][]string{
		"users": {
			`{"_id":1,"name":"ada","age":36,"city":"Paris","ssn":"111-11-1111","langs":["go","c"]}`,
			`{"_id":2,"name":"bob","age":"30","city":"Lyon","ssn":"222-22-2222"}`,
			`{"_id":3,"name":"cy","age":25,"city":"Paris","address":{"zip":"75001"}}`,
		},
		"orders": {`{"_id":10,"user":1,"total":12.5}`},
	})
	return path
}

// send handles one line synchronously and returns the answers.
func (f *fixture) send(line string) []string {
	var out []string
	f.sess.handleLine(context.Background(), []byte(line), false, func(b []byte) { out = append(out, string(b)) }, false)
	return out
}

// callTool calls a tool and returns its result (the "result" member).
func (f *fixture) callTool(name, args string) map[string]any {
	f.t.Helper()
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	out := f.send(line)
	if len(out) != 1 {
		f.t.Fatalf("%s: %d answers, want 1", line, len(out))
	}
	var msg struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(out[0]), &msg); err != nil || msg.Result == nil {
		f.t.Fatalf("%s: bad answer %s (%v)", name, out[0], err)
	}
	return msg.Result
}

// structured returns a tool result's structuredContent.
func structured(t testing.TB, res map[string]any) map[string]any {
	t.Helper()
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structuredContent in %v", res)
	}
	return sc
}

// errorCode returns the code of an error result, or "" for a success.
func errorCode(res map[string]any) string {
	if res["isError"] != true {
		return ""
	}
	sc, _ := res["structuredContent"].(map[string]any)
	code, _ := sc["code"].(string)
	return code
}

func resultText(res map[string]any) string {
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	item, _ := content[0].(map[string]any)
	s, _ := item["text"].(string)
	return s
}

func mustNotExist(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s exists; it must not have been created", path)
	}
}

func docIDs(t testing.TB, sc map[string]any) []string {
	t.Helper()
	docs, _ := sc["documents"].([]any)
	var ids []string
	for _, d := range docs {
		b, _ := json.Marshal(d.(map[string]any)["_id"])
		ids = append(ids, string(b))
	}
	return ids
}

func join(ids []string) string { return strings.Join(ids, ",") }

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
