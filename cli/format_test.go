package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// formatStore imports testdata/format/people.ndjson (dates, ObjectIds,
// longs, nested documents and arrays, missing fields, null, wide
// characters) into a new store and returns its path.
func formatStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.omgdb")
	var out, errb bytes.Buffer
	if code := Main([]string{"import", path, "people", "testdata/format/people.ndjson"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errb.String())
	}
	return path
}

// TestFormat_Golden: each --format of find, on a pipe, against its golden
// file in testdata/format (regenerate with -update).
func TestFormat_Golden(t *testing.T) {
	path := formatStore(t)
	for _, tc := range []struct {
		golden  string
		columns string
		args    []string
	}{
		{"find.ndjson", "", []string{"find", path, "people"}},
		{"find.json", "", []string{"find", path, "people", "--format", "json"}},
		{"find-empty.json", "", []string{"find", path, "people", `{"nobody":1}`, "--format", "json"}},
		{"find.table", "", []string{"find", path, "people", "--format", "table"}},
		{"find-60.table", "60", []string{"find", path, "people", "--format", "table"}},
		{"find-projected.table", "", []string{"find", path, "people", "--format", "table", "--project", `{"name":1,"age":1}`, "--sort", `{"age":1}`}},
		{"find.csv", "", []string{"find", path, "people", "--format", "csv"}},
		{"find.shell", "", []string{"find", path, "people", "--format", "shell"}},
		{"find-40.shell", "40", []string{"find", path, "people", "--format", "shell"}},
		{"get.table", "", []string{"get", path, "people", "7", "--format", "table"}},
		{"aggregate.csv", "", []string{"aggregate", path, "people", `[{"$unwind":"$tags"},{"$project":{"tags":1}}]`, "--format", "csv"}},
		{"export.shell", "", []string{"export", path, "people", "--format", "shell"}},
	} {
		t.Setenv("COLUMNS", tc.columns)
		t.Setenv("NO_COLOR", "")
		var out, errb bytes.Buffer
		if code := Main(tc.args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Errorf("%s: exit %d: %s", tc.golden, code, errb.String())
			continue
		}
		golden := filepath.Join("testdata/format", tc.golden)
		if *update {
			if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.golden, out.String(), want)
		}
	}
}

// TestFormat_PipeIsStoredNDJSON: into a pipe, find prints each document
// exactly as export (the stored canonical JSON) does, whatever COLUMNS or
// NO_COLOR say.
func TestFormat_PipeIsStoredNDJSON(t *testing.T) {
	path := formatStore(t)
	t.Setenv("COLUMNS", "20")
	var find, export, errb bytes.Buffer
	Main([]string{"find", path, "people", "--sort", `{"_id":1}`}, strings.NewReader(""), &find, &errb)
	Main([]string{"export", path, "people"}, strings.NewReader(""), &export, &errb)
	if find.Len() == 0 || !bytes.Equal(find.Bytes(), export.Bytes()) {
		t.Errorf("find into a pipe:\n%s\nexport:\n%s\n%s", find.String(), export.String(), errb.String())
	}
}

// TestFormat_Unknown: an unknown format is a usage error naming the
// choices, and prints no documents.
func TestFormat_Unknown(t *testing.T) {
	path := formatStore(t)
	var out, errb bytes.Buffer
	code := Main([]string{"find", path, "people", "--format", "xml"}, strings.NewReader(""), &out, &errb)
	if code != ExitUsage || out.Len() != 0 || !strings.Contains(errb.String(), `unknown --format "xml"`) || !strings.Contains(errb.String(), "json, ndjson, table, csv or shell") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestFormat_Completion: the shell completion of --format offers the
// formats.
func TestFormat_Completion(t *testing.T) {
	var out, errb bytes.Buffer
	Main([]string{"__complete", "find", "s.omgdb", "c", "--format", ""}, strings.NewReader(""), &out, &errb)
	if got, want := out.String(), "json\nndjson\ntable\ncsv\nshell\n:4\n"; got != want {
		t.Errorf("completion of --format: %q, want %q", got, want)
	}
}

// TestFormat_LateFieldsWarned: a field that only documents after the
// sampled ones have gets no column in a table or CSV, and a warning on
// standard error says so (after the data).
func TestFormat_LateFieldsWarned(t *testing.T) {
	var in strings.Builder
	for i := range sampleDocs + 1 {
		if i == sampleDocs {
			in.WriteString(`{"_id":1000,"a":1,"late":true,"later":2}` + "\n")
			continue
		}
		fmt.Fprintf(&in, "{\"_id\":%d,\"a\":%d}\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "s.omgdb")
	Main([]string{"import", path, "c", "-"}, strings.NewReader(in.String()), &bytes.Buffer{}, &bytes.Buffer{})
	for _, format := range []string{"table", "csv"} {
		var out, errb bytes.Buffer
		if code := Main([]string{"find", path, "c", "--format", format}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errb.String())
		}
		want := fmt.Sprintf("warning: fields that only documents after the first %d have are not shown: late, later\n", sampleDocs)
		if !strings.HasPrefix(errb.String(), want) || strings.Contains(out.String(), "late") {
			t.Errorf("%s: stderr %q, want %q, and no column for them", format, errb.String(), want)
		}
	}
	var errb bytes.Buffer
	Main([]string{"find", path, "c", "--format", "table", "--limit", "100"}, strings.NewReader(""), &bytes.Buffer{}, &errb)
	if errb.Len() != 0 {
		t.Errorf("table of the sampled documents only: stderr %q, want nothing", errb.String())
	}
}
