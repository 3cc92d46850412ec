package cli

import (
	"bytes"
	"testing"
)

// TestImportInterrupted_File: an import of a file stopped by Ctrl-C says
// how far it committed and the command that imports the rest; exit 130.
func TestImportInterrupted_File(t *testing.T) {
	var b bytes.Buffer
	code := printError(&b, runError{importInterrupted("app.omgdb", "events", "big.ndjson", 20000, 20000)})
	want := "error: interrupted: 20000 document(s) committed, through line 20000 of big.ndjson\n" +
		"hint: import the rest with: tail -n +20001 big.ndjson | omgdb import app.omgdb events\n"
	if code != ExitInterrupted || b.String() != want {
		t.Errorf("exit %d, stderr\n%s\nwant 130 and\n%s", code, b.String(), want)
	}
}
