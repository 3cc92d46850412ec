package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

// mongoImportPlan is import over MongoDB in the modes upsert, merge and
// delete, or with --atomic: the documents are read and matched with the
// stored ones into one plan (nothing is written meanwhile), which is then
// applied as `omgdb apply` applies a plan, each document under its
// precondition (or, with --atomic, in one transaction). The import is
// one change; rollback undoes it.
func (e *env) mongoImportPlan(ctx context.Context, db *mongoengine.DB, opts *importOptions, in io.Reader, size int64, iopts *store.ImportOptions) error {
	if opts.atomic {
		if err := refuseAtomic(ctx, db); err != nil {
			return err
		}
	}
	pl, err := db.NewImportPlan(&mongoengine.ImportSpec{Collection: opts.coll, Mode: opts.mongo.mode,
		Fields: splitList(opts.mongo.upsertFields), Actor: "cli"})
	if err != nil {
		return err
	}
	bar := e.progress("reading", size)
	iopts.Progress = func(lines, bytes int64) { bar.update(lines, bytes) }
	sum, err := newMongoImporter(pl, in, iopts).run(ctx)
	bar.done()
	if err != nil && (opts.atomic || sum.StoppedAt == 0 || ctx.Err() != nil) {
		return e.importPlanStopped(ctx, err, sum, opts)
	}
	res, aerr := pl.Apply(context.WithoutCancel(ctx))
	if aerr != nil {
		return aerr
	}
	sum.Inserted, sum.Updated, sum.Deleted, sum.Matched = res.Inserted, res.Updated, res.Deleted, pl.Matched
	sum.Batches, sum.Change = 0, res.ChangeID
	if res.Written() > 0 {
		sum.Batches = 1
	}
	js, _ := json.Marshal(sum)
	e.stdout.Write(append(js, '\n'))
	if cerr := conflictError(res, "import"); cerr != nil {
		return cerr
	}
	return withResumeHint(err, sum, opts)
}

// refuseAtomic refuses --atomic on a deployment without multi-document
// transactions, before anything is read.
func refuseAtomic(ctx context.Context, db *mongoengine.DB) error {
	tx, err := db.Transactions(ctx)
	if err != nil || tx {
		return err
	}
	return usage("--atomic needs a multi-document transaction, and %s has none: it is a standalone server (its hello names no replica set, and it is no mongos), as FerretDB is", db.Target().Redacted).
		WithHint("leave --atomic out: the import is still one change that `omgdb rollback` undoes, but other readers may see it part written; or import into a replica set")
}

// importPlanStopped is the end of a planned import that stopped before
// its plan was applied (Ctrl-C, a server failure, or a bad line with
// --atomic): nothing was written.
func (e *env) importPlanStopped(ctx context.Context, err error, sum *store.ImportSummary, opts *importOptions) error {
	sum.Inserted, sum.Updated, sum.Deleted, sum.Matched, sum.Batches, sum.Change = 0, 0, 0, 0, 0, ""
	sum.CommittedThrough = max(0, opts.mongo.resumeFrom-1)
	js, _ := json.Marshal(sum)
	e.stdout.Write(append(js, '\n'))
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return newInterrupted("nothing was imported: the documents were being read and matched, none was written",
			"run the same import again")
	}
	qe := errs.Errorf(errs.KindOf(err), "%v", err)
	qe.Err = err
	qe.Hint = "nothing was imported: with --mode " + opts.mongo.mode + " over MongoDB the documents are written only once all are read"
	if opts.atomic {
		qe.Hint = "nothing was imported (--atomic)"
	}
	if h := errs.HintOf(err); h != "" {
		qe.Hint = h + "; " + qe.Hint
	}
	return qe
}
