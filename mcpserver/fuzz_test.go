package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzHandleLine feeds arbitrary lines to a read-scope server and checks
// the protocol's invariants: at most one answer per line; every answer is
// a well-formed JSON-RPC 2.0 response (or a batch of them); a request
// with a valid id and method is always answered, under its own id; no
// panic escapes. Seeds: testdata/fuzz/FuzzHandleLine.
func FuzzHandleLine(f *testing.F) {
	fx := newFixture(f, Config{Timeout: time.Second, LockTimeout: 10 * time.Millisecond, MaxDocs: 5})
	fx.standardStore()
	f.Fuzz(func(t *testing.T, line []byte) {
		var answers [][]byte
		fx.sess.handleLine(context.Background(), line, false, func(b []byte) { answers = append(answers, b) }, false)
		if len(answers) > 1 {
			t.Fatalf("%d answers to one line", len(answers))
		}
		id, isRequest := requestID(line)
		if isRequest && len(answers) == 0 {
			t.Fatalf("request %s was not answered", line)
		}
		if len(answers) == 0 {
			return
		}
		a := answers[0]
		if bytes.HasPrefix(a, []byte("[")) {
			var batch []json.RawMessage
			if err := json.Unmarshal(a, &batch); err != nil || len(batch) == 0 {
				t.Fatalf("bad batch answer %s", a)
			}
			for _, m := range batch {
				checkResponse(t, m)
			}
			return
		}
		got := checkResponse(t, a)
		if isRequest && string(got) != string(id) {
			t.Fatalf("answered id %s, request id %s", got, id)
		}
	})
}

// requestID reports whether line is a request that must be answered
// under its own id: an object with jsonrpc "2.0", a string method, a
// string or number id, object params if any, and no duplicate keys.
func requestID(line []byte) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if !utf8.Valid(line) || json.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return nil, false // a parse error: answered with id null
	}
	if _, dup := duplicateKey(bytes.TrimSpace(line)); dup || string(m["jsonrpc"]) != `"2.0"` {
		return nil, false
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil {
		return nil, false
	}
	id, err := checkID(m["id"])
	if err != nil || id == nil {
		return nil, false
	}
	return id, true
}

func checkResponse(t *testing.T, msg []byte) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("answer is not a JSON object: %s", msg)
	}
	if string(m["jsonrpc"]) != `"2.0"` || m["id"] == nil || (m["result"] == nil) == (m["error"] == nil) {
		t.Fatalf("malformed response %s", msg)
	}
	if e := m["error"]; e != nil {
		var obj struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(e, &obj) != nil || obj.Code == nil || obj.Message == nil {
			t.Fatalf("malformed error %s", e)
		}
	}
	return m["id"]
}

// duplicateKey reports the first key that appears twice at the top level
// of a JSON object: the fuzz oracle's own reading, independent of the
// server's.
func duplicateKey(raw []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		k, _ := t.(string)
		if seen[k] {
			return k, true
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", false
		}
	}
	return "", false
}
