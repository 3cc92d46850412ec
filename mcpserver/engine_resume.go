package mcpserver

import (
	"context"
	"slices"
)

// apply with resume over an engine, at read-write scope: an apply that
// did not run to its end (killed, cut off from the deployment, or
// stopped at the call's deadline) is finished by the Writer when it also
// resumes (EngineResumer). A store file's apply is one transaction, so
// its apply tool has no resume argument (an unknown argument is refused).

// EngineResumer finishes an apply that did not run to its end: it writes
// the plan's documents not yet written, each under its precondition, and
// journals the change as applied with every document it wrote.
type EngineResumer interface {
	Resume(ctx context.Context, token, actor string) (*EngineApplied, error)
}

// useResume adds the resume argument to apply when the Writer resumes.
func (s *Server) useResume(t *tool) {
	if t.Name != "apply" || s.cfg.Writer == nil {
		return
	}
	if _, ok := s.cfg.Writer.(EngineResumer); !ok {
		return
	}
	t.Description += " An apply that did not run to its end (history: interrupted or partial) is finished with resume: true."
	t.Params = append(slices.Clone(t.Params), param{Name: "resume", Type: "boolean",
		Description: "Finish an apply of this token that did not run to its end (history says interrupted or partial): write the documents not yet written."})
}
