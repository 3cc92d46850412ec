package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/query/errs"
)

func init() { commands = append(commands, command{"mcp", newMCPCmd}) }

type mcpOptions struct {
	scope, store, root, toolsFile, audit      string
	auditKey                                  string
	collections, denyCollections, redact      []string
	tools, denyTools, allowOrigins            []string
	onlyCanned, listTools, indexCheck         bool
	maxDocs, maxBytes, maxString, concurrency int
	maxSessions                               int
	timeout, lockTimeout, idleTimeout         time.Duration
	httpAddr, token                           string
	insecureLoopback, allowRemote             bool
}

func newMCPCmd(e *env) *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve stores to AI agents over MCP (stdio, or HTTP with --http)",
		Long: `Run an MCP server for coding agents: newline-delimited JSON-RPC on standard
input and output, or Streamable HTTP with --http. The scope decides what an
agent can do: read (the default), read-write or dangerous. Paths are confined
to --root (default: the working directory), or pinned to one store with
--store. See omgdb docs mcp for client configurations, every tool, and the
result and error shapes.`,
		Example: `  omgdb mcp --root ./data
  omgdb mcp --store app.omgdb --scope read-write --audit mcp-audit.jsonl
  omgdb mcp --store app.omgdb --redact users.ssn,users.email --deny-collections secrets
  OMGDB_MCP_TOKEN=s3cret omgdb mcp --http 127.0.0.1:8765 --store app.omgdb
  omgdb mcp --scope read-write --list-tools
  OMGDB_MONGODB_URI=mongodb://reader:pw@db1/app omgdb mcp --store mongodb: --redact users.ssn`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return e.runMCP(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.scope, "scope", "read", "what the agent may do: read (ro), read-write (rw, write) or dangerous (all)")
	f.StringVar(&opts.store, "store", "", "serve only this store file, or a MongoDB database (mongodb://…/DB, read or read-write scope); the path arguments of tools become optional")
	f.StringVar(&opts.root, "root", ".", "directory that store paths are confined to")
	f.StringSliceVar(&opts.collections, "collections", nil, "collections (names or globs) the agent may see; default all")
	f.StringSliceVar(&opts.denyCollections, "deny-collections", nil, "collections (names or globs) hidden from the agent")
	f.StringSliceVar(&opts.redact, "redact", nil, "fields removed from every document read, as coll.field[.sub] (* for any collection)")
	f.StringSliceVar(&opts.tools, "tools", nil, "tools (names or globs) to offer; default all within the scope")
	f.StringSliceVar(&opts.denyTools, "deny-tools", nil, "tools (names or globs) never offered")
	f.StringVar(&opts.toolsFile, "tools-file", "", "JSON file of canned, parameterised tools")
	f.BoolVar(&opts.onlyCanned, "only-canned", false, "offer only the canned tools of --tools-file")
	f.IntVar(&opts.maxDocs, "max-docs", mcpserver.DefaultMaxDocs, "most documents in one result")
	f.IntVar(&opts.maxBytes, "max-bytes", mcpserver.DefaultMaxBytes, "most bytes of documents in one result")
	f.IntVar(&opts.maxString, "max-string", mcpserver.DefaultMaxString, "longest string in a result, in characters; longer ones are cut")
	f.DurationVar(&opts.timeout, "timeout", mcpserver.DefaultTimeout, "time limit of one call")
	f.DurationVar(&opts.lockTimeout, "lock-timeout", mcpserver.DefaultLockTimeout, "how long to wait for another process's lock on a store")
	f.IntVar(&opts.concurrency, "concurrency", mcpserver.DefaultConcurrency, "calls that run at once")
	f.BoolVar(&opts.indexCheck, "index-check", false, "refuse reads (find, count, distinct, aggregate) whose plan scans a whole collection")
	f.StringVar(&opts.audit, "audit", "", "append one JSON line per tool call to this file")
	f.StringVar(&opts.auditKey, "audit-key", "", "the key file of the audit log's argument HMACs (default the --audit file plus .key; made if missing)")
	f.BoolVar(&opts.listTools, "list-tools", false, "print the tools an agent would see, as JSON, and exit")
	f.StringVar(&opts.httpAddr, "http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	f.StringVar(&opts.token, "token", "", "bearer token HTTP clients must send (default $OMGDB_MCP_TOKEN)")
	f.BoolVar(&opts.insecureLoopback, "insecure-loopback", false, "allow --http without a token, on a loopback address only")
	f.BoolVar(&opts.allowRemote, "allow-remote", false, "allow --http on a non-loopback address")
	f.StringSliceVar(&opts.allowOrigins, "allow-origin", nil, "browser origins allowed over HTTP besides loopback ones")
	f.IntVar(&opts.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "HTTP sessions alive at once; a new one ends the one idle the longest")
	f.DurationVar(&opts.idleTimeout, "idle-timeout", mcpserver.DefaultIdleTimeout, "an HTTP session unused this long ends")
	return cmd
}

func (e *env) runMCP(ctx context.Context, opts *mcpOptions) error {
	if isMongo(opts.root) {
		return e.notOverMongo()
	}
	scope, err := mcpserver.ParseScope(opts.scope)
	if err != nil {
		return err
	}
	storeName, logOut := opts.store, e.stderr
	var eng engine.Reader
	var writer mcpserver.EngineWriter
	var past engine.Past
	var history mcpserver.EngineHistory
	var plans mcpserver.EnginePlans
	if isMongo(opts.store) {
		db, r, w, err := e.mongoMCP(ctx, opts.store, scope)
		if err != nil {
			return err
		}
		defer db.Close()
		eng, writer, past, storeName, plans, history = r, w, pastOnly{db}, db.Target().Redacted, mcpPlans{db}, historyOnly{db}
		logOut = redactingWriter{w: e.stderr, uri: db.Target().URI}
	}
	if opts.maxSessions < 1 || opts.idleTimeout <= 0 {
		return errs.Errorf(errs.Usage, "--max-sessions must be at least 1 and --idle-timeout above 0 (got %d and %s)", opts.maxSessions, opts.idleTimeout).
			WithHint("e.g. --max-sessions 100 --idle-timeout 1h")
	}
	token := opts.token
	if token == "" {
		token = os.Getenv("OMGDB_MCP_TOKEN")
	}
	srv, err := mcpserver.New(mcpserver.Config{
		Scope: scope, Store: storeName, Root: opts.root, Engine: eng, Writer: writer, Past: past, Plans: plans, History: history,
		Collections: opts.collections, DenyCollections: opts.denyCollections, Redact: opts.redact,
		Tools: opts.tools, DenyTools: opts.denyTools, ToolsFile: opts.toolsFile, OnlyCanned: opts.onlyCanned,
		MaxDocs: opts.maxDocs, MaxBytes: opts.maxBytes, MaxString: opts.maxString,
		Timeout: opts.timeout, LockTimeout: opts.lockTimeout, Concurrency: opts.concurrency, IndexCheck: opts.indexCheck,
		Audit: opts.audit, AuditKey: opts.auditKey, Version: Version,
		Logger: mcpLogger(logOut),
		HTTP: mcpserver.HTTPConfig{Addr: opts.httpAddr, Token: token, InsecureLoopback: opts.insecureLoopback,
			AllowRemote: opts.allowRemote, AllowedOrigins: opts.allowOrigins,
			MaxSessions: opts.maxSessions, IdleTimeout: opts.idleTimeout},
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	switch {
	case opts.listTools:
		return srv.ListTools(e.stdout)
	case opts.httpAddr != "":
		err = srv.ListenAndServe(ctx)
	default:
		err = srv.Serve(ctx, e.stdin, e.stdout)
	}
	if errors.Is(err, context.Canceled) {
		return nil // interrupted: a normal way to stop a server
	}
	return err
}

// mcpLogger is the server's log, on standard error: warnings and errors,
// and with OMGDB_DEBUG set the debug records too (the stack of a panic).
func mcpLogger(w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	if os.Getenv("OMGDB_DEBUG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
