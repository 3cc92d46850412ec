package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/value"
)

// Time travel, diff, log, snapshots and revert over MongoDB, built on
// omgdb's journal in the deployment (mongoengine/timetravel.go).

// mongoAt is the reader of a read command's --at: the deployment itself,
// or the deployment as it was at the revision, whose queries run in
// omgdb's own engine over the reconstructed documents.
func mongoAt(ctx context.Context, db *mongoengine.DB, at string) (engine.Reader, error) {
	if at == "" {
		return db, nil
	}
	r, _, err := db.At(ctx, at)
	return r, err
}

// mongoReader is the reader of a read over MongoDB comparing strings by
// the collation cv (missing: none): the deployment now, the server
// comparing, or at the revision at, read in omgdb's own engine with
// omgdb's collator, as a store file would.
func mongoReader(ctx context.Context, db *mongoengine.DB, at string, cv value.Value) (engine.Reader, error) {
	if at != "" {
		r, err := mongoAt(ctx, db, at)
		if err != nil {
			return nil, err
		}
		return engine.Collated(r, cv)
	}
	return db.Collated(cv)
}

func (e *env) mongoDiff(ctx context.Context, opts *diffOptions) error {
	var res *changes.EngineDiff[engine.Revision]
	err := e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		d, err := db.Diff(ctx, opts.from, opts.to, opts.coll)
		if err == nil {
			res = mcpserver.DiffOf(d) // the MCP server's diff tool gives the same
		}
		return err
	})
	if err != nil {
		return err
	}
	summary := fmt.Sprintf("seq %d -> %d: %d inserted, %d deleted, %d updated", res.From.Seq, res.To.Seq, res.Inserted, res.Deleted, res.Updated)
	return e.printDiff(opts, summary, res, res.Documents)
}

func (e *env) mongoLog(ctx context.Context, opts *logOptions) error {
	out, err := e.docOutput(&opts.out)
	if err != nil {
		return err
	}
	if opts.since > 1<<62 {
		return usage("--since %d is past any seq", opts.since)
	}
	n := 0
	err = e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		return db.Log(ctx, int64(opts.since), func(rec value.Value) error {
			if opts.limit > 0 && n == opts.limit {
				return errLogLimit
			}
			n++
			return out.doc(rec)
		})
	})
	if errors.Is(err, errLogLimit) {
		err = nil
	}
	return out.close(err)
}

// errLogLimit stops a log at its --limit.
var errLogLimit = errors.New("log: limit reached")

func (e *env) mongoSnapshotCreate(ctx context.Context, opts *snapshotOptions) error {
	if opts.name != "" {
		if err := changes.ValidateSnapshotName(opts.name); err != nil {
			return err
		}
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		s, err := db.CreateSnapshot(ctx, opts.name, opts.at, "cli")
		if err != nil {
			return err
		}
		return e.printJSON(s, false)
	})
}

func (e *env) mongoSnapshotList(ctx context.Context, path string) error {
	return e.withMongo(ctx, path, func(db *mongoengine.DB) error {
		snaps, err := db.Snapshots(ctx)
		for _, s := range snaps {
			if err := e.printJSON(s, false); err != nil {
				return err
			}
		}
		return err
	})
}

func (e *env) mongoSnapshotDelete(ctx context.Context, path, name string) error {
	return e.withMongo(ctx, path, func(db *mongoengine.DB) error {
		s, err := db.DeleteSnapshot(ctx, name)
		if err != nil {
			return err
		}
		return e.printJSON(s, false)
	})
}

// mongoRevert plans a revert of one collection on the deployment; it is
// applied with apply, as any plan.
func (e *env) mongoRevert(ctx context.Context, opts *revertOptions) error {
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		p, err := db.PlanRevert(ctx, opts.rev, opts.coll, &mongoengine.PlanSpec{Expiry: opts.expiry, Actor: "cli"})
		if err != nil {
			return err
		}
		return e.printJSON(revertResult(p, opts.sample), opts.pretty)
	})
}

// revertResult is a revert's plan as a store file's revert prints it
// (its collection under collections).
func revertResult(p *mongoengine.Plan, sample int) *changes.PlanResult {
	r := planResult(p, sample)
	r.Collection, r.Message = "", ""
	if p.Collection != "" {
		r.Collections = []string{p.Collection}
	}
	if p.Modified == 0 {
		r.Message = "every document written since the revision is as it was then: applying this plan changes nothing"
	}
	return r
}
