package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

func init() { commands = append(commands, command{"copy", newCopyCmd}) }

type copyOptions struct {
	storeFlags
	src, dst    string
	collections string
	history     bool
	resume      bool
	noVerify    bool
	batch       int
}

func newCopyCmd(e *env) *cobra.Command {
	opts := &copyOptions{}
	cmd := &cobra.Command{
		Use:   "copy <source> <target>",
		Short: "Copy collections with their documents, indexes and rules between store files and MongoDB",
		Long: `Copy collections, with their documents, validation rules and indexes, from a
store file or a MongoDB database (mongodb://…/DB, mongodb+srv://…/DB, or
mongodb:[DB] with $OMGDB_MONGODB_URI) to another. Documents stream in _id
order in batches (--batch-size): into a store file through the journaled
import, each batch one transaction, all of a collection one change of kind
"copy" (omgdb history shows it, rollback undoes it); into MongoDB as ordered
insertMany batches, after the collection, its validator and its indexes are
created (an index the deployment cannot hold stops the copy before any
document is written). Every type survives exactly both ways. A target
collection that already holds documents is refused unless --resume, which
goes on after its greatest _id (a copy writes in _id order, so the target
holds the source's first documents). At the end each collection is
verified: its count and a SHA-256 digest of its documents in _id order, on
both sides (--no-verify skips it). Prints {"source","target","collections":
[{"name","copied","resumed_after","source_count","target_count",
"source_digest","target_digest","verified"}],"verified"}.

With --history the target must be empty, and the source's journal is
replayed into it, oldest first: each change becomes one change of the
target with the same id, kind, time, actor and note and the same
before- and after-image of each document, so history, log, diff,
--at and rollback give on the target what they give on the source
(revision numbers are the target's own: the n-th change is lsn n in a
file, seq n on a deployment). Documents the journal does not account
for come last, as one change of kind "copy" per collection; snapshots
name the same changes. A pruned journal starts the target with the state
at its cut, and the target keeps the cut. The summary adds "history":
{"changes","already","settled","snapshots","cut"}. --resume skips the
changes already carried. See omgdb docs mongodb.`,
		Example: `  omgdb copy app.omgdb mongodb://localhost:27017/app
  OMGDB_MONGODB_URI='mongodb://user:secret@db1/app' omgdb copy mongodb: app-copy.omgdb --collections users,orders
  omgdb copy app.omgdb mongodb://localhost:27017/app --resume
  omgdb copy app.omgdb mongodb://localhost:27017/app --history`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.src, opts.dst = args[0], args[1]
			return e.runCopy(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&opts.collections, "collections", "", "copy these collections only, comma-separated (default: all)")
	fl.BoolVar(&opts.history, "history", false, "copy the journal too: replay every change into an empty target (see omgdb docs mongodb)")
	fl.BoolVar(&opts.resume, "resume", false, "go on after the greatest _id of each target collection that holds documents")
	fl.BoolVar(&opts.noVerify, "no-verify", false, "skip the check of counts and digests at the end")
	fl.IntVar(&opts.batch, "batch-size", 1000, "documents per batch (a transaction, or an insertMany)")
	return cmd
}

// copyResult is one collection's line of the summary.
type copyResult struct {
	Name         string          `json:"name"`
	Copied       int64           `json:"copied"`
	ResumedAfter json.RawMessage `json:"resumed_after,omitempty"`
	SourceCount  int64           `json:"source_count"`
	TargetCount  int64           `json:"target_count"`
	SourceDigest string          `json:"source_digest,omitempty"`
	TargetDigest string          `json:"target_digest,omitempty"`
	Verified     bool            `json:"verified"`
	diff         string          // what verify found different
}

// copySummary is what copy prints.
type copySummary struct {
	Source      string        `json:"source"`
	Target      string        `json:"target"`
	Collections []*copyResult `json:"collections"`
	History     *copyHistory  `json:"history,omitempty"` // with --history
	Verified    bool          `json:"verified"`
}

// wrote reports whether the copy wrote any document.
func (s *copySummary) wrote() bool {
	if s.History != nil && s.History.Changes+s.History.Already > 0 {
		return true
	}
	for _, c := range s.Collections {
		if c.Copied > 0 {
			return true
		}
	}
	return false
}

func (o *copyOptions) check() error {
	if o.history && o.collections != "" {
		return usage("--history copies every collection: it cannot be given with --collections (a change of the journal may write several collections)").
			WithHint("leave out --collections, or copy the chosen collections without --history")
	}
	if o.batch <= 0 {
		return usage("--batch-size must be 1 or more")
	}
	if !isMongo(o.src) && !isMongo(o.dst) {
		return nil
	}
	if o.src == o.dst {
		return usage("the source and the target are the same: %s", mongoengine.RedactURI(o.src)).WithHint("name another target")
	}
	return nil
}

func (e *env) runCopy(ctx context.Context, opts *copyOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	src, err := e.openSource(ctx, opts)
	if err != nil {
		return err
	}
	defer src.close()
	dst, err := e.openTarget(ctx, opts)
	if err != nil {
		return err
	}
	defer dst.close()
	sum := &copySummary{Source: src.where(), Target: dst.where()}
	if opts.history {
		err = e.copyWithHistory(ctx, opts, src, dst, sum)
	} else {
		err = e.copyAll(ctx, opts, src, dst, sum)
	}
	if fe, ok := dst.(*fileEnd); ok && err != nil && fe.db.Created() && !sum.wrote() {
		e.removeNewStore(fe.db)
	}
	if len(sum.Collections) > 0 {
		js, _ := json.Marshal(sum)
		e.stdout.Write(append(js, '\n'))
	}
	return err
}

// openSource opens the source, which must exist: a store file read-only.
func (e *env) openSource(ctx context.Context, opts *copyOptions) (copyEnd, error) {
	if isMongo(opts.src) {
		db, err := e.openMongo(ctx, opts.src)
		if err != nil {
			return nil, err
		}
		return &mongoEnd{db: db, batch: opts.batch, warn: e.warnf}, nil
	}
	db, err := e.open(opts.src, readOnly, opts.storeFlags)
	if err != nil {
		return nil, err
	}
	return newFileEnd(db, opts.src, opts.batch), nil
}

// openTarget opens the target: a store file is created if missing.
func (e *env) openTarget(ctx context.Context, opts *copyOptions) (copyTarget, error) {
	if isMongo(opts.dst) {
		db, err := e.openMongo(ctx, opts.dst)
		if err != nil {
			return nil, err
		}
		return &mongoEnd{db: db, batch: opts.batch, warn: e.warnf}, nil
	}
	if sameFile(opts.src, opts.dst) {
		return nil, usage("the source and the target are the same store: %s", opts.dst).WithHint("name another target")
	}
	db, err := e.open(opts.dst, createIfNone, opts.storeFlags)
	if err != nil {
		return nil, err
	}
	return newFileEnd(db, opts.dst, opts.batch), nil
}

// warnf prints a warning on stderr.
func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "warning: "+format+"\n", args...)
}

// copyAll copies the chosen collections: it checks every target
// collection and prepares them all before it writes any document.
func (e *env) copyAll(ctx context.Context, opts *copyOptions, src copyEnd, dst copyTarget, sum *copySummary) error {
	names, err := copyNames(ctx, src, opts.collections)
	if err != nil {
		return err
	}
	defs := make([]copyDefs, len(names))
	lasts := make([]value.Value, len(names))
	existed := make([]bool, len(names))
	for i, name := range names {
		if defs[i], err = src.defs(ctx, name); err != nil {
			return err
		}
		exists, n, last, err := dst.state(ctx, name)
		if err != nil {
			return err
		}
		existed[i] = exists
		if n > 0 && !opts.resume {
			return errs.Errorf(errs.Conflict, "collection `%s` in %s already holds %d document(s): copy never merges into a collection", name, dst.where(), n).
				WithHint("copy into an empty target (or drop the collection there), or add --resume to go on after its greatest _id")
		}
		lasts[i] = last
	}
	for i, name := range names {
		if err := dst.prepare(ctx, name, defs[i]); err != nil {
			abandon(ctx, dst, names[:i+1], existed)
			return err
		}
	}
	for i, name := range names {
		res, err := e.copyOne(ctx, src, dst, name, lasts[i])
		sum.Collections = append(sum.Collections, res)
		if err != nil {
			return e.copyStopped(ctx, err, res, opts)
		}
		if err := dst.finish(ctx, name, defs[i]); err != nil {
			return err
		}
	}
	if opts.noVerify {
		return nil
	}
	return e.verifyCopy(ctx, src, dst, sum)
}

// abandon removes the target collections that prepare created, when a
// later one failed: a copy that stops before its documents leaves nothing.
func abandon(ctx context.Context, dst copyTarget, names []string, existed []bool) {
	for i, name := range names {
		if !existed[i] {
			dst.abandon(context.WithoutCancel(ctx), name)
		}
	}
}

// copyNames returns the collections to copy: those of --collections,
// each of which must be in the source, or all of the source's.
func copyNames(ctx context.Context, src copyEnd, list string) ([]string, error) {
	all, err := src.collections(ctx)
	if err != nil {
		return nil, err
	}
	if list == "" {
		if len(all) == 0 {
			return nil, errs.Errorf(errs.NotFound, "%s has no collections to copy", src.where()).
				WithHint("check the source: a store path or a MongoDB URI that ends with the database")
		}
		return all, nil
	}
	names := splitList(list)
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, errs.Errorf(errs.NotFound, "collection `%s` not found in %s%s", n, src.where(), errs.DidYouMean(n, all)).
				WithHint("the source has: %s", strings.Join(all, ", "))
		}
	}
	return names, nil
}

// copyOne copies one collection's documents, after last when the target
// holds some (--resume), and returns its line of the summary.
func (e *env) copyOne(ctx context.Context, src copyEnd, dst copyTarget, name string, last value.Value) (*copyResult, error) {
	res := &copyResult{Name: name}
	if !last.IsMissing() {
		res.ResumedAfter = value.AppendEJSON(nil, last, value.EJSONCanonical)
	}
	_, total, _, err := src.state(ctx, name)
	if err != nil {
		return res, err
	}
	bar := e.progress("copying "+name, total)
	var read int64
	res.Copied, err = dst.write(ctx, name, func(each func(value.Value) error) error {
		return src.scan(ctx, name, last, func(doc value.Value) error {
			read++
			bar.update(read, read)
			return each(doc)
		})
	})
	bar.done()
	return res, err
}

// copyStopped says how far a copy that stopped got and how to go on.
func (e *env) copyStopped(ctx context.Context, err error, res *copyResult, opts *copyOptions) error {
	done := fmt.Sprintf("%d document(s) of `%s` copied in this run", res.Copied, res.Name)
	return stoppedAt(ctx, err, done, "the last document copied", opts.resume)
}

// stoppedAt is the error of a copy that stopped: what it did (done),
// and to resume after last.
func stoppedAt(ctx context.Context, err error, done, last string, resumed bool) error {
	next := "run the same command with --resume to go on after " + last
	if resumed {
		next = "run the same command again to go on after " + last
	}
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return newInterrupted(done, next)
	}
	ee := errs.Errorf(errs.KindOf(err), "%v", err)
	ee.Err = err
	ee.Hint = done + "; once the cause is fixed, " + next
	if h := errs.HintOf(err); h != "" {
		ee.Hint = h + "; " + ee.Hint
	}
	return ee
}
