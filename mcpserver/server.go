package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Defaults of Config.
const (
	DefaultMaxDocs     = 100
	DefaultMaxBytes    = 256 << 10
	DefaultMaxString   = 4096
	DefaultTimeout     = 10 * time.Second
	DefaultLockTimeout = 2 * time.Second
	DefaultConcurrency = 4
	// MaxLimit is the largest `limit` a tool accepts.
	MaxLimit = 1000
	// maxQueued bounds the calls accepted but not yet answered; beyond it
	// a request is refused at once (retryable) instead of queued.
	maxQueued = 64
)

// Config configures a Server. The zero value is a read-scope server
// confined to the working directory with the default caps.
type Config struct {
	Scope Scope  // what the agent may do; default read
	Store string // pins one store file: `path` becomes optional and any other path is refused
	Root  string // directory that `path` arguments are confined to; default the working directory

	Collections     []string // collections (names or globs) the agent may see; empty means all
	DenyCollections []string // collections (names or globs) hidden from the agent
	Redact          []string // fields removed from every document read, as "coll.field.path" ("*" for any collection; "coll:field" for a collection name with dots)
	Tools           []string // tool names or globs to list; empty means all within scope
	DenyTools       []string // tool names or globs never listed
	ToolsFile       string   // a JSON file of canned tools
	OnlyCanned      bool     // list only the canned tools

	MaxDocs     int           // documents per result; default 100
	MaxBytes    int           // bytes of documents per result; default 256 KiB
	MaxString   int           // characters per string in results, longer ones are truncated; default 4096
	Timeout     time.Duration // per call; default 10 s
	LockTimeout time.Duration // wait for another process's lock on a store; default 2 s
	Concurrency int           // calls run at once; default 4
	IndexCheck  bool          // refuse reads whose plan scans a whole collection (--index-check)

	Audit    string       // append one JSON line per tool call to this file
	AuditKey string       // the file of the key of the audit log's argument digests; default Audit + ".key", made if missing
	Version  string       // reported in serverInfo
	Logger   *slog.Logger // diagnostics; default: discarded

	HTTP HTTPConfig // used by ListenAndServe and Handler

	// Engine, when set, is served instead of store files: a MongoDB
	// deployment (package mongoengine), with the tools engine.go lists
	// (and those of engine_write.go with Writer). Store then names it in messages (its URI
	// with the credentials redacted) and is the only path accepted.
	Engine engine.Reader
	// Writer, when set with Engine, serves the write tools of
	// engine_write.go at read-write scope. A read-scope server must not
	// be given one (New refuses it), so that its tools cannot reach a
	// write function.
	Writer EngineWriter
	// Past, when set with Engine, is the engine's journal read only
	// (engine.Past: time travel and diff, no write method): the at
	// argument of find, count and aggregate and the diff tool use it, at
	// any scope (engine_past.go).
	Past engine.Past
	// Plans, when set with Engine, serves the plans tool (at every scope:
	// it only reads).
	Plans EnginePlans
	// History, when set with Engine, serves the history tool at every
	// scope (it only reads the journal); without it, history is served
	// by the Writer's History at read-write scope and above.
	History EngineHistory

	// Rand and Now replace crypto/rand and time.Now, for tests.
	Rand io.Reader
	Now  func() time.Time
}

// Server is an MCP server over one configuration. It is safe for
// concurrent use: Serve may run over several connections at once, and
// Handler serves HTTP sessions beside them.
type Server struct {
	cfg          Config
	root         string // absolute root directory ("" when a store is pinned)
	policy       *policy
	tools        []*tool          // the listed tools, in catalog order
	known        map[string]*tool // every tool this build has, listed or not
	instructions string
	cursorKey    []byte
	audit        *auditLog        // nil without --audit
	sem          chan struct{}    // bounds calls running at once
	httpState    *httpState       // HTTP sessions
	exports      exportStore      // results of the export tool (export.go)
	reader       engine.Reader    // Config.Engine as the policy lets the agent see it; nil without one
	inspector    engine.Inspector // Config.Engine's explain and statistics, redacted; nil when it has none
}

// New checks cfg and builds a server. It opens the audit log, if any; the
// caller closes the server with Close.
func New(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if err := cfg.checkEngineConfig(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.Concurrency), httpState: &httpState{sessions: map[string]*httpSession{}}}
	if err := s.setRoot(); err != nil {
		return nil, err
	}
	pol, err := newPolicy(&cfg)
	if err != nil {
		return nil, err
	}
	s.policy = pol
	s.cursorKey = make([]byte, 32)
	if _, err := io.ReadFull(cfg.Rand, s.cursorKey); err != nil {
		return nil, fmt.Errorf("mcp: random key: %w", err)
	}
	if err := s.buildCatalog(); err != nil {
		return nil, err
	}
	s.instructions = s.makeInstructions()
	if cfg.Audit != "" {
		if s.audit, err = openAudit(cfg.Audit, cfg.auditKeyPath(), cfg.Rand); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (c *Config) setDefaults() error {
	if c.Scope < ScopeRead || c.Scope > ScopeDangerous {
		return errs.Errorf(errs.Usage, "invalid scope %d", c.Scope)
	}
	for _, lim := range []struct {
		name string
		v    *int
		def  int
	}{{"--max-docs", &c.MaxDocs, DefaultMaxDocs}, {"--max-bytes", &c.MaxBytes, DefaultMaxBytes},
		{"--max-string", &c.MaxString, DefaultMaxString}, {"--concurrency", &c.Concurrency, DefaultConcurrency}} {
		if *lim.v < 0 {
			return errs.Errorf(errs.Usage, "%s must not be negative", lim.name)
		}
		if *lim.v == 0 {
			*lim.v = lim.def
		}
	}
	if c.Timeout < 0 || c.LockTimeout < 0 {
		return errs.Errorf(errs.Usage, "--timeout and --lock-timeout must not be negative")
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.LockTimeout == 0 {
		c.LockTimeout = DefaultLockTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	return nil
}

func (s *Server) setRoot() error {
	if s.cfg.Store != "" {
		return nil
	}
	root := s.cfg.Root
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return errs.Errorf(errs.Usage, "--root %s: %v", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return errs.Errorf(errs.Usage, "--root %s is not a directory", root).
			WithHint("give the directory that holds the stores the agent may open")
	}
	s.root = abs
	return nil
}

// ListTools writes, as indented JSON, the tools/list result an agent gets
// from this server: what --list-tools prints.
func (s *Server) ListTools(w io.Writer) error {
	var b bytes.Buffer
	if err := json.Indent(&b, value.AppendJSON(nil, s.catalog()), "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// Close closes the audit log. It is idempotent.
func (s *Server) Close() error {
	if s.audit == nil {
		return nil
	}
	return s.audit.close()
}

// Serve answers newline-delimited JSON-RPC 2.0 messages read from r on w,
// one message per line, until r ends; then it waits for the calls in
// flight, and returns nil. It returns early with ctx's error when ctx is
// done (a Read blocked on r is then left behind), and with the error of a
// failed write.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	sess := s.newSession("stdio")
	out := &lineWriter{w: bufio.NewWriterSize(w, 64<<10)}
	lines := make(chan inputLine)
	done := make(chan struct{})
	defer close(done)
	go readLines(newLineReader(r, MaxLineBytes), lines, done)
	ctx = withNotifier(ctx, out.write) // log and progress notifications
	for {
		select {
		case <-ctx.Done():
			sess.cancelAll()
			sess.wait()
			return ctx.Err()
		case in, ok := <-lines:
			if !ok {
				sess.wait()
				return out.error()
			}
			if in.err != nil {
				sess.wait()
				return fmt.Errorf("mcp: read: %w", in.err)
			}
			sess.handleLine(ctx, in.line, in.tooLong, out.write, true)
			if err := out.error(); err != nil {
				sess.cancelAll()
				sess.wait()
				return fmt.Errorf("mcp: write: %w", err)
			}
		}
	}
}

type inputLine struct {
	line    []byte
	tooLong bool
	err     error
}

func readLines(lr *lineReader, lines chan<- inputLine, done <-chan struct{}) {
	defer close(lines)
	for {
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return
		}
		in := inputLine{line: append([]byte(nil), line...), tooLong: tooLong, err: err}
		select {
		case lines <- in:
		case <-done:
			return
		}
		if err != nil {
			return
		}
	}
}
