package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHTTP_ContentType: a POST without Content-Type application/json is
// 415, whatever its body.
func TestHTTP_ContentType(t *testing.T) {
	_, ts := httpFixture(t, HTTPConfig{Token: "t"})
	for ct, code := range map[string]int{
		"": 415, "text/plain": 415, "application/jsonx": 415, "application/json-seq": 415, "multipart/form-data; boundary=x": 415,
		"application/json": 200, "Application/JSON; charset=utf-8": 200,
	} {
		resp, body := do(t, ts, httpReq{"POST", initBody, map[string]string{"Authorization": "Bearer t", "Content-Type": ct}})
		if resp.StatusCode != code {
			t.Errorf("Content-Type %q: %d %s, want %d", ct, resp.StatusCode, body, code)
		}
	}
}

// clock is a settable time for session tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func sessionFixture(t *testing.T, hc HTTPConfig) (*clock, *httptest.Server) {
	clk := &clock{now: testNow}
	f := newFixture(t, Config{HTTP: hc, Now: clk.Now})
	f.standardStore()
	ts := httptest.NewServer(f.srv)
	t.Cleanup(ts.Close)
	return clk, ts
}

// TestHTTP_SessionsReclaimed: when MaxSessions are alive, initialize
// ends the session idle the longest instead of refusing; the ended
// session's client gets 404 (and initializes again); a session unused
// for IdleTimeout ends.
func TestHTTP_SessionsReclaimed(t *testing.T) {
	clk, ts := sessionFixture(t, HTTPConfig{Token: "t", MaxSessions: 3, IdleTimeout: 10 * time.Minute})
	auth := map[string]string{"Authorization": "Bearer t"}
	open := func() string {
		t.Helper()
		clk.advance(time.Second)
		resp, body := do(t, ts, httpReq{"POST", initBody, auth})
		if resp.StatusCode != 200 {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	ping := func(id string) int {
		clk.advance(time.Second)
		resp, _ := do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			map[string]string{"Authorization": "Bearer t", "Mcp-Session-Id": id}})
		return resp.StatusCode
	}
	s1, s2, s3 := open(), open(), open()
	if ping(s1) != 200 {
		t.Fatal("s1 is alive")
	}
	s4 := open() // s2 is now the session idle the longest
	for id, want := range map[string]int{s1: 200, s2: 404, s3: 200, s4: 200} {
		if got := ping(id); got != want {
			t.Errorf("session %s: %d, want %d", id, got, want)
		}
	}
	for range 96 { // a flood of initialize calls is answered, never refused
		open()
	}
	if got := ping(s4); got != 404 {
		t.Errorf("a session pushed out by newer ones: %d", got)
	}
	s5 := open()
	clk.advance(9 * time.Minute)
	if got := ping(s5); got != 200 {
		t.Errorf("a session idle 9 minutes: %d", got)
	}
	clk.advance(11 * time.Minute)
	if got := ping(s5); got != 404 {
		t.Errorf("a session idle 11 minutes: %d", got)
	}
}

// TestHTTP_Healthz: /healthz answers without a token and says nothing
// but ok.
func TestHTTP_Healthz(t *testing.T) {
	_, ts := httpFixture(t, HTTPConfig{Token: "t"})
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok\n" {
		t.Errorf("GET /healthz: %d %q", resp.StatusCode, b)
	}
	for k, v := range resp.Header {
		if strings.Contains(strings.ToLower(k+strings.Join(v, " ")), "omgdb") || k == "Server" {
			t.Errorf("/healthz header %s: %v", k, v)
		}
	}
	resp, err = http.Post(ts.URL+"/healthz", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Errorf("POST /healthz: %d", resp.StatusCode)
	}
}

// TestHTTP_FloodPushesOutItsOwn: a client that holds half the sessions
// or more reclaims its own oldest when it opens another, so a loop of
// initialize calls leaves the other clients' sessions alone.
func TestHTTP_FloodPushesOutItsOwn(t *testing.T) {
	clk, ts := sessionFixture(t, HTTPConfig{Token: "t", MaxSessions: 4})
	open := func(name string) string {
		t.Helper()
		clk.advance(time.Second)
		body := strings.Replace(initBody, `"name":"h"`, `"name":"`+name+`"`, 1)
		resp, _ := do(t, ts, httpReq{"POST", body, map[string]string{"Authorization": "Bearer t"}})
		if resp.StatusCode != 200 {
			t.Fatalf("initialize %s: %d", name, resp.StatusCode)
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	good := []string{open("good"), open("good")}
	var flood []string
	for range 50 {
		flood = append(flood, open("flood"))
	}
	for _, id := range good {
		resp, _ := do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			map[string]string{"Authorization": "Bearer t", "Mcp-Session-Id": id}})
		if resp.StatusCode != 200 {
			t.Errorf("a session of another client was pushed out by the flood: %d", resp.StatusCode)
		}
	}
	resp, _ := do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{"Authorization": "Bearer t", "Mcp-Session-Id": flood[0]}})
	if resp.StatusCode != 404 {
		t.Errorf("the flood's first session: %d, want 404", resp.StatusCode)
	}
}
