package mcpserver

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTranscripts replays the JSON-RPC transcripts in testdata/transcripts:
// each "> " line is sent to a fresh server (configured by the "# config:"
// line) and must be answered by exactly the "< " lines that follow it.
// Regenerate with -update and review the diff.
func TestTranscripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/transcripts/*.txt")
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

var oidPattern = regexp.MustCompile(`\b[0-9a-f]{24}\b`)

func runTranscript(t *testing.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	var requests []string
	cfg := Config{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "> "):
			requests = append(requests, strings.TrimPrefix(line, "> "))
		case strings.HasPrefix(line, "< "):
		case len(requests) == 0:
			header = append(header, line)
			if c, ok := strings.CutPrefix(line, "# config:"); ok {
				cfg = parseConfig(t, c)
			}
		default:
			t.Fatalf("%s: stray line %q", file, line)
		}
	}
	f := newFixture(t, cfg)
	if f.srv.cfg.Store == "" {
		f.standardStore()
	}
	var got strings.Builder
	for _, h := range header {
		got.WriteString(h + "\n")
	}
	for _, req := range requests {
		got.WriteString("> " + req + "\n")
		for _, ans := range f.send(req) {
			got.WriteString("< " + oidPattern.ReplaceAllString(ans, "<oid>") + "\n")
		}
	}
	if *update {
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got.String() != string(b) {
		t.Errorf("%s differs; run go test ./mcpserver -run TestTranscripts -update and review the diff.\ngot:\n%s", file, got.String())
	}
}

// parseConfig reads "key=value" pairs (lists comma-separated).
func parseConfig(t *testing.T, s string) Config {
	var cfg Config
	for _, kv := range strings.Fields(s) {
		k, v, _ := strings.Cut(kv, "=")
		list := strings.Split(v, ",")
		n, _ := strconv.Atoi(v)
		switch k {
		case "scope":
			sc, err := ParseScope(v)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Scope = sc
		case "redact":
			cfg.Redact = list
		case "collections":
			cfg.Collections = list
		case "deny-collections":
			cfg.DenyCollections = list
		case "tools":
			cfg.Tools = list
		case "deny-tools":
			cfg.DenyTools = list
		case "max-docs":
			cfg.MaxDocs = n
		case "max-string":
			cfg.MaxString = n
		case "max-bytes":
			cfg.MaxBytes = n
		default:
			t.Fatalf("unknown config key %q", k)
		}
	}
	return cfg
}
