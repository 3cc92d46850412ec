package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// TestContextPack_KeepsBudget: the pack's omitted list counts against
// its budget: with many chunks left out, the result stays about budget
// tokens (4 characters each), and a last {"more": N} counts the rest.
func TestContextPack_KeepsBudget(t *testing.T) {
	f := newFixture(t, Config{})
	var docs []string
	for i := range 60 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"body":"Backup runbook %d. Take a backup of the store every night and keep the backup for a week.\n\nRestore a backup by copying it over the store file, then verify the backup with omgdb verify."}`, i, i))
	}
	makeStore(t, filepath.Join(f.root, "kb.omgdb"), map[string][]string{"notes": docs})
	for _, budget := range []int{150, 300} {
		sc := f.ok("context_pack", fmt.Sprintf(`{"path":"kb.omgdb","collection":"notes","field":"body","query":"backup restore","budget":%d}`, budget))
		b, _ := json.Marshal(sc)
		omitted, _ := sc["omitted"].([]any)
		last, _ := omitted[len(omitted)-1].(map[string]any)
		// The pack, plus the tool's "collection" and "note".
		if len(b) > 4*budget+200 || len(sc["chunks"].([]any)) == 0 || last["more"] == nil {
			t.Errorf("budget %d: %d bytes, %d omitted listed, last %v", budget, len(b), len(omitted), last)
		}
	}
}
