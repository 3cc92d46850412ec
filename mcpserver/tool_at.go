package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Time travel: find, count and aggregate take `at`, a revision, and read
// the store as it was then (changes.ScanAt), under the same policy as
// reads of the present: visible collections only, redacted as they are
// read, capped and paged alike.

var atParam = param{Name: "at", Type: "string", Description: "Past revision: lsn, snapshot, change id or time."}

// viewAt opens the store read-only, resolves the at argument and runs fn
// in one read transaction.
func (c *call) viewAt(fn func(*store.Tx, changes.Revision) error) error {
	db, err := c.openStore(false)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *store.Tx) error {
		rev, err := changes.ResolveRevision(tx, c.str("at"))
		if err != nil {
			return err
		}
		return fn(tx, rev)
	})
}

// scanAt returns a collection's documents at rev as the agent may see
// them: a collection the policy hides is refused, redacted fields are
// removed as documents are read.
func (c *call) scanAt(ctx context.Context, tx *store.Tx, coll string, rev changes.Revision) (agg.Source, error) {
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	src, err := changes.ScanAt(ctx, tx, coll, rev)
	if errors.Is(err, store.ErrNotFound) {
		// Never a collection: the store's error has a did-you-mean
		// among every collection, those the policy hides too.
		return nil, c.missingCollection(coll, c.srv.policy.collections(tx))
	}
	if err != nil {
		return nil, err
	}
	if red := c.redactor(coll); red != nil {
		src = &redactSource{Source: src, redact: red}
	}
	return src, nil
}

// redactSource removes redacted fields from each document of a stream.
type redactSource struct {
	agg.Source
	redact func(value.Value) value.Value
}

func (r *redactSource) Doc() value.Value { return r.redact(r.Source.Doc()) }

// findAt is find at a past revision. Its cursors are bound to at too.
func (c *call) findAt(ctx context.Context, fq findQuery) (*output, error) {
	fq.key = obj("query", fq.key, "at", c.str("at"))
	skip, err := c.offset(fq.key)
	if err != nil {
		return nil, err
	}
	limit := c.int("limit", 100)
	var out *output
	err = c.viewAt(func(tx *store.Tx, rev changes.Revision) error {
		src, err := c.scanAt(ctx, tx, fq.coll, rev)
		if err != nil {
			return err
		}
		to := c.countTo(skip, limit, -1)
		src = projected(ctx, store.FindIn(ctx, src, store.Query{Filter: fq.filter, Sort: fq.sort, Limit: to}), fq)
		defer src.Close()
		pg, err := c.readPage(ctx, src, skip, limit)
		if err != nil {
			return err
		}
		matched, err := c.matched(ctx, src, pg, -1, to)
		if err != nil {
			return err
		}
		out = c.pageOutputAt(fq.coll, fq.key, rev, skip, matched, pg, !fq.pipelined)
		return nil
	})
	return out, err
}

func (c *call) countAt(ctx context.Context, tx *store.Tx, coll string, rev changes.Revision, filter *query.Filter) (int64, error) {
	src, err := c.scanAt(ctx, tx, coll, rev)
	if err != nil {
		return 0, err
	}
	return drain(store.FindIn(ctx, src, store.Query{Filter: filter}))
}

// runCountAt is count at a past revision.
func runCountAt(ctx context.Context, c *call, filter *query.Filter) (*output, error) {
	var n int64
	err := c.viewAt(func(tx *store.Tx, rev changes.Revision) error {
		var err error
		n, err = c.countAt(ctx, tx, c.str("collection"), rev, filter)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(obj("collection", c.str("collection"), "count", n))
	out.matched = matchCount{n: n}
	return out, nil
}

// aggregateAt is aggregate at a past revision: $lookup and $unionWith
// read the other collections at the same revision, under the policy.
func (c *call) aggregateAt(ctx context.Context, coll string, p *agg.Pipeline, key value.Value) (*output, error) {
	key = obj("query", key, "at", c.str("at"))
	skip, err := c.offset(key)
	if err != nil {
		return nil, err
	}
	var out *output
	err = c.viewAt(func(tx *store.Tx, rev changes.Revision) error {
		src, err := c.scanAt(ctx, tx, coll, rev)
		if err != nil {
			return err
		}
		src = p.Run(ctx, src, policyEnvAt{c: c, tx: tx, rev: rev})
		defer src.Close()
		pg, err := c.readAll(ctx, src, skip)
		if err != nil {
			return err
		}
		out = c.pageOutputAt(coll, key, rev, skip, matchCount{n: pg.seen}, pg, false)
		return nil
	})
	return out, err
}

type policyEnvAt struct {
	c   *call
	tx  *store.Tx
	rev changes.Revision
}

func (e policyEnvAt) Collection(ctx context.Context, name string) (agg.Source, error) {
	return e.c.scanAt(ctx, e.tx, name, e.rev)
}

// pageOutputAt is the result of a find or aggregate at a revision: as
// pageOutput's, with the revision it read.
func (c *call) pageOutputAt(coll string, key value.Value, rev changes.Revision, skip int64, matched matchCount, pg *page, reason bool) *output {
	returned := int64(len(pg.js))
	cursor, why := value.MissingValue, value.MissingValue
	if pg.more {
		cursor = jv(c.srv.newCursor(key, skip+returned))
	}
	if returned == 0 && reason {
		if matched.n > 0 {
			why = jv(fmt.Sprintf("skip %d is past the %d matching documents", skip, matched.n))
		} else {
			why = jv(fmt.Sprintf("no document of `%s` matched at revision %s (lsn %d)", coll, rev.Spec, rev.LSN))
		}
	}
	limits := value.MissingValue
	if len(pg.limits) > 0 {
		limits = value.ObjectValue(pg.limits)
	}
	redacted := value.MissingValue
	if names := c.srv.policy.redactedNames(coll); len(names) > 0 {
		redacted = jv(names)
	}
	out := newOutput(obj("collection", coll, "at", obj("lsn", int64(rev.LSN), "spec", rev.Spec), "documents", arr(),
		"returned", returned, "matched", matched.value(), "applied_limits", limits, "cursor", cursor, "empty_reason", why, "redacted", redacted))
	out.docs = pg.js
	out.fence = "documents of `" + coll + "`"
	out.returned, out.matched = returned, matched
	return out
}
