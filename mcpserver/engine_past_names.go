package mcpserver

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// A read at a revision over an engine reads the collection a name held
// then, which a drop or rename made since may have put elsewhere: so with
// at, the name must have held a collection at that revision (asked of
// the engine's Past), not exist now. The policy is checked first and by
// the name asked for (a denied name is POLICY_DENIED whatever existed
// then), the redactions are that name's, and the fence (engine_past_fence.go)
// still guards the names its documents sit under now. A name that held
// no collection then is NOT_FOUND with a message that names nothing else:
// no did-you-mean, which could name a collection the policy hides or one
// that exists only now.

// EnginePastCollections is a Past that tells whether a name held a
// collection at a revision (the MongoDB engine's journal:
// mongoengine.DB.HadCollection). Without it, a read at a revision needs
// the collection to exist now.
type EnginePastCollections interface {
	HadCollection(ctx context.Context, coll string, rev engine.Revision) (bool, error)
}

// engineSource checks the collection a read names and returns the reader
// to read it with (engineReader): without at, the collection must exist
// now among the visible ones (engineCollection); with at, it must be
// allowed and have existed at that revision, which is returned too (nil
// for a read of the present).
func (c *call) engineSource(ctx context.Context, coll string) (engine.Reader, *engine.Revision, error) {
	if _, ok := c.srv.cfg.Past.(EnginePastCollections); c.str("at") == "" || !ok {
		if err := c.engineCollection(ctx, coll); err != nil {
			return nil, nil, err
		}
		r, err := c.engineReader(ctx)
		return r, nil, err
	}
	if err := c.enginePath(); err != nil {
		return nil, nil, err
	}
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, nil, deniedCollection(coll)
	}
	r, rev, err := c.pastReader(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := c.hadCollection(ctx, coll, rev); err != nil {
		return nil, nil, err
	}
	return pastRead{Reader: r, coll: coll, rev: rev}, &rev, nil
}

// hadCollection is nil when coll held a collection at rev, else
// notAtRevision.
func (c *call) hadCollection(ctx context.Context, coll string, rev engine.Revision) error {
	had, err := c.srv.cfg.Past.(EnginePastCollections).HadCollection(ctx, coll, rev)
	if err == nil && !had {
		err = notAtRevision(coll, rev)
	}
	return err
}

// notAtRevision is the NOT_FOUND of a name that held no collection at a
// revision. It names only that collection and the revision.
func notAtRevision(coll string, rev engine.Revision) *toolError {
	when := fmt.Sprintf("did not exist at revision %s (seq %d)", truncate(rev.Spec, 120), rev.Seq)
	if rev.Kind == engine.RevNow {
		when = "does not exist now"
	}
	return errorf(CodeNotFound, "collection `%s` %s", truncate(coll, 120), when).
		withHint("read it at a revision at which it existed (history lists the changes made through omgdb, each with its seq), or without at; describe lists the collections that exist now").
		withNext("describe", "history").withContext("collection", truncate(coll, 120), "at", truncate(rev.Spec, 120))
}

// pastRead is a read at a revision of a collection that existed then.
// A collection the read needs may still vanish while it runs (dropped
// around omgdb): the engine's not-found error then has a did-you-mean
// among every collection, those the policy hides too, so it is replaced
// by one that names only the collection read.
type pastRead struct {
	engine.Reader
	coll string
	rev  engine.Revision
}

// vanished replaces a not-found error.
func (r pastRead) vanished(err error) error {
	if errs.KindOf(err) != errs.NotFound {
		return err
	}
	return errorf(CodeNotFound, "a collection that the read of `%s` at revision %s needs was dropped or renamed while it ran", truncate(r.coll, 120), truncate(r.rev.Spec, 120)).
		withHint("read again").withContext("collection", truncate(r.coll, 120), "at", truncate(r.rev.Spec, 120))
}

func (r pastRead) Find(ctx context.Context, coll string, q *engine.Find, each func(value.Value) error) error {
	return r.vanished(r.Reader.Find(ctx, coll, q, each))
}

func (r pastRead) Count(ctx context.Context, coll string, filter value.Value) (int64, error) {
	n, err := r.Reader.Count(ctx, coll, filter)
	return n, r.vanished(err)
}

func (r pastRead) Distinct(ctx context.Context, coll, field string, filter value.Value) ([]value.Value, error) {
	vals, err := r.Reader.Distinct(ctx, coll, field, filter)
	return vals, r.vanished(err)
}

func (r pastRead) Aggregate(ctx context.Context, coll string, pipeline value.Value, each func(value.Value) error) error {
	return r.vanished(r.Reader.Aggregate(ctx, coll, pipeline, each))
}
