package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// readURI reads a resource and returns its text and _meta, or the error.
func (f *fixture) readURI(uri string) (string, map[string]any, string) {
	out := f.send(`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
	var msg struct {
		Result struct {
			Contents []struct{ Text, MimeType string }
			Meta     map[string]any `json:"_meta"`
		}
		Error *struct{ Code int }
	}
	json.Unmarshal([]byte(out[0]), &msg)
	if msg.Error != nil {
		return "", nil, fmt.Sprint(msg.Error.Code)
	}
	return msg.Result.Contents[0].Text, msg.Result.Meta, ""
}

// TestExport_Pages: an export is read in pages of at most --max-bytes,
// split between documents, each page naming the next; redacted fields
// and denied collections stay out; only its session reads it, until it
// expires.
func TestExport_Pages(t *testing.T) {
	now := testNow
	f := newFixture(t, Config{MaxBytes: 100, Redact: []string{"users.ssn"}, DenyCollections: []string{"orders"},
		Now: func() time.Time { return now }})
	f.standardStore()
	sc := structured(t, f.callTool("export", `{"path":"app.omgdb","collection":"users"}`))
	if sc["documents"] != 3.0 || sc["pages"].(float64) < 2 {
		t.Fatalf("export: %v", sc)
	}
	var all strings.Builder
	uri, pages := sc["uri"].(string), 0
	for uri != "" {
		text, meta, code := f.readURI(uri)
		if code != "" {
			t.Fatalf("read %s: error %s", uri, code)
		}
		if len(text) > 100 || !strings.HasSuffix(text, "\n") {
			t.Errorf("page %s is %d bytes or cut inside a document: %q", uri, len(text), text)
		}
		all.WriteString(text)
		pages++
		uri, _ = meta["next"].(string)
	}
	got := all.String()
	if pages != int(sc["pages"].(float64)) || strings.Count(got, "\n") != 3 || strings.Contains(got, "ssn") || strings.Contains(got, "111-11") {
		t.Errorf("%d pages of the export: %q", pages, got)
	}
	if res := f.callTool("export", `{"path":"app.omgdb","collection":"orders"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("export of a denied collection: %v", structured(t, res))
	}
	// another session cannot read it, nor a wrong store or page
	first := sc["uri"].(string)
	other := &fixture{t: t, srv: f.srv, sess: f.srv.newSession("stdio"), root: f.root}
	for _, c := range []struct {
		f   *fixture
		uri string
	}{{other, first}, {f, strings.Replace(first, "app.omgdb", "b.omgdb", 1)}, {f, first + "/99"}, {f, first + "/0"}, {f, first + "/01"}} {
		if _, _, code := c.f.readURI(c.uri); code != "-32002" {
			t.Errorf("read %s: code %q, want -32002", c.uri, code)
		}
	}
	now = now.Add(exportLifetime + time.Second)
	if _, _, code := f.readURI(first); code != "-32002" {
		t.Errorf("read an expired export: code %q", code)
	}
}

// TestExport_Bounds: at most maxExports are kept (the oldest goes), and
// limit cuts an export and says so.
func TestExport_Bounds(t *testing.T) {
	f := newFixture(t, Config{})
	f.standardStore()
	var uris []string
	for range maxExports + 1 {
		uris = append(uris, structured(t, f.callTool("export", `{"path":"app.omgdb","collection":"users"}`))["uri"].(string))
	}
	if _, _, code := f.readURI(uris[0]); code != "-32002" {
		t.Errorf("the oldest of %d exports is still there", maxExports+1)
	}
	if _, _, code := f.readURI(uris[maxExports]); code != "" {
		t.Errorf("the newest export: error %s", code)
	}
	sc := structured(t, f.callTool("export", `{"path":"app.omgdb","collection":"users","limit":2}`))
	if lim, _ := sc["applied_limits"].(map[string]any); sc["documents"] != 2.0 || lim["limit"] != 2.0 {
		t.Errorf("export with limit 2: %v", sc)
	}
}
