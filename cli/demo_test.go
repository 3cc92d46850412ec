package cli

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// demoReadmeEnd is the step whose heading ends the README's excerpt.
const demoReadmeEnd = "\n# Fetch one document by _id."

// demoVarying matches what changes from one run of the demo to the next:
// ids, times, the temporary directory.
var demoVarying = regexp.MustCompile(`[0-9a-f]{24}|\d{4}-\d\d-\d\dT[0-9:.]+Z|"\$date":\d+|/\S*omgdb-demo-\d+`)

// TestDemo_README: the transcript in README.md is the beginning of what
// omgdb demo prints, ids, times and the directory aside; and the demo
// ends by saying how to keep its store.
func TestDemo_README(t *testing.T) {
	t.Setenv("COLUMNS", "") // tables into a pipe are 120 wide
	var out, errb bytes.Buffer
	if code := Main([]string{"demo"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errb.String())
	}
	demo := out.String()
	if !strings.HasSuffix(demo, "run omgdb demo --keep (or --dir DIR) to keep it and try the commands yourself.\n") {
		t.Errorf("the demo does not end by saying how to keep its store:\n%s", demo[max(0, len(demo)-300):])
	}
	end := strings.Index(demo, demoReadmeEnd)
	if end < 0 {
		t.Fatalf("the demo has no step %q", demoReadmeEnd)
	}
	excerpt := demo[:end] + "\n…\n"
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)(<!-- demo transcript[^\n]*\n```text\n)(.*?)(```\n)")
	m := block.FindSubmatchIndex(readme)
	if m == nil {
		t.Fatal("README.md has no demo transcript block")
	}
	if *update {
		readme = append(readme[:m[4]:m[4]], append([]byte(excerpt), readme[m[5]:]...)...)
		if err := os.WriteFile("../README.md", readme, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have := demoVarying.ReplaceAllString(string(readme[m[4]:m[5]]), "<varies>")
	want := demoVarying.ReplaceAllString(excerpt, "<varies>")
	if have != want {
		t.Errorf("README.md's demo transcript differs from what the demo prints; regenerate it with go test ./cli -run TestDemo_README -update\nREADME:\n%s\ndemo:\n%s", have, want)
	}
}
