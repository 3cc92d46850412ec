package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cannedFile = `{"tools":[
 {"name":"users_in_city","description":"Users of one city.","collection":"users",
  "parameters":{"city":{"type":"string","description":"City name","maxLength":20,"pattern":"[A-Z][a-z]+"}},
  "filter":{"city":{"$param":"city"}},"reject":{"name":"bob"},"limit":5},
 {"name":"user_by_age","description":"Users of an age.","path":"app.omgdb","collection":"users",
  "parameters":{"age":{"type":"integer","description":"Age","minimum":0,"maximum":150,"default":36}},
  "filter":{"age":{"$param":"age"}}}
]}`

func cannedFixture(t *testing.T, cfg Config) *fixture {
	dir := t.TempDir()
	cfg.ToolsFile = filepath.Join(dir, "tools.json")
	os.WriteFile(cfg.ToolsFile, []byte(cannedFile), 0o644)
	f := newFixture(t, cfg)
	f.standardStore()
	return f
}

// TestCanned: parameters are checked and substituted as values; the
// reject filter refuses calls that reach excluded documents.
func TestCanned(t *testing.T) {
	f := cannedFixture(t, Config{})
	if got := join(f.srv.listedNames()); got != "describe,find,count,distinct,aggregate,export,explain,diagnose,vsearch,search,context_pack,stats,list_indexes,suggest_indexes,history,diff,plans,users_in_city,user_by_age" {
		t.Errorf("listed %s", got)
	}
	sc := structured(t, f.callTool("users_in_city", `{"path":"app.omgdb","city":"Paris"}`))
	if join(docIDs(t, sc)) != "1,3" {
		t.Errorf("users_in_city Paris: %v", sc)
	}
	sc = structured(t, f.callTool("user_by_age", `{}`))
	if join(docIDs(t, sc)) != "1" {
		t.Errorf("user_by_age default: %v", sc)
	}
	for _, tc := range []struct{ tool, args, code, msg string }{
		{"users_in_city", `{"path":"app.omgdb","city":"Lyon"}`, CodePolicyDenied, "reject filter"},
		{"users_in_city", `{"path":"app.omgdb","city":"paris"}`, CodeInvalidArgument, "does not match the pattern"},
		{"users_in_city", `{"path":"app.omgdb","city":{"$ne":null}}`, CodeInvalidArgument, "must be a string"},
		{"users_in_city", `{"path":"app.omgdb"}`, CodeInvalidArgument, "missing required argument `city`"},
		{"users_in_city", `{"path":"app.omgdb","city":"Paris","limit":6}`, CodeInvalidArgument, "over the maximum 5"},
		{"users_in_city", `{"path":"app.omgdb","city":"Paris","filter":{}}`, CodeInvalidArgument, "unknown argument `filter`"},
		{"user_by_age", `{"age":-1}`, CodeInvalidArgument, "under the minimum 0"},
		{"user_by_age", `{"path":"other.omgdb"}`, CodeInvalidArgument, "unknown argument `path`"},
	} {
		res := f.callTool(tc.tool, tc.args)
		if errorCode(res) != tc.code || !strings.Contains(resultText(res), tc.msg) {
			t.Errorf("%s %s: %s (%s), want %s containing %q", tc.tool, tc.args, errorCode(res), resultText(res), tc.code, tc.msg)
		}
	}
	g := cannedFixture(t, Config{OnlyCanned: true})
	if got := join(g.srv.listedNames()); got != "users_in_city,user_by_age" {
		t.Errorf("--only-canned lists %s", got)
	}
	if res := g.callTool("find", `{"path":"app.omgdb","collection":"users"}`); errorCode(res) != CodePolicyDenied {
		t.Errorf("--only-canned let find run: %v", res)
	}
}

// TestCanned_BadFiles: mistakes in a tools file stop the server at start.
func TestCanned_BadFiles(t *testing.T) {
	for _, tc := range []struct{ file, msg string }{
		{`{"tools":[{"name":"find","description":"d","collection":"c","filter":{}}]}`, "already a built-in tool"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","filter":{"a":{"$param":"b"}}}]}`, `unknown parameter "b"`},
		{`{"tools":[{"name":"x","description":"d","collection":"c","filter":{},"parameters":{"p":{"type":"string","description":"p"}}}]}`, "not used"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","filter":{},"parameters":{"p":{"type":"date","description":"p"}}}]}`, "type must be"},
		{`{"tools":[{"name":"x","collection":"c","filter":{}}]}`, "needs a description"},
		{`{"tools":[{"name":"x y","description":"d","collection":"c","filter":{}}]}`, "must be 1 to 64"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","filter":{},"scop":"read"}]}`, "did you mean `scope`"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","filter":{},"scope":"root"}]}`, "invalid --scope"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","pipeline":[{"$grop":{}}]}]}`, "did you mean `$group`"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","pipeline":[],"filter":{}}]}`, "a filter or a pipeline"},
		{`{"tools":[{"name":"x","description":"d","collection":"c"}]}`, "a filter or a pipeline"},
		{`{"tools":[{"name":"x","description":"d","collection":"c","filter":{"a":{"$param":"p"}},"parameters":{"p":{"type":"string","description":"p","pattern":"("}}}]}`, "pattern"},
		{`{"tool":[]}`, `"tools" array`},
	} {
		path := filepath.Join(t.TempDir(), "tools.json")
		os.WriteFile(path, []byte(tc.file), 0o644)
		_, err := New(Config{Root: t.TempDir(), ToolsFile: path})
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.msg)
		}
	}
}

// TestCanned_Scope: a canned tool's scope gates it like a built-in one.
func TestCanned_Scope(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(path, []byte(`{"tools":[{"name":"x","description":"d","scope":"read-write","collection":"users","filter":{}}]}`), 0o644)
	f := newFixture(t, Config{ToolsFile: path})
	if f.srv.listed("x") {
		t.Error("a read-write canned tool is listed at read scope")
	}
	if res := f.callTool("x", `{"path":"app.omgdb"}`); errorCode(res) != CodeScopeDenied {
		t.Errorf("%v", res)
	}
}
