// Package mcpserver is omgdb's MCP server: the Model Context Protocol over
// newline-delimited JSON-RPC 2.0 (Serve, on any io.Reader and io.Writer)
// and over Streamable HTTP (ServeHTTP, ListenAndServe), written for coding
// agents that must not be trusted. It never touches os.Stdin or
// os.Stdout, never exits the process, and logs only through
// Config.Logger.
//
// # Model
//
// A Server holds one Config: a scope, where stores may be found (a pinned
// store or a root directory), the operator's policy, and caps. Each
// connection is a session (one per stdio stream, one per HTTP session id)
// with its negotiated protocol version and its calls in flight. Each
// line is read once, by one json.Decoder (message.go); a tools/call is
// admitted, its arguments parsed (by value.Parse, from their bytes as
// sent; the documents a tool stores by value.ParseInput, so a plain
// integer of 32 bits is an int, as mongosh stores it) and checked against
// the tool's parameters, and run with a
// deadline, at most Config.Concurrency at a time; it opens the store it
// names, does its work in one transaction, and closes the store: no lock
// is held between calls. A result is encoded once, for both its
// structuredContent and its text, in Extended JSON v2 relaxed mode
// (encodeJSON); the documents of a find page are transcoded from the
// bytes they are stored as, without decoding them, unless a projection,
// a redaction or --max-string changes them.
//
// While a call runs, the server may send notifications on the channel
// the request came on (notify.go): a log message per call after
// logging/setLevel, and progress every second for a call that carried a
// progressToken. Their text never holds an argument or stored data.
//
// # Guarantees
//
// Scope is enforced three times: tools/list lists only the tools within
// it; tools/call refuses any other tool before reading its arguments or
// touching a file; and a read tool, or any tool of a read-scope server,
// opens the store read-only, so the engine refuses to write whatever the
// tool's code does. Over an engine (Config.Engine, a MongoDB
// deployment) a read-scope server holds only its engine.Reader: New
// refuses a Config.Writer at read scope, so no tool can reach a write
// function (engine.go, engine_write.go); a read-write server's writer has
// no drop method, only a dangerous one's does (engine_schema.go). Paths are confined to the root (see paths.go for the
// exact steps and the remaining window where /proc is missing). Redacted
// fields are removed where documents are read, before filters see them;
// the values plans, change notes and error messages give to redacted
// paths are shown as "<redacted>" (redact_spec.go, redact_changes.go),
// and plans or inserts whose counts or conflicts would reveal a redacted
// value are refused.
// A read at a revision over an engine that follows collections through
// renames (EnginePastFence) is refused where it would follow an allowed
// name onto one the policy denies or redacts otherwise
// (engine_past_fence.go).
// Results are capped and say which cap fired; document data in text
// content is fenced with a per-result random nonce; every failure is a
// result with a stable code; with an audit log, every call is recorded
// (its arguments as an HMAC under a key kept beside the log) and fsynced
// before it is answered, and a broken log stops the server from serving
// tools. Over HTTP, sessions are bounded: a new one reclaims the one idle
// the longest. A panic in a tool becomes an INTERNAL error.
//
// # Caveats
//
// Over an engine, apply and rollback run to their end past the call's
// deadline once started: the engine's apply is not atomic without a
// transaction, and one cut between documents could not be rolled back.
// Calls stop at their deadline cooperatively: scans check their context
// before every document, expression evaluation every expr.CheckEvery
// steps, so a call answers within about a millisecond of its deadline
// (docs/limits.md); waiting for a store's lock is bounded by
// Config.LockTimeout instead. A regular expression's single match on one
// long string cannot be interrupted (Go's regexp has no cancellation). Cursors are offsets into the results, so a
// collection that changes between pages may repeat or skip documents.
//
// # Adding a tool
//
// Write a constructor returning a *tool (name, title, description,
// scope, parameters, output schema, annotations, Run) in a
// tool_<name>.go file and list it in builtins (catalog.go). Scope and
// policy checks, argument validation, caps, fencing, the error envelope
// and the audit log come from the server.
package mcpserver
