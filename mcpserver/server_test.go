package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// addTool adds a tool to a running fixture, listed, for tests of the
// machinery around tools.
func (f *fixture) addTool(t *tool) {
	f.srv.known[t.Name] = t
	f.srv.tools = append(f.srv.tools, t)
}

// TestScope_EngineLayer: a tool of read scope cannot write even if its
// code tries, and neither can any tool of a read-scope server: the store
// is opened read-only (layer 3).
func TestScope_EngineLayer(t *testing.T) {
	for _, scope := range []Scope{ScopeRead, ScopeReadWrite} {
		f := newFixture(t, Config{Scope: scope})
		f.standardStore()
		f.addTool(&tool{Name: "sneaky", Scope: ScopeRead, Params: []param{f.srv.pathParam()}, Run: func(ctx context.Context, c *call) (*output, error) {
			db, err := c.openStore(true) // asks for write access
			if err != nil {
				return nil, err
			}
			defer db.Close()
			return newOutput(obj()), db.Update(store.Change{}, func(tx *store.Tx) error {
				col, err := tx.CreateCollection("users")
				if err != nil {
					return err
				}
				_, err = col.Insert(value.MustParse(`{"x":1}`))
				return err
			})
		}})
		res := f.callTool("sneaky", `{"path":"app.omgdb"}`)
		if errorCode(res) != CodeScopeDenied {
			t.Errorf("scope %s: a read tool wrote, or failed otherwise: %v", scope, res)
		}
		if n := structured(t, f.callTool("count", `{"path":"app.omgdb","collection":"users"}`))["count"]; n != 3.0 {
			t.Errorf("scope %s: count = %v after the attempt", scope, n)
		}
	}
}

// TestScope_Listing: each scope lists exactly its tools, and no argument
// widens the scope.
func TestScope_Listing(t *testing.T) {
	want := map[Scope]string{ScopeRead: "describe,find,count,distinct,aggregate,export,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,history,diff,plans", ScopeReadWrite: "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,rename_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,history,diff,plans,plan_update,plan_delete,plan_aggregate,plan_revert,apply,rollback,create_snapshot",
		ScopeDangerous: "describe,find,count,distinct,aggregate,export,insert,insert_many,create_collection,rename_collection,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,create_index,drop_index,history,diff,plans,plan_update,plan_delete,plan_aggregate,plan_revert,apply,rollback,create_snapshot,delete_snapshot,drop_collection,prune_history"}
	for scope, names := range want {
		f := newFixture(t, Config{Scope: scope})
		if got := join(f.srv.listedNames()); got != names {
			t.Errorf("scope %s lists %s, want %s", scope, got, names)
		}
	}
	f := newFixture(t, Config{})
	f.standardStore()
	for _, args := range []string{`{"scope":"dangerous"}`, `{"_meta":{"scope":"read-write"}}`} {
		if res := f.callTool("insert", args); errorCode(res) != CodeScopeDenied {
			t.Errorf("insert with %s: %v", args, res)
		}
	}
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"insert","scope":"dangerous","_meta":{"scope":"all"},"arguments":{"path":"app.omgdb","collection":"users","document":{}}}}`
	if out := f.send(line); !strings.Contains(out[0], "SCOPE_DENIED") {
		t.Errorf("params widened the scope: %s", out[0])
	}
	for _, s := range []string{"read", "ro", "read-write", "write", "rw", "dangerous", "all"} {
		if _, err := ParseScope(s); err != nil {
			t.Errorf("ParseScope(%q): %v", s, err)
		}
	}
	if _, err := ParseScope("x"); err == nil || err.Error() != "invalid --scope 'x' (use read, read-write, or dangerous)" {
		t.Errorf("ParseScope(x): %v", err)
	}
}

// TestCall_PanicIsInternal: a panic in a tool is an INTERNAL error and the
// server keeps serving.
func TestCall_PanicIsInternal(t *testing.T) {
	var log strings.Builder
	f := newFixture(t, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	f.standardStore()
	f.addTool(&tool{Name: "boom", Scope: ScopeRead, Run: func(context.Context, *call) (*output, error) { panic("kaboom") }})
	res := f.callTool("boom", `{}`)
	if errorCode(res) != CodeInternal || !strings.Contains(resultText(res), "kaboom") {
		t.Errorf("%v", res)
	}
	if errorCode(f.callTool("count", `{"path":"app.omgdb","collection":"users"}`)) != "" {
		t.Error("the server stopped serving after a panic")
	}
	// The panic is logged; its stack only at debug level, which this log
	// (omgdb mcp's without OMGDB_DEBUG) leaves out.
	if !strings.Contains(log.String(), "tool panic") || strings.Contains(log.String(), "goroutine") {
		t.Errorf("log: %s", log.String())
	}
	if strings.Contains(resultText(res), "goroutine") {
		t.Errorf("the stack reached the agent: %s", resultText(res))
	}
}

// TestCall_Deadline: a call that outlives --timeout is stopped and
// reported as LIMIT_EXCEEDED, naming the flag.
func TestCall_Deadline(t *testing.T) {
	f := newFixture(t, Config{Timeout: time.Nanosecond})
	makeStore(t, filepath.Join(f.root, "app.omgdb"), map[string][]string{"c": manyDocs(3000, "")})
	res := f.callTool("count", `{"path":"app.omgdb","collection":"c","filter":{"k":1}}`)
	if errorCode(res) != CodeLimitExceeded || !strings.Contains(resultText(res), "--timeout") {
		t.Errorf("%v", res)
	}
}

// TestCall_Busy: a store locked by another writer gives a retryable BUSY
// error naming the path the agent gave, after the lock timeout.
func TestCall_Busy(t *testing.T) {
	f := newFixture(t, Config{LockTimeout: 50 * time.Millisecond})
	path := f.standardStore()
	holder, err := store.Open(path, &store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := f.callTool("count", `{"path":"app.omgdb","collection":"users"}`)
	sc := structured(t, res)
	if errorCode(res) != CodeBusy || sc["retryable"] != true || !strings.HasPrefix(resultText(res), "store app.omgdb is busy") {
		t.Errorf("%v", res)
	}
	holder.Close()
	if errorCode(f.callTool("count", `{"path":"app.omgdb","collection":"users"}`)) != "" {
		t.Error("still failing after the lock was released")
	}
}

// serve runs Serve over pipes and returns a writer for requests and a
// reader of answers; done receives Serve's error.
func serve(t *testing.T, f *fixture) (io.WriteCloser, *bufio.Reader, chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := f.srv.Serve(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	return inW, bufio.NewReaderSize(outR, 1<<20), done
}

func readAnswer(t *testing.T, r *bufio.Reader) map[string]any {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("answer is not JSON: %q", line)
	}
	return m
}

// TestServe_Cancel: notifications/cancelled stops the named call, which
// is then never answered; other requests are answered meanwhile.
func TestServe_Cancel(t *testing.T) {
	f := newFixture(t, Config{})
	started, stopped := make(chan bool), make(chan error, 1)
	f.addTool(&tool{Name: "wait", Scope: ScopeRead, Run: func(ctx context.Context, c *call) (*output, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	}})
	in, out, done := serve(t, f)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"wait"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if m := readAnswer(t, out); m["id"] != 1.0 {
		t.Fatalf("first answer %v, want the ping's", m)
	}
	<-started // a call cancelled before it starts never runs at all
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w","reason":"test"}}`)
	if err := <-stopped; err != context.Canceled {
		t.Errorf("the call stopped with %v", err)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := readAnswer(t, out); m["id"] != 2.0 {
		t.Errorf("answer %v, want the second ping's (the cancelled call must get none)", m)
	}
	in.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Errorf("extra output after EOF: %s", rest)
	}
}

// TestServe_EOFMidCall: input closed while a call runs: the call still
// gets its answer, then Serve returns nil.
func TestServe_EOFMidCall(t *testing.T) {
	f := newFixture(t, Config{})
	f.addTool(&tool{Name: "slow", Scope: ScopeRead, Run: func(ctx context.Context, c *call) (*output, error) {
		time.Sleep(100 * time.Millisecond)
		return newOutput(obj("ok", true)), nil
	}})
	in, out, done := serve(t, f)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}`)
	in.Close()
	if m := readAnswer(t, out); m["id"] != 7.0 || m["result"] == nil {
		t.Errorf("answer %v", m)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestServe_LongLine: a line over 4 MiB is answered with an error, and
// the next line is served.
func TestServe_LongLine(t *testing.T) {
	f := newFixture(t, Config{})
	in, out, done := serve(t, f)
	go func() {
		big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", MaxLineBytes) + `"}}`
		fmt.Fprintln(in, big)
		fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		in.Close()
	}()
	m := readAnswer(t, out)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32600.0 || !strings.Contains(e["message"].(string), "4 MiB") {
		t.Errorf("long line: %v", m)
	}
	if m := readAnswer(t, out); m["id"] != 2.0 {
		t.Errorf("after the long line: %v", m)
	}
	<-done
}

func TestLineReader(t *testing.T) {
	input := "a\r\n\n" + strings.Repeat("x", 20) + "\nlast"
	lr := newLineReader(strings.NewReader(input), 10)
	var got []string
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			break
		}
		got = append(got, fmt.Sprintf("%q:%v", line, tooLong))
	}
	if want := `"a":false,"":false,"":true,"last":false`; strings.Join(got, ",") != want {
		t.Errorf("got %s, want %s", strings.Join(got, ","), want)
	}
}

// TestAudit: one line per call, refused ones included, with no argument
// values or document data; the digest ignores key order; a broken audit
// log stops the server from serving tools.
func TestAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	f := newFixture(t, Config{Audit: path})
	f.standardStore()
	f.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"auditor"}}}`)
	f.callTool("find", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`)
	f.callTool("find", `{"filter":{"city":"Paris"},"collection":"users","path":"app.omgdb"}`)
	f.callTool("insert", `{"path":"app.omgdb","collection":"users","document":{"name":"eve"}}`)
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d audit lines, want 3:\n%s", len(lines), b)
	}
	var recs []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	if recs[0]["client"] != "auditor" || recs[0]["tool"] != "find" || recs[0]["outcome"] != "ok" || recs[0]["returned"] != 2.0 {
		t.Errorf("record %v", recs[0])
	}
	if recs[0]["args_hmac"] != recs[1]["args_hmac"] {
		t.Error("the digest depends on key order")
	}
	if recs[2]["outcome"] != "error" || recs[2]["code"] != CodeScopeDenied {
		t.Errorf("refused call: %v", recs[2])
	}
	if recs[2]["args_hmac"] != auditHMAC(t, path, `{"path":"app.omgdb","collection":"users","document":{"name":"eve"}}`) {
		t.Errorf("a refused call's digest is not that of its arguments as sent: %v", recs[2])
	}
	for _, secret := range []string{"Paris", "ada", "eve", "users"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, b)
		}
	}
	f.srv.audit.f.Close() // the disk goes away
	if res := f.callTool("count", `{"path":"app.omgdb","collection":"users"}`); errorCode(res) != CodeInternal {
		t.Errorf("a call whose audit line failed: %v", res)
	}
	if res := f.callTool("count", `{"path":"app.omgdb","collection":"users"}`); !strings.Contains(resultText(res), "refuses further tool calls") {
		t.Errorf("later call: %s", resultText(res))
	}
}
