package mcpserver

import (
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// An apply or rollback over an engine is bounded by the call's deadline
// (--timeout) and by a cancellation: the engine stops between documents
// (each document's write and its record are not cut), journals the
// change as partial with what was written, and returns that with an
// error. The tool's answer is then a LIMIT_EXCEEDED error whose message
// says what was written and whose context.result is the whole result,
// so that the agent can roll the change back.

// enginePartial is the error of an apply or rollback that stopped
// between documents: err's message and hint, and res as context.
func (c *call) enginePartial(res *EngineApplied, err error) error {
	c.withholdUniqueReasons(res)
	res.NextValidActions = c.next([]string{"rollback", "history"}, "")
	ctxv, cerr := c.resultOf(res, "")
	if cerr != nil {
		return cerr
	}
	return errorf(CodeLimitExceeded, "%s", err.Error()).
		withHint("%s", errs.HintOf(err)).
		withNext(res.NextValidActions...).
		withContext("result", ctxv.data)
}

// withholdUniqueReasons replaces the server's message in conflicts that a
// unique index refused, on a collection with redactions: it quotes the
// key, which may be a redacted value.
func (c *call) withholdUniqueReasons(res *EngineApplied) {
	if c.srv.policy.specRedactor(res.Collection) == nil {
		return
	}
	for i, cf := range res.Conflicts {
		if strings.HasPrefix(cf.Reason, "a unique index refuses it") {
			res.Conflicts[i].Reason = "a unique index refuses it (the server's message is withheld: the collection has redacted fields)"
		}
	}
}
