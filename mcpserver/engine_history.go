package mcpserver

import (
	"context"
	"slices"
)

// EngineHistory is the read half of an engine's journal that the history
// tool needs: a read-scope server may hold it (it has no write method),
// so an agent that may only read can still see what was changed.
type EngineHistory interface {
	// History lists the changes made through omgdb, newest first: those
	// to coll when it is not empty, at most limit.
	History(ctx context.Context, coll string, limit int) ([]EngineChange, error)
}

func init() { engineRuns["history"] = runHistoryEngine }

// engineHistory is where the history tool reads: Config.History, else the
// Writer (which has History too).
func (s *Server) engineHistory() EngineHistory {
	if s.cfg.History != nil {
		return s.cfg.History
	}
	return s.cfg.Writer
}

// useEngineHistory serves history when the server has a journal to read,
// without its id argument (a document's versions are not served over MCP
// yet).
func (s *Server) useEngineHistory(t *tool) {
	if t.Name != "history" {
		return
	}
	if s.cfg.History == nil && s.cfg.Writer == nil {
		t.Run = nil
		return
	}
	t.Params = slices.DeleteFunc(slices.Clone(t.Params), func(p param) bool { return p.Name == "id" })
	t.Description = "Changes made through omgdb, newest first (change id, kind, counts, time, status); change ids feed rollback."
}
