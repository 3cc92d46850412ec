package mongoengine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// DefaultTimeout is how long Open waits for the deployment to answer.
const DefaultTimeout = 10 * time.Second

// Options configure Open. A nil *Options is the defaults.
type Options struct {
	// Timeout bounds server selection, for Open's ping and every call.
	// Default DefaultTimeout; a serverSelectionTimeoutMS in the URI wins.
	Timeout time.Duration
}

// DB is the MongoDB engine over one database. It is safe for concurrent
// use, as the driver's client is.
type DB struct {
	target *Target
	client *mongo.Client
	db     *mongo.Database
	// collation is what Collated set (nil: the server's default, the
	// collection's or binary), collationSpec the same as a document.
	collation     *options.Collation
	collationSpec value.Value
	// fence is what SetFence set (nil: none): the check of the names a
	// collection read at a revision held since (timetravel_follow.go).
	fence func(coll string, via []string) error
}

var _ engine.Reader = (*DB)(nil)

// Open connects to the deployment of t and checks that it answers.
func Open(ctx context.Context, t *Target, opts *Options) (*DB, error) {
	timeout := DefaultTimeout
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	co := options.Client().SetServerSelectionTimeout(timeout).ApplyURI(t.URI)
	client, err := mongo.Connect(co)
	if err != nil {
		return nil, wrapErr(t, "connect to", err)
	}
	if err := client.Ping(ctx, nil); err != nil {
		client.Disconnect(context.Background())
		return nil, wrapErr(t, "connect to", err)
	}
	return &DB{target: t, client: client, db: client.Database(t.DB)}, nil
}

// Target returns what the engine is connected to.
func (d *DB) Target() *Target { return d.target }

// Close disconnects. It is idempotent.
func (d *DB) Close() error {
	if d.client == nil {
		return nil
	}
	c := d.client
	d.client = nil
	return c.Disconnect(context.Background())
}

// Collections returns the database's collection names, sorted, without
// the "system." and "omgdb." ones.
func (d *DB) Collections(ctx context.Context) ([]string, error) {
	names, err := d.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, wrapErr(d.target, "list the collections of", err)
	}
	names = slices.DeleteFunc(names, func(n string) bool {
		return hidden(n)
	})
	slices.Sort(names)
	return names, nil
}

// hidden reports a collection that is the server's (system.) or omgdb's
// own (omgdb., and a dropped collection kept for rollback).
func hidden(coll string) bool {
	return strings.HasPrefix(coll, "system.") || strings.HasPrefix(coll, "omgdb.") || strings.HasPrefix(coll, DroppedPrefix)
}

// collection returns coll, or a NotFound error with a did-you-mean when
// the database has no such collection: a read never creates one, and
// never reads a missing one as empty.
func (d *DB) collection(ctx context.Context, coll string) (*mongo.Collection, error) {
	names, err := d.Collections(ctx)
	if err != nil {
		return nil, err
	}
	if slices.Contains(names, coll) {
		return d.db.Collection(coll), nil
	}
	e := errs.Errorf(errs.NotFound, "collection `%s` not found in %s%s", coll, d.target.Redacted, errs.DidYouMean(coll, names))
	if len(names) == 0 {
		e.Hint = "the database has no collections (is the database name in the URI right?)"
	} else {
		e.Hint = "list collections with `omgdb collections " + d.target.Redacted + "`"
	}
	return nil, e
}

// wrapErr turns a driver error into an omgdb error whose text holds no
// credentials: a refused command is Invalid (or Denied for an
// authorization failure), everything else IO.
func wrapErr(t *Target, doing string, err error) error {
	if e := new(errs.Error); errors.As(err, &e) {
		return err
	}
	msg := Redact(err.Error(), t.URI)
	var ce mongo.CommandError
	if errors.As(err, &ce) && !errors.Is(err, context.DeadlineExceeded) { // a deadline is not a refusal
		switch ce.Code {
		case 13, 18: // Unauthorized, AuthenticationFailed
			return errs.Errorf(errs.Denied, "MongoDB at %s refused: %s", t.Redacted, msg).
				WithHint("check the user and password in the URI (or $%s) and the user's roles", EnvURI)
		}
		return errs.Errorf(errs.Invalid, "MongoDB at %s refused the query: %s", t.Redacted, msg).
			WithHint("the query passed omgdb's checks but the server does not run it; see `omgdb docs mongodb` for what each server supports")
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	e := errs.Errorf(errs.IO, "%s MongoDB at %s: %s", doing, t.Redacted, msg).
		WithHint("check that the server is running and reachable, and the URI's host, port and options")
	if errors.Is(err, context.DeadlineExceeded) {
		e.Err = context.DeadlineExceeded // the caller's deadline (the MCP --timeout), not the driver's text
	}
	return e
}
