package cli

import (
	"context"

	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
)

// apply --resume finishes an apply over MongoDB that did not run to its
// end (mongoengine.Resume); mongoApply calls it. On a store file an apply
// is one transaction, so there is nothing to resume there.

const resumeHelp = `

--resume (over MongoDB only) finishes an apply that did not run to its end:
one killed or cut off from the deployment (its change is "interrupted" in
omgdb history once its lease of 30 s has expired) or one stopped at its
deadline ("partial"). It takes the change over and writes the documents not
yet written, each under its precondition (a document changed since is a
conflict, exit 69); the change then counts every document it wrote. A plan
never applied is applied as without --resume. An apply that is still running
(its lease runs) is refused with exit 75 (busy: retry once it ends or its
lease expires). On a store file an apply is one transaction: a killed apply
wrote nothing, and --resume is refused (exit 64).`

// errResumeOnFile refuses apply --resume on a store file.
func errResumeOnFile(path, token string) error {
	return errs.Errorf(errs.Usage, "apply --resume runs over MongoDB only: on a store file an apply is one transaction, so an apply that was stopped wrote nothing and there is nothing to resume").
		WithHint("apply the plan again without --resume: `omgdb apply %s %s`", path, token)
}

// Resume finishes an apply for the MCP server's apply with resume, as
// apply --resume does.
func (w mcpWriter) Resume(ctx context.Context, token, actor string) (*mcpserver.EngineApplied, error) {
	return engineAppliedOf(w.db.Resume(ctx, token, &mongoengine.ApplyOptions{Actor: actor}))
}

// engineAppliedOf is the MCP server's result of an apply: err (with res)
// when it stopped at the deadline, res what was written.
func engineAppliedOf(res *mongoengine.ApplyResult, err error) (*mcpserver.EngineApplied, error) {
	if res == nil {
		return nil, err
	}
	return engineApplied(res), err
}

var _ mcpserver.EngineResumer = mcpWriter{}
