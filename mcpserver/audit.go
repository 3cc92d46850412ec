package mcpserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// The audit log has one JSON line per tools/call, refused calls included:
// time, transport, client name (from initialize), tool, the HMAC-SHA-256
// of the arguments (canonical JSON with keys sorted; for a call refused
// before its arguments were read, of their text as sent) under the log's
// key (auditkey.go), outcome and error code,
// document counts and duration. It never holds document data or argument
// values. The file is opened for appending and each line is fsynced
// before the call is answered. If a line cannot be written, the call is
// answered with an error and every later call is refused: a server whose
// audit trail broke stops serving tools.

type auditLog struct {
	path string
	key  []byte     // the HMAC key of argument digests
	mu   sync.Mutex // guards f and err
	f    *os.File
	err  error // the first failure; once set, calls are refused
}

func openAudit(path, keyPath string, random io.Reader) (*auditLog, error) {
	key, err := loadAuditKey(keyPath, random)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errs.Errorf(errs.IO, "--audit %s: %v", path, unwrapPathError(err)).
			WithHint("give a file in a writable directory")
	}
	return &auditLog{path: path, key: key, f: f}, nil
}

func (a *auditLog) write(line []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return a.err
	}
	if _, err := a.f.Write(append(line, '\n')); err != nil {
		a.err = err
	} else if err := a.f.Sync(); err != nil {
		a.err = err
	}
	return a.err
}

func (a *auditLog) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *auditLog) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.f.Close()
	a.f = nil
	if a.err == nil {
		a.err = os.ErrClosed
	}
	return err
}

func (s *Server) auditFailed() error {
	if s.audit == nil {
		return nil
	}
	if err := s.audit.failed(); err != nil {
		return errorf(CodeInternal, "audit log %s failed (%v); this server refuses further tool calls", s.audit.path, err).
			withHint("the operator must fix the audit log and restart the server")
	}
	return nil
}

// record appends a call's line to the audit log. args are the parsed
// arguments; a call refused before they were read has only raw ones, and
// the digest is then of their text. A failure to write the line is
// returned as the call's error.
func (s *Server) record(ss *session, name string, args value.Value, raw []byte, out *output, te *toolError, start time.Time) *toolError {
	if s.audit == nil || s.audit.failed() != nil {
		return nil // no log, or a broken one: the call was refused already
	}
	if args.IsMissing() && raw == nil {
		args = obj()
	}
	text := raw
	if !args.IsMissing() {
		text = value.AppendJSON(nil, sortedKeys(args))
	}
	mac := hmac.New(sha256.New, s.audit.key)
	mac.Write(text)
	outcome, code := "ok", value.MissingValue
	returned, matched := value.MissingValue, value.MissingValue
	if te != nil {
		outcome, code = "error", jv(te.code)
	}
	if out != nil {
		if out.returned >= 0 {
			returned = jv(out.returned)
		}
		if out.matched.n >= 0 {
			matched = out.matched.value()
		}
	}
	now := s.cfg.Now()
	line := value.AppendJSON(nil, obj("time", now.UTC().Format(time.RFC3339Nano), "transport", ss.transport,
		"client", ss.clientName(), "tool", truncate(name, 64), "args_hmac", hex.EncodeToString(mac.Sum(nil)),
		"outcome", outcome, "code", code, "returned", returned, "matched", matched,
		"duration_ms", now.Sub(start).Milliseconds()))
	if err := s.audit.write(line); err != nil {
		return errorf(CodeInternal, "audit log %s: %v; the call's own outcome was %s", s.audit.path, unwrapPathError(err), outcome).
			withHint("the operator must fix the audit log and restart the server")
	}
	return nil
}
