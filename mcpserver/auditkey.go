package mcpserver

import (
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// The audit log's argument digests are HMAC-SHA-256 under a secret key,
// so that a low-entropy value in a filter (a postcode, a 9-digit number)
// cannot be found by hashing guesses until one matches the log. The key
// is not in the log: it is in a file of its own (Config.AuditKey, by
// default the log's path with ".key" appended), 64 hex digits, mode 0600,
// made with the log the first time and read by every later server, so
// that digests stay comparable across restarts. Whoever holds the key can
// check a digest against arguments they already suspect; whoever holds
// only the log cannot. The key never goes into a store: a read-only
// store, or a read-scope server, writes nothing to it; the key file is
// written where the audit log is, which the operator chose.

const auditKeyBytes = 32

// auditKeyPath is the key file of the audit log.
func (c *Config) auditKeyPath() string {
	if c.AuditKey != "" {
		return c.AuditKey
	}
	return c.Audit + ".key"
}

// loadAuditKey reads the key file, or makes it with a new random key
// when it does not exist.
func loadAuditKey(path string, random io.Reader) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return makeAuditKey(path, random)
	}
	if err != nil {
		return nil, errs.Errorf(errs.IO, "audit key %s: %v", path, unwrapPathError(err)).
			WithHint("the server needs to read the key of its audit log; check the file's permissions")
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != auditKeyBytes {
		return nil, errs.Errorf(errs.Invalid, "audit key %s: not %d hex digits", path, 2*auditKeyBytes).
			WithHint("restore the key file, or move it away to start a new key (digests made under the old key can then no longer be checked)")
	}
	return key, nil
}

// makeAuditKey writes a new key to a new file: a temporary file, synced,
// then linked to its name, so that a crash leaves either no key or a
// whole one, and two servers starting at once agree on one key.
func makeAuditKey(path string, random io.Reader) ([]byte, error) {
	key := make([]byte, auditKeyBytes)
	if _, err := io.ReadFull(random, key); err != nil {
		return nil, errs.Errorf(errs.IO, "audit key: random: %v", err)
	}
	fail := func(err error) ([]byte, error) {
		return nil, errs.Errorf(errs.IO, "audit key %s: %v", path, unwrapPathError(err)).
			WithHint("give --audit a file in a writable directory, or --audit-key a key file")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".audit-key-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return loadAuditKey(path, random) // another server made it first
	} else if err != nil {
		return fail(err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return key, nil
}
