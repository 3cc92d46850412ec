package mcpserver

import (
	"slices"

	"github.com/omgdb/omgdb/query/errs"
)

// A read at a revision over MongoDB follows a collection through the
// drops and renames made since (the collection a name held then may be
// under another name now). The policy is by name, so such a read must
// not reach, through an allowed name, documents that now sit under a
// name the policy hides or redacts otherwise (a rename made outside the
// server; rename_collection refuses those): the engine calls the fence
// for every collection it follows, and the fence refuses the read.

// EnginePastFence is a Past that follows collections through renames and
// takes a fence (the MongoDB engine's journal: mongoengine.DB.SetFence):
// check is called with each collection followed and the other names it
// held since the revision, and its error stops the read.
type EnginePastFence interface {
	SetFence(check func(coll string, via []string) error)
}

// usePastFence sets the policy's fence on the engine's Past, when it
// takes one.
func (s *Server) usePastFence() {
	if f, ok := s.cfg.Past.(EnginePastFence); ok {
		f.SetFence(s.policy.pastFence)
	}
}

// pastFence refuses to follow an allowed collection through a name that
// is denied or has other redactions. A denied collection's documents are
// left out of every result by the caller, so its own path is not checked.
func (p *policy) pastFence(coll string, via []string) error {
	if !p.collectionAllowed(coll) {
		return nil
	}
	want := p.redactedPaths(coll)
	for _, name := range via {
		if !p.collectionAllowed(name) || !slices.Equal(p.redactedPaths(name), want) {
			return errs.Errorf(errs.Denied, "collection `%s` was renamed after that revision, and its documents are now under a name that this server's policy hides or redacts otherwise: it is not read at that revision here", truncate(coll, 120)).
				WithHint("read it at a revision after the rename, or ask the operator to read it with the omgdb CLI")
		}
	}
	return nil
}
