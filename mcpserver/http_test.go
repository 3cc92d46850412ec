package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/errs"
)

func httpFixture(t *testing.T, hc HTTPConfig) (*fixture, *httptest.Server) {
	f := newFixture(t, Config{HTTP: hc})
	f.standardStore()
	ts := httptest.NewServer(f.srv)
	t.Cleanup(ts.Close)
	return f, ts
}

type httpReq struct {
	method, body string
	header       map[string]string
}

func do(t *testing.T, ts *httptest.Server, r httpReq) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(r.method, ts.URL+"/mcp", strings.NewReader(r.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range r.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"h"}}}`

// TestHTTP_Guards: the token, Origin and Host checks, and the session
// rules of Streamable HTTP.
func TestHTTP_Guards(t *testing.T) {
	_, ts := httpFixture(t, HTTPConfig{Token: "s3cret"})
	auth := map[string]string{"Authorization": "Bearer s3cret"}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"Authorization": "Bearer s3cret"}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	for _, tc := range []struct {
		name string
		req  httpReq
		code int
	}{
		{"no token", httpReq{"POST", initBody, nil}, 401},
		{"wrong token", httpReq{"POST", initBody, map[string]string{"Authorization": "Bearer nope"}}, 401},
		{"foreign origin", httpReq{"POST", initBody, with(map[string]string{"Origin": "http://evil.example"})}, 403},
		{"rebinding host", httpReq{"POST", initBody, with(map[string]string{"Host": "evil.example:80"})}, 403},
		{"bad version header", httpReq{"POST", initBody, with(map[string]string{"MCP-Protocol-Version": "1999-01-01"})}, 400},
		{"GET", httpReq{"GET", "", auth}, 405},
		{"no session", httpReq{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, auth}, 400},
		{"unknown session", httpReq{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, with(map[string]string{"Mcp-Session-Id": "nope"})}, 404},
		{"too large", httpReq{"POST", strings.Repeat(" ", MaxLineBytes+1), auth}, 413},
		{"loopback origin", httpReq{"POST", initBody, with(map[string]string{"Origin": "http://localhost:3000"})}, 200},
	} {
		resp, body := do(t, ts, tc.req)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: status %d (%s), want %d", tc.name, resp.StatusCode, body, tc.code)
		}
		if tc.code == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
	}
}

// TestHTTP_Session: initialize opens a session; its id carries later
// requests; notifications get 202; DELETE ends it.
func TestHTTP_Session(t *testing.T) {
	_, ts := httpFixture(t, HTTPConfig{Token: "t"})
	h := map[string]string{"Authorization": "Bearer t"}
	resp, body := do(t, ts, httpReq{"POST", initBody, h})
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, id, body)
	}
	h["Mcp-Session-Id"] = id
	h["MCP-Protocol-Version"] = "2025-06-18"
	if resp, _ := do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h}); resp.StatusCode != 202 {
		t.Errorf("notification: %d", resp.StatusCode)
	}
	resp, body = do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{"path":"app.omgdb","collection":"users"}}}`, h})
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(body, `"count":3`) {
		t.Errorf("tools/call: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, ts, httpReq{"DELETE", "", h}); resp.StatusCode != 204 {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if resp, _ := do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","id":4,"method":"ping"}`, h}); resp.StatusCode != 404 {
		t.Errorf("after DELETE: %d", resp.StatusCode)
	}
}

// TestHTTP_NoToken: without a token, only loopback with InsecureLoopback
// is served.
func TestHTTP_NoToken(t *testing.T) {
	_, ts := httpFixture(t, HTTPConfig{})
	if resp, _ := do(t, ts, httpReq{"POST", initBody, nil}); resp.StatusCode != 401 {
		t.Errorf("no token, no --insecure-loopback: %d", resp.StatusCode)
	}
	_, ts = httpFixture(t, HTTPConfig{InsecureLoopback: true})
	if resp, _ := do(t, ts, httpReq{"POST", initBody, nil}); resp.StatusCode != 200 {
		t.Errorf("--insecure-loopback on loopback: %d", resp.StatusCode)
	}
}

// TestHTTP_ListenRefusals: the server will not start exposed.
func TestHTTP_ListenRefusals(t *testing.T) {
	for _, tc := range []struct {
		hc  HTTPConfig
		msg string
	}{
		{HTTPConfig{Addr: "0.0.0.0:0", Token: "t"}, "not a loopback address"},
		{HTTPConfig{Addr: "127.0.0.1:0"}, "needs a bearer token"},
		{HTTPConfig{Addr: "0.0.0.0:0", InsecureLoopback: true, AllowRemote: true}, "needs a bearer token"},
		{HTTPConfig{Addr: "nonsense", Token: "t"}, "host:port"},
	} {
		f := newFixture(t, Config{HTTP: tc.hc})
		err := f.srv.ListenAndServe(context.Background())
		if err == nil || !strings.Contains(err.Error()+"\n"+errs.HintOf(err), tc.msg) {
			t.Errorf("%+v: %v", tc.hc, err)
		}
	}
}

// TestHTTP_SSE: a client whose Accept lists text/event-stream gets each
// answer as a stream of one event carrying the JSON-RPC message; one that
// accepts only JSON (or refuses SSE with q=0) gets plain JSON;
// notifications get 202 either way.
func TestHTTP_SSE(t *testing.T) {
	_, ts := httpFixture(t, HTTPConfig{Token: "t"})
	h := map[string]string{"Authorization": "Bearer t"}
	resp, body := do(t, ts, httpReq{"POST", initBody, h})
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(body, "event: message\ndata: {") || !strings.HasSuffix(body, "}\n\n") {
		t.Fatalf("initialize over SSE: %s %q", resp.Header.Get("Content-Type"), body)
	}
	if strings.Count(body, "\n") != 3 {
		t.Errorf("one event of one data line expected: %q", body)
	}
	h["Mcp-Session-Id"] = resp.Header.Get("Mcp-Session-Id")
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	for _, tc := range []struct{ accept, ctype string }{
		{"application/json, text/event-stream", "text/event-stream"},
		{"text/event-stream", "text/event-stream"},
		{"application/json;q=0.9, TEXT/EVENT-STREAM;q=0.5", "text/event-stream"},
		{"application/json", "application/json"},
		{"application/json, text/event-stream;q=0", "application/json"},
		{"", "application/json"},
	} {
		h["Accept"] = tc.accept
		resp, body := do(t, ts, httpReq{"POST", ping, h})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.ctype || !strings.Contains(body, `{"jsonrpc":"2.0","id":2,"result":{}}`) {
			t.Errorf("Accept %q: %d %s %q", tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	h["Accept"] = "application/json, text/event-stream"
	if resp, body := do(t, ts, httpReq{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h}); resp.StatusCode != 202 || body != "" {
		t.Errorf("notification: %d %q", resp.StatusCode, body)
	}
}
