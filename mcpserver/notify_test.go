package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sendNotified handles one line with a notifier, as Serve and an HTTP
// event stream give, and returns every message sent, in order.
func (f *fixture) sendNotified(line string) []string {
	var mu sync.Mutex
	var out []string
	add := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, string(b))
	}
	f.sess.handleLine(withNotifier(context.Background(), add), []byte(line), false, add, false)
	mu.Lock()
	defer mu.Unlock()
	return out
}

func notificationsOf(t *testing.T, msgs []string, method string) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, m := range msgs {
		var n struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal([]byte(m), &n) == nil && n.Method == method {
			got = append(got, n.Params)
		}
	}
	return got
}

// TestLogging: no log messages until logging/setLevel; then one per call
// at or above the level, naming the tool and the outcome's code, and
// never a value: not an argument, not a redacted field, not a document.
func TestLogging(t *testing.T) {
	f := newFixture(t, Config{Redact: []string{"users.ssn"}})
	f.standardStore()
	call := func(args string) []string {
		return f.sendNotified(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":` + args + `}}`)
	}
	if logs := notificationsOf(t, call(`{"path":"app.omgdb","collection":"users"}`), "notifications/message"); len(logs) != 0 {
		t.Errorf("log messages before logging/setLevel: %v", logs)
	}
	if out := f.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"loud"}}`); !strings.Contains(out[0], `"code":-32602`) {
		t.Errorf("setLevel loud: %s", out[0])
	}
	if out := f.send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`); out[0] != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("setLevel info: %s", out[0])
	}
	var all []string
	for _, args := range []string{
		`{"path":"app.omgdb","collection":"users","filter":{"ssn":"111-11-1111"}}`,
		`{"path":"app.omgdb","collection":"users","filter":{"name":"ada"}}`,
		`{"path":"app.omgdb","collection":"users","filter":{"name":{"$gtee":"zebra-secret"}}}`,
		`{"path":"app.omgdb","collection":"users","limit":1}`,
	} {
		msgs := call(args)
		logs := notificationsOf(t, msgs, "notifications/message")
		if len(logs) != 1 || logs[0]["logger"] != "omgdb" || !strings.Contains(logs[0]["data"].(string), "tool find") {
			t.Errorf("find %s: log messages %v", args, logs)
		}
		if len(msgs) != 2 || !strings.Contains(msgs[1], `"id":1`) {
			t.Errorf("find %s: the log message must come before the answer: %v", args, msgs)
		}
		all = append(all, msgs[0])
	}
	text := strings.Join(all, "\n")
	for _, leak := range []string{"111-11-1111", "222-22-2222", "ada", "zebra-secret", "Paris"} {
		if strings.Contains(text, leak) {
			t.Errorf("a log message holds %q:\n%s", leak, text)
		}
	}
	for _, want := range []string{`"level":"info"`, `"level":"warning"`, "INVALID_FILTER", `"level":"notice"`, "capped by [limit]"} {
		if !strings.Contains(text, want) {
			t.Errorf("log messages lack %s:\n%s", want, text)
		}
	}
	f.send(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}`)
	if logs := notificationsOf(t, call(`{"path":"app.omgdb","collection":"nope"}`), "notifications/message"); len(logs) != 0 {
		t.Errorf("a warning sent at level error: %v", logs)
	}
}

// TestProgress: a call whose request has a progressToken and runs past
// progressEvery gets notifications/progress with that token, increasing,
// before its answer; one without a token gets none.
func TestProgress(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = time.Millisecond
	f := newFixture(t, Config{})
	f.standardStore()
	slow := `{"path":"app.omgdb","collection":"users","filter":{"$expr":{"$gt":[{"$size":{"$range":[0,1000000]}},0]}}}`
	line := func(meta string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{%s"name":"count","arguments":%s}}`, meta, slow)
	}
	msgs := f.sendNotified(line(`"_meta":{"progressToken":"tok-1"},`))
	prog := notificationsOf(t, msgs, "notifications/progress")
	if len(prog) == 0 {
		t.Fatalf("no progress for a call with a progressToken: %v", msgs)
	}
	last := 0.0
	for _, p := range prog {
		if p["progressToken"] != "tok-1" || p["progress"].(float64) <= last {
			t.Errorf("progress %v after %v", p, last)
		}
		last = p["progress"].(float64)
	}
	if !strings.Contains(msgs[len(msgs)-1], `"id":7`) {
		t.Errorf("the answer is not last: %v", msgs)
	}
	if prog := notificationsOf(t, f.sendNotified(line(`"_meta":{"progressToken":42},`)), "notifications/progress"); len(prog) == 0 || prog[0]["progressToken"] != 42.0 {
		t.Errorf("integer progress token: %v", prog)
	}
	for _, meta := range []string{``, `"_meta":{"progressToken":{"x":1}},`} {
		if prog := notificationsOf(t, f.sendNotified(line(meta)), "notifications/progress"); len(prog) != 0 {
			t.Errorf("progress with %q: %v", meta, prog)
		}
	}
}
