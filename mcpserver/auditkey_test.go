package mcpserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// auditHMAC is the digest a record of the log at path has for the given
// argument text, under the log's key file.
func auditHMAC(t testing.TB, path, text string) string {
	t.Helper()
	b, err := os.ReadFile(path + ".key")
	if err != nil {
		t.Fatal(err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(text))
	return hex.EncodeToString(mac.Sum(nil))
}

func auditRecords(t testing.TB, path string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(path)
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		recs = append(recs, m)
	}
	return recs
}

// TestAudit_KeyedDigest: a low-entropy value in a filter cannot be found
// by hashing guesses: the digest is an HMAC under a key kept beside the
// log, not in it, the same across restarts.
func TestAudit_KeyedDigest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	f := newFixture(t, Config{Audit: path, Root: dir})
	f.standardStore()
	f.callTool("count", `{"path":"app.omgdb","collection":"users","filter":{"zip":"75042"}}`)
	f.srv.Close()
	again := newFixture(t, Config{Audit: path, Root: dir}) // a restart
	again.callTool("count", `{"collection":"users","filter":{"zip":"75042"},"path":"app.omgdb"}`)
	again.srv.Close()

	recs := auditRecords(t, path)
	if len(recs) != 2 || recs[0]["args_hmac"] == nil || recs[0]["args_hmac"] != recs[1]["args_hmac"] || recs[0]["args_sha256"] != nil {
		t.Fatalf("records: %v", recs)
	}
	// An attacker with the log alone hashes every 5-digit zip: no match.
	// With the key, exactly the true one matches.
	var plain, keyed []string
	for zip := 75000; zip < 75100; zip++ {
		text := `{"collection":"users","filter":{"zip":"` + itoa(zip) + `"},"path":"app.omgdb"}`
		if sum := sha256.Sum256([]byte(text)); hex.EncodeToString(sum[:]) == recs[0]["args_hmac"] {
			plain = append(plain, itoa(zip))
		}
		if auditHMAC(t, path, text) == recs[0]["args_hmac"] {
			keyed = append(keyed, itoa(zip))
		}
	}
	if len(plain) != 0 || join(keyed) != "75042" {
		t.Errorf("unkeyed guesses matched %v; keyed %v", plain, keyed)
	}
	key, _ := os.ReadFile(path + ".key")
	log, _ := os.ReadFile(path)
	if st, err := os.Stat(path + ".key"); err != nil || st.Mode().Perm() != 0o600 || len(strings.TrimSpace(string(key))) != 64 {
		t.Errorf("key file: %v %v %q", st, err, key)
	}
	if strings.Contains(string(log), strings.TrimSpace(string(key))) {
		t.Errorf("the log holds the key")
	}
	// A key file elsewhere (--audit-key), and one that is not a key.
	other := filepath.Join(t.TempDir(), "k")
	newFixture(t, Config{Audit: path, AuditKey: other, Root: dir})
	if b, _ := os.ReadFile(other); len(strings.TrimSpace(string(b))) != 64 {
		t.Errorf("--audit-key file: %q", b)
	}
	writeFile(t, other, "not hex\n")
	if _, err := New(Config{Audit: path, AuditKey: other, Root: dir}); err == nil || !strings.Contains(err.Error(), "not 64 hex digits") {
		t.Errorf("a bad key file: %v", err)
	}
	if _, err := New(Config{Audit: path, AuditKey: filepath.Join(dir, "no", "such", "k"), Root: dir}); err == nil {
		t.Errorf("a key file in a missing directory was accepted")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
