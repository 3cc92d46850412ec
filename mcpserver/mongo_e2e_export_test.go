package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readExport reads every page of an export, following _meta.next, and
// returns the pages' texts.
func readExport(t *testing.T, cs *mcp.ClientSession, uri string) []string {
	t.Helper()
	var pages []string
	for uri != "" && len(pages) < 100 {
		rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if rr.Contents[0].MIMEType != "application/x-ndjson" {
			t.Errorf("%s: MIME type %q", uri, rr.Contents[0].MIMEType)
		}
		pages = append(pages, rr.Contents[0].Text)
		uri, _ = rr.Meta["next"].(string)
	}
	return pages
}

// TestMongo_MCPReadScope_Export: the export tool over MongoDB keeps a
// find's documents as NDJSON pages, redacted by the first stage (a
// filter or sort cannot probe a redacted value), in _id order or sort
// order with _id breaking ties, within limit and max_bytes; the deny
// list, a missing collection and bad arguments are refused; nothing
// redacted reaches a page.
func TestMongo_MCPReadScope_Export(t *testing.T) {
	cs, _, _ := startMongoMCP(t)
	tools := listTools(t, cs)
	export := func(args m, code string) (map[string]any, []string) {
		t.Helper()
		sc, _ := callMongo(t, cs, tools, mongoCase{tool: "export", args: args, code: code})
		if code != "" {
			return sc, nil
		}
		uri, _ := sc["uri"].(string)
		if !strings.HasPrefix(uri, "omgdb://mongodb://") || !strings.Contains(uri, "/exports/") {
			t.Fatalf("export uri %q", uri)
		}
		return sc, readExport(t, cs, uri)
	}

	sc, pages := export(m{"collection": "patients"}, "")
	all(wantField("collection", "patients"), wantField("documents", 3.0), wantField("pages", 1.0))(t, sc)
	want := `{"_id":1,"name":"ana","card":{"exp":"12/30"},"age":30}` + "\n" +
		`{"_id":2,"name":"bob","card":[{},{"exp":"01/31"}],"age":41}` + "\n" +
		`{"_id":3,"name":"cy","age":25.5}` + "\n"
	if len(pages) != 1 || pages[0] != want {
		t.Errorf("export of patients: %q, want %q", pages, want)
	}

	// Probes of redacted fields see them missing.
	for _, args := range []m{
		{"collection": "patients", "filter": m{"ssn": "111-11"}},
		{"collection": "patients", "filter": m{"card.number": m{"$regex": "^4"}}},
	} {
		if sc, pages := export(args, ""); sc["documents"] != 0.0 || strings.Join(pages, "") != "" {
			t.Errorf("export %v: %v %q, want nothing", args, sc, pages)
		}
	}
	if sc, _ := export(m{"collection": "patients", "filter": m{"ssn": nil}}, ""); sc["documents"] != 3.0 {
		t.Errorf("ssn null matches %v documents, want all 3", sc["documents"])
	}
	// Mixed numbers sort by value, ties by _id; projection; null
	// matches missing; arrays match by element.
	_, pages = export(m{"collection": "patients", "sort": m{"age": -1}, "project": m{"age": 1}}, "")
	if strings.Join(pages, "") != `{"_id":2,"age":41}`+"\n"+`{"_id":1,"age":30}`+"\n"+`{"_id":3,"age":25.5}`+"\n" {
		t.Errorf("sorted export: %q", pages)
	}
	_, pages = export(m{"collection": "visits", "filter": m{"note": nil}, "sort": m{"ward": -1}, "project": m{"_id": 1}}, "")
	if strings.Join(pages, "") != `{"_id":2}`+"\n"+`{"_id":1}`+"\n" {
		t.Errorf("null matches missing: %q", pages)
	}
	_, pages = export(m{"collection": "visits", "filter": m{"patient": 2}, "project": m{"patient": 1}}, "")
	if strings.Join(pages, "") != `{"_id":2,"patient":2}`+"\n"+`{"_id":3,"patient":[1,2]}`+"\n" {
		t.Errorf("array element match: %q", pages)
	}

	// Caps: limit says it cut, max_bytes makes pages.
	sc, pages = export(m{"collection": "visits", "limit": 2}, "")
	all(wantField("documents", 2.0), wantField("applied_limits", m{"limit": 2.0}))(t, sc)
	if len(pages) != 1 || strings.Count(pages[0], "\n") != 2 {
		t.Errorf("limited export: %q", pages)
	}
	sc, pages = export(m{"collection": "visits", "max_bytes": 120}, "")
	if sc["documents"] != 3.0 || len(pages) < 2 || sc["pages"] != float64(len(pages)) || strings.Count(strings.Join(pages, ""), "\n") != 3 {
		t.Errorf("paged export: %v %q", sc, pages)
	}

	for _, tc := range []mongoCase{
		{tool: "export", args: m{"collection": "secrets"}, code: "POLICY_DENIED"},
		{tool: "export", args: m{"collection": "visit"}, code: "NOT_FOUND", check: wantMessage("visits")},
		{tool: "export", args: m{"collection": "omgdb.changes"}, code: "NOT_FOUND"},
		{tool: "export", args: m{"collection": "visits", "filter": m{"$where": "1"}}, code: "INVALID_FILTER"},
		{tool: "export", args: m{"collection": "visits", "sort": m{"ward": "up"}}, code: "INVALID_ARGUMENT"},
		{tool: "export", args: m{"collection": "visits", "at": "1"}, code: "INVALID_ARGUMENT"},
		{tool: "export", args: m{"path": "app.omgdb", "collection": "visits"}, code: "PATH_DENIED"},
	} {
		sc, _ := callMongo(t, cs, tools, tc)
		if tc.check != nil {
			tc.check(t, sc)
		}
	}
}
