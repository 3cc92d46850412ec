package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// readResource reads a resource and returns its text, or the JSON-RPC
// error.
func (f *fixture) readResource(uri string) (text string, rpcErr map[string]any) {
	f.t.Helper()
	out := f.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
	var msg struct {
		Result struct {
			Contents []struct{ Text string } `json:"contents"`
		} `json:"result"`
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(out[0]), &msg); err != nil {
		f.t.Fatal(err)
	}
	if msg.Error != nil {
		return "", msg.Error
	}
	return msg.Result.Contents[0].Text, nil
}

// TestResources_MaxBytes: resources/read holds every resource to
// --max-bytes: JSON loses entries from the end of its longest list and
// says so; a manual page is cut at a line with a marker; what cannot be
// cut is LIMIT_EXCEEDED.
func TestResources_MaxBytes(t *testing.T) {
	const maxBytes = 1000
	f := newFixture(t, Config{MaxBytes: maxBytes, Scope: ScopeReadWrite})
	colls := map[string][]string{}
	for i := range 60 {
		colls[fmt.Sprintf("collection_number_%02d", i)] = []string{`{"_id":1}`}
	}
	var long []string
	for i := range 40 {
		long = append(long, fmt.Sprintf(`{"_id":%d,"field_with_a_rather_long_name_%02d":1}`, i, i))
	}
	colls["wide"] = long
	makeStore(t, filepath.Join(f.root, "app.omgdb"), colls)

	text, e := f.readResource("omgdb://app.omgdb/collections")
	if e != nil {
		t.Fatalf("collections: %v", e)
	}
	var got struct {
		Collections   []map[string]any
		AppliedLimits map[string]any `json:"applied_limits"`
		Truncated     map[string]any
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil || len(text) > maxBytes {
		t.Fatalf("collections: %d bytes, %v: %s", len(text), err, text)
	}
	if n := len(got.Collections); n == 0 || n == 61 || got.AppliedLimits["max_bytes"] != float64(maxBytes) || got.Truncated["collections"] != float64(61-n) {
		t.Errorf("collections: %d kept, applied_limits %v, truncated %v", n, got.AppliedLimits, got.Truncated)
	}

	text, e = f.readResource("omgdb://app.omgdb/wide/schema")
	if e != nil || len(text) > maxBytes || !strings.Contains(text, `"truncated":{"collection.fields":`) {
		t.Errorf("schema: %d bytes, %v: %s", len(text), e, text)
	}
	if text, e := f.readResource("omgdb://app.omgdb/collection_number_01/schema"); e != nil || strings.Contains(text, "truncated") {
		t.Errorf("a schema within the limit: %v %s", e, text)
	}

	text, e = f.readResource("omgdb://docs/mcp")
	if e != nil || len(text) > maxBytes || !strings.HasSuffix(text, "`omgdb docs mcp` prints it whole]\n") || !strings.HasPrefix(text, "# The MCP server") {
		t.Errorf("docs/mcp: %d bytes, %v: ...%s", len(text), e, text[max(0, len(text)-200):])
	}

	tiny := newFixture(t, Config{MaxBytes: 60, Root: f.root})
	for _, uri := range []string{"omgdb://docs/mcp", "omgdb://app.omgdb/collection_number_01/schema"} {
		_, e := tiny.readResource(uri)
		data, _ := e["data"].(map[string]any)
		if e == nil || data["code"] != CodeLimitExceeded || !strings.Contains(e["message"].(string), "over the 60-byte result limit (--max-bytes)") {
			t.Errorf("%s at 60 bytes: %v", uri, e)
		}
	}
}
