package mongoengine

import (
	"context"
	"errors"
	"fmt"

	"github.com/omgdb/omgdb/query/errs"
)

// An apply (or rollback) stops at its context's deadline, or when the
// context is cancelled, between documents: each document's write and
// the mark of its item run to their end (under a context that is not
// cancelled), and the context is checked before the next document. The
// change is then journaled as partial (StatusPartial): its items marked
// applied are exactly the documents written, so history says what
// happened and Rollback undoes them; the plan is applied (its token does
// not apply again). In a transaction nothing is written: the plan is
// pending again.

// StatusPartial is the status of a change whose apply stopped between
// documents at its deadline: the documents its items mark applied were
// written, the others not.
const StatusPartial = "partial"

// errStopped is what writeItems returns when the context ended between
// documents; it wraps the context's error.
var errStopped = errors.New("stopped between documents")

// beforeItem, when not nil, is called before each item is written, with
// its place in the plan: a test's way to end the context after N
// documents.
var beforeItem func(i int)

// stopped ends an apply that stopped between documents: with documents
// written, the change is journaled as partial and the plan is applied,
// and the result is returned with the error; with nothing written, the
// plan is pending again (the transaction already released it).
func (d *DB) stopped(ctx context.Context, p *Plan, res *ApplyResult, l *lease, cause error) (*ApplyResult, error) {
	why := "its deadline passed"
	if errors.Is(cause, context.Canceled) {
		why = "it was cancelled"
	}
	if res.Written() == 0 && len(res.Conflicts) == 0 {
		if !res.Transaction {
			if err := d.unclaim(ctx, p); err != nil {
				return nil, err
			}
		}
		return nil, errs.Errorf(errs.Limit, "apply %s stopped because %s before it wrote any document: nothing was written, and the plan is pending again", p.Token, why).
			WithHint("apply it again with more time (a longer --timeout for the MCP server)")
	}
	if err := d.journalEnd(ctx, p, res, l); err != nil {
		return nil, err
	}
	return res, errs.Errorf(errs.Limit, "apply %s stopped because %s after %d of %d document(s): %d inserted, %d updated, %d deleted, %d conflict(s), %d not written; change %s is journaled as %q with what was written",
		p.Token, why, res.Written()+int64(len(res.Conflicts)), len(p.Items), res.Inserted, res.Updated, res.Deleted, len(res.Conflicts), res.Unwritten, p.Token, StatusPartial).
		WithHint("finish it with `omgdb apply %s %s --resume`, or roll it back with `omgdb rollback %s %s` to undo what was written (the documents not written are as they were)", d.target.Redacted, p.Token, d.target.Redacted, p.Token)
}

// stopAt returns errStopped, with the context's error, when ctx is done
// before item i of n, recording in res how many were not written.
func stopAt(ctx context.Context, i, n int, res *ApplyResult) error {
	if err := ctx.Err(); err != nil {
		res.Unwritten = int64(n - i)
		return fmt.Errorf("%w: %w", errStopped, err)
	}
	return nil
}
