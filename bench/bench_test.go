package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_Smoke runs the benchmark program on 1,000 documents through the
// library only, and checks that the report has a figure for each workload
// the library runs and says why the others have none.
func TestRun_Smoke(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "bench.md")
	if err := run([]string{"-n", "1000", "-runs", "1", "-systems", "omgdb-lib", "-work", dir, "-out", out}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	report := string(md)
	for _, want := range []string{
		"Dataset: 1000 documents", "| import: bulk NDJSON import", "| scan: unindexed two-predicate count",
		"| group: group by city", "| update: update 8.3% of documents", "scan, omgdb library: ",
		"update, omgdb library: plan + apply, ", "vector, omgdb library: 1000 documents",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "failed") {
		t.Errorf("a workload failed:\n%s", report)
	}
}

// TestDataset_Seeded: the same seed gives the same bytes, and documents
// are about 300 bytes.
func TestDataset_Seeded(t *testing.T) {
	a, err := dataset(t.TempDir(), 500)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dataset(t.TempDir(), 500)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if string(da) != string(db) {
		t.Error("two datasets of the same size differ")
	}
	if per := len(da) / 500; per < 250 || per > 400 {
		t.Errorf("documents are %d bytes on average, want about 300", per)
	}
}
