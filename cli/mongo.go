package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// The commands that run over a MongoDB deployment so far, for the error
// every other command gives on a mongodb:// store.
const overMongo = "find, count, distinct, aggregate (with --at too), indexes, collections, describe, inspect, explain, diagnose, suggest-indexes, copy, export, insert, import, update, replace, delete, plan-update, plan-delete, plan-aggregate, plans, apply, rollback, history, diff, log, snapshot, revert, vsearch, search, context, drop, rename, create, define, create-index, drop-index, verify, compact --history-before, the shell and mcp"

// isMongo reports whether a store argument names a MongoDB deployment
// (mongodb://…, mongodb+srv://…, or mongodb:[DB] for $OMGDB_MONGODB_URI).
func isMongo(store string) bool { return mongoengine.IsURI(store) }

// notOverMongo is the error of a command that does not run over MongoDB
// yet.
func (e *env) notOverMongo() error {
	what := "this command"
	if e.command != "" {
		what = "`omgdb " + e.command + "`"
	}
	return usage("%s does not run over MongoDB yet: it needs a store file", what).
		WithHint("not yet supported over MongoDB; over a MongoDB store omgdb runs %s (see `omgdb docs mongodb`)", overMongo)
}

// commandName returns the subcommand's name in args: the first argument
// that is not a flag.
func commandName(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// openMongo connects to the deployment a store argument names.
func (e *env) openMongo(ctx context.Context, store string) (*mongoengine.DB, error) {
	t, err := mongoengine.Resolve(store, os.Getenv)
	if err != nil {
		return nil, err
	}
	return mongoengine.Open(ctx, t, nil)
}

// refuseOverMongo returns a usage error naming the first flag that was
// given (set is true) and that does not apply over MongoDB yet.
func refuseOverMongo(flags ...any) error {
	for i := 0; i+1 < len(flags); i += 2 {
		if set, _ := flags[i+1].(bool); set {
			return usage("%s does not work over MongoDB yet", flags[i]).
				WithHint("leave %s out, or run the command on a store file", flags[i])
		}
	}
	return nil
}

// mongoFind parses and checks a find's parts, then runs it on the
// deployment and prints the documents as find prints them.
func (e *env) mongoFind(ctx context.Context, opts *findOptions) error {
	q, cv, err := e.mongoQuery(opts)
	if err != nil {
		return err
	}
	return e.mongoStream(ctx, opts.path, &opts.out, func(db *mongoengine.DB, each func(value.Value) error) error {
		r, err := mongoReader(ctx, db, opts.at, cv)
		if err != nil {
			return err
		}
		return r.Find(ctx, opts.coll, q, each)
	})
}

// mongoQuery parses and checks a find's parts and its collation
// (missing: none), refusing the flags that do not work over MongoDB yet.
func (e *env) mongoQuery(opts *findOptions) (*engine.Find, value.Value, error) {
	if err := refuseOverMongo("--hint", opts.hint != "", "--max-memory", opts.maxMemory != sortMemory); err != nil {
		return nil, value.Value{}, err
	}
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return nil, cv, err
	}
	q, err := e.mongoFindSpec(opts)
	if err != nil {
		return nil, cv, err
	}
	return q, cv, nil
}

// mongoFindSpec parses a find's filter, sort and projection and checks
// them with omgdb's compiler.
func (e *env) mongoFindSpec(opts *findOptions) (*engine.Find, error) {
	q := &engine.Find{Skip: opts.skip, Limit: opts.limit}
	var err error
	if q.Filter, err = e.parseArg(opts.filter, "filter"); err != nil {
		return nil, err
	}
	if opts.sort != "" {
		if q.Sort, err = e.parseArg(opts.sort, "--sort"); err != nil {
			return nil, err
		}
	}
	if opts.project != "" {
		if q.Projection, err = e.parseArg(opts.project, "--project"); err != nil {
			return nil, err
		}
	}
	_, err = engine.Check(q)
	return q, err
}

// mongoStream connects to the deployment and prints, in the format of
// ff, the documents that run passes to each.
func (e *env) mongoStream(ctx context.Context, store string, ff *formatFlags, run func(*mongoengine.DB, func(value.Value) error) error) error {
	out, err := e.docOutput(ff)
	if err != nil {
		return err
	}
	return e.withMongo(ctx, store, func(db *mongoengine.DB) error {
		return out.close(run(db, out.doc))
	})
}

// withMongo connects to the deployment, runs fn and disconnects.
func (e *env) withMongo(ctx context.Context, store string, fn func(*mongoengine.DB) error) error {
	db, err := e.openMongo(ctx, store)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// withMongoCollated is withMongo with the engine comparing strings by
// the collation cv (checked by omgdb's parser; missing: none).
func (e *env) withMongoCollated(ctx context.Context, store string, cv value.Value, fn func(*mongoengine.DB) error) error {
	return e.withMongo(ctx, store, func(db *mongoengine.DB) error {
		db, err := db.Collated(cv)
		if err != nil {
			return err
		}
		return fn(db)
	})
}

// mongoCount counts on the deployment.
func (e *env) mongoCount(ctx context.Context, opts *countOptions) error {
	if err := refuseOverMongo("--hint", opts.hint != ""); err != nil {
		return err
	}
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	filter, err := e.mongoFilter(opts.filter)
	if err != nil {
		return err
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		r, err := mongoReader(ctx, db, opts.at, cv)
		if err != nil {
			return err
		}
		n, err := r.Count(ctx, opts.coll, filter)
		if err != nil {
			return err
		}
		out := e.output(false)
		if err := out.doc(value.LongValue(n)); err != nil {
			return err
		}
		return out.flush()
	})
}

// mongoDistinct lists distinct values on the deployment, printed as
// distinct prints them.
func (e *env) mongoDistinct(ctx context.Context, opts *distinctOptions) error {
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	filter, err := e.mongoFilter(opts.filter)
	if err != nil {
		return err
	}
	if err := engine.CheckField(opts.field); err != nil {
		return err
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		r, err := mongoReader(ctx, db, opts.at, cv)
		if err != nil {
			return err
		}
		vals, err := r.Distinct(ctx, opts.coll, opts.field, filter)
		if err != nil {
			return err
		}
		return e.printValues(vals, opts.array, opts.pretty, opts.ejson.mode)
	})
}

// mongoAggregate checks a pipeline with omgdb's compiler (no $out or
// $merge) and runs it on the deployment.
func (e *env) mongoAggregate(ctx context.Context, opts *aggregateOptions, spec value.Value) error {
	if err := refuseOverMongo("--seed", opts.seed != 0, "--max-memory", opts.maxMemory != agg.DefaultMaxMemory); err != nil {
		return err
	}
	cv, _, err := e.parseCollation(opts.collation)
	if err != nil {
		return err
	}
	if _, err := engine.CheckPipeline(spec, nil); err != nil {
		return err
	}
	return e.mongoStream(ctx, opts.path, &opts.out, func(db *mongoengine.DB, each func(value.Value) error) error {
		r, err := mongoReader(ctx, db, opts.at, cv)
		if err != nil {
			return err
		}
		return r.Aggregate(ctx, opts.coll, spec, each)
	})
}

// mongoIndex is a line of `omgdb indexes` over MongoDB: what the server
// says of an index (no entry count or size).
type mongoIndex struct {
	Name   string          `json:"name"`
	Kind   string          `json:"kind"`
	Key    json.RawMessage `json:"key"`
	Unique bool            `json:"unique,omitempty"`
	Sparse bool            `json:"sparse,omitempty"`
}

// mongoIndexes lists a collection's indexes on the deployment, the _id
// index first.
func (e *env) mongoIndexes(ctx context.Context, opts *indexesOptions) error {
	var ixs []engine.Index
	err := e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		var err error
		ixs, err = db.Indexes(ctx, opts.coll)
		return err
	})
	if err != nil {
		return err
	}
	if opts.format == "table" {
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "name\tkey\toptions")
		for _, ix := range ixs {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", ix.Name, relaxed(ix.Key), indexOptions(ix))
		}
		return tw.Flush()
	}
	for _, ix := range ixs {
		js, _ := json.Marshal(mongoIndex{Name: ix.Name, Kind: "btree", Key: relaxed(ix.Key), Unique: ix.Unique, Sparse: ix.Sparse})
		if _, err := e.stdout.Write(append(js, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// relaxed is a key pattern in Extended JSON's relaxed mode, as the store
// file's indexes print it ({"age":-1}).
func relaxed(key value.Value) []byte { return value.AppendEJSON(nil, key, value.EJSONRelaxed) }

func indexOptions(ix engine.Index) string {
	var opt []string
	if ix.Unique {
		opt = append(opt, "unique")
	}
	if ix.Sparse {
		opt = append(opt, "sparse")
	}
	if len(opt) == 0 {
		return "-"
	}
	return strings.Join(opt, " ")
}

// mongoFilter parses and checks a filter argument.
func (e *env) mongoFilter(arg string) (value.Value, error) {
	spec, err := e.parseArg(arg, "filter")
	if err != nil {
		return spec, err
	}
	_, err = engine.CheckFilter(spec)
	return spec, err
}

// redactedError hides the credentials of every MongoDB URI a command was
// given (as an argument or in $OMGDB_MONGODB_URI) in an error's text: the
// engine never puts them in a message, and this is the last guard before
// stderr. Its kind and hint are those of the error it wraps.
type redactedError struct {
	err  error
	uris []string
}

func (r redactedError) Error() string {
	msg := r.err.Error()
	for _, u := range r.uris {
		msg = mongoengine.Redact(msg, u)
	}
	return msg
}

func (r redactedError) Unwrap() error { return r.err }

// redact hides the credentials in s, such as the error's hint.
func (r redactedError) redact(s string) string {
	for _, u := range r.uris {
		s = mongoengine.Redact(s, u)
	}
	return s
}

// redactURIs wraps err in a redactedError when the arguments or the
// environment hold a MongoDB URI with credentials.
func redactURIs(err error, args []string) error {
	var uris []string
	for _, a := range append(args, os.Getenv(mongoengine.EnvURI)) {
		for _, f := range strings.Fields(a) {
			if i := strings.Index(f, "mongodb"); i >= 0 && strings.Contains(f[i:], "@") {
				uris = append(uris, f[i:])
			}
		}
	}
	if len(uris) == 0 || err == nil {
		return err
	}
	var re runError
	if errors.As(err, &re) {
		return runError{redactedError{re.err, uris}}
	}
	return redactedError{err, uris}
}

// mongoMCP opens the MongoDB store of `omgdb mcp --store`. At read scope
// the server gets the engine as a bare engine.Reader (nothing it holds
// has a write method) and no writer; at read-write scope a writer
// without the drops; only at dangerous scope one that drops.
func (e *env) mongoMCP(ctx context.Context, store string, scope mcpserver.Scope) (*mongoengine.DB, engine.Reader, mcpserver.EngineWriter, error) {
	db, err := e.openMongo(ctx, store)
	switch {
	case err != nil:
		return nil, nil, nil, err
	case scope == mcpserver.ScopeRead:
		return db, readerOnly{db, db}, nil, nil
	case scope == mcpserver.ScopeReadWrite:
		return db, db, mcpWriter{db}, nil
	}
	return db, db, mcpDangerousWriter{mcpWriter{db}}, nil
}

// readerOnly hides every method of an engine but those of engine.Reader
// and engine.Inspector, which only read (and a collated view of it,
// itself readerOnly).
type readerOnly struct {
	engine.Reader
	engine.Inspector
}

func (r readerOnly) CollatedReader(spec value.Value) (engine.Reader, error) {
	in, err := engine.Collated(r.Reader, spec)
	if err != nil {
		return nil, err
	}
	return readerOnly{in, r.Inspector}, nil
}

// redactingWriter removes the credentials of uri from everything written
// through it (the MCP server's log, whatever a record quotes).
type redactingWriter struct {
	w   io.Writer
	uri string
}

func (r redactingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, mongoengine.Redact(string(p), r.uri)); err != nil {
		return 0, err
	}
	return len(p), nil
}
