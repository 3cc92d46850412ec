package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// exportDocs mix int, long and double (equal values included, so sorts
// have ties), null against missing, arrays and nested documents, dates
// and ObjectIds (null_query_semantics.js, numberlong.js, sort_array.js).
var exportDocs = []string{
	`{"_id":3,"v":{"$numberLong":"2"},"s":"c,\"q\"","a":[3,1],"o":{"p":{"$numberInt":"1"}},"n":null}`,
	`{"_id":1,"v":2.0,"s":"a","a":[],"o":{"p":"x"},"when":{"$date":"2024-05-01T00:00:00Z"}}`,
	`{"_id":{"$numberLong":"2"},"v":{"$numberInt":"2"},"a":[[1],{"b":2}],"o":{}}`,
	`{"_id":4,"v":-1.5,"s":"d","n":null,"a":["x",null]}`,
	`{"_id":{"$oid":"665f1c2e9b1d4a0c8e7f6a5b"},"v":{"$numberLong":"9007199254740993"},"o":{"p":[1,{"$numberLong":"2"}]}}`,
	`{"_id":"k","s":"é"}`,
}

// TestMongo_ExportMatchesFile exports the same collection from a store
// file and from the deployment with every format and option of export:
// the same bytes on standard output (or in --out), the same errors and
// exit codes.
func TestMongo_ExportMatchesFile(t *testing.T) {
	t.Parallel()
	srv := mongotest.Own(t)
	dir := t.TempDir()
	file, uri := filepath.Join(dir, "app.omgdb"), srv.URI+"exp"
	stdin := strings.Join(exportDocs, "\n")
	if strings.Contains(stdin, "[[1]") {
		// FerretDB refuses arrays of arrays (docs/mongodb.md): the typed
		// fixture keeps one level of array there.
		stdin = strings.Replace(stdin, `[[1],{"b":2}]`, `[1,{"b":2}]`, 1)
	}
	for _, store := range []string{file, uri} {
		if code, _, stderr := runCLI(t, stdin, "import", store, "items", "-"); code != 0 {
			t.Fatalf("import into %s: exit %d %s", store, code, stderr)
		}
	}
	fieldFile := filepath.Join(dir, "fields.txt")
	if err := os.WriteFile(fieldFile, []byte("_id\no.p\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{},
		{"--ejson", "canonical"},
		{"--jsonFormat", "canonical", "--sort", `{"v":-1}`},
		{"--sort", `{"v":1,"s":-1}`, "--skip", "1", "--limit", "3"},
		{"--query", `{"n":null}`},
		{"--query", `{"a":1}`, "--ejson", "canonical"},
		{"--query", `{"v":2}`, "--fields", "v,o.p"},
		{"--query", `{"v":{"$gt":9007199254740992}}`},
		{"--fieldFile", fieldFile, "--sort", `{"o.p":1}`},
		{"--type", "csv", "--fields", "_id,v,s,o.p,a.0,when,n"},
		{"--type", "csv", "--fields", "s,v", "--noHeaderLine", "--sort", `{"s":1}`},
		{"--jsonArray"},
		{"--jsonArray", "--pretty", "--limit", "2", "--ejson", "canonical"},
		{"--jsonArray", "--query", `{"nothing":1}`},
		{"--pretty", "--limit", "1"},
		{"--format", "table", "--fields", "v,s"},
		{"--out", "OUT", "--type", "csv", "--fields", "_id,v"},
		{"--out", "OUT", "--jsonArray", "--ejson", "canonical"},
		// Errors: the same message and exit code, nothing written.
		{"--query", `{"v":{"$gtt":1}}`},
		{"--sort", `{"v":"up"}`},
		{"--type", "xml"},
		{"--type", "csv"},
		{"--format", "table", "--jsonArray"},
		{"--out", "OUT", "--query", `{"$bad":1}`},
	}
	for _, c := range cases {
		var outs, errs [2]string
		var codes [2]int
		for i, store := range []string{file, uri} {
			out := filepath.Join(dir, "out"+string(rune('0'+i)))
			os.Remove(out)
			args := append([]string{"export", store, "items"}, c...)
			for j, a := range args {
				if a == "OUT" {
					args[j] = out
				}
			}
			var stdout, stderr string
			codes[i], stdout, stderr = runCLI(t, "", args...)
			if b, err := os.ReadFile(out); err == nil {
				stdout += "--out:\n" + string(b)
			}
			outs[i] = stdout
			errs[i] = strings.SplitN(strings.ReplaceAll(stderr, store, "STORE"), "\nhint: ", 2)[0]
		}
		if codes[0] != codes[1] || outs[0] != outs[1] || errs[0] != errs[1] {
			t.Errorf("export %s:\nfile:  exit %d %q %q\nmongo: exit %d %q %q", strings.Join(c, " "), codes[0], outs[0], errs[0], codes[1], outs[1], errs[1])
		}
		if codes[0] == 0 && strings.TrimSpace(outs[0]) == "" {
			t.Errorf("export %s printed nothing", strings.Join(c, " "))
		}
	}
	// A missing collection: did-you-mean, exit 66, no --out file left.
	out := filepath.Join(dir, "missing.json")
	code, _, stderr := runCLI(t, "", "export", uri, "itemz", "--out", out)
	if _, err := os.Stat(out); code != 66 || !strings.Contains(stderr, "did you mean `items`?") || err == nil {
		t.Errorf("export of a missing collection: exit %d %q, --out left: %v", code, stderr, err == nil)
	}
}
