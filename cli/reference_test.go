package cli

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite generated files and golden files")

// TestCLIReference fails when docs/cli.md differs from what the command
// tree generates. Regenerate with: go test ./cli -run TestCLIReference -update
func TestCLIReference(t *testing.T) {
	var buf bytes.Buffer
	writeReference(&buf)
	const path = "../docs/cli.md"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, buf.Bytes()) {
		t.Fatalf("%s is stale; regenerate it with: go test ./cli -run TestCLIReference -update", path)
	}
}
