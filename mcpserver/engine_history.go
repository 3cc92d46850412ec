package mcpserver

import (
	"context"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
)

// EngineHistory is the read half of an engine's journal that the history
// tool needs: a read-scope server may hold it (it has no write method),
// so an agent that may only read can still see what was changed.
type EngineHistory interface {
	// History lists the changes made through omgdb, newest first: those
	// to coll when it is not empty, at most limit.
	History(ctx context.Context, coll string, limit int) ([]EngineChange, error)
	// Versions lists the versions of the document with _id id written
	// through omgdb, newest first, in coll only when it is not empty.
	Versions(ctx context.Context, coll string, id value.Value) ([]EngineVersion, error)
}

// EngineVersion is a version of a document, as `omgdb history --id`
// prints it over MongoDB (the seq in place of a file's lsn).
type EngineVersion struct {
	Seq        int64       `json:"seq"`
	Change     string      `json:"change"`
	Kind       string      `json:"kind"`
	Time       time.Time   `json:"time"`
	Actor      string      `json:"actor"`
	Collection string      `json:"collection"`
	Op         string      `json:"op"`
	Doc        changes.Doc `json:"doc"` // as the write left it; null after a deletion
}

func init() { engineRuns["history"] = runHistoryEngine }

// engineHistory is where the history tool reads: Config.History, else the
// Writer (which has History too).
func (s *Server) engineHistory() EngineHistory {
	if s.cfg.History != nil {
		return s.cfg.History
	}
	return writerHistory{s.cfg.Writer}
}

// writerHistory is the Writer's History, for a server given no
// Config.History: it lists changes but has no versions.
type writerHistory struct{ EngineWriter }

func (writerHistory) Versions(context.Context, string, value.Value) ([]EngineVersion, error) {
	return nil, errorf(CodeInvalidArgument, "this server lists changes but not a document's versions").
		withHint("leave id out").withContext("argument", "id")
}

// useEngineHistory serves history when the server has a journal to read.
func (s *Server) useEngineHistory(t *tool) {
	if t.Name != "history" {
		return
	}
	if s.cfg.History == nil && s.cfg.Writer == nil {
		t.Run = nil
		return
	}
	t.Description = sentence("Changes made through omgdb, newest first (change id, kind, counts, time, status), or with id",
		"one document's versions written through omgdb; change ids feed rollback, diff and at.")
}

// engineVersions is history with id over an engine, as a store file's.
func engineVersions(ctx context.Context, c *call, coll string, limit int) (*output, error) {
	vs, err := c.srv.engineHistory().Versions(ctx, coll, value.ParseIDArg(c.str("id")))
	if err != nil {
		return nil, err
	}
	return versionsOutput(c, vs, limit, func(v *EngineVersion) (string, *value.Value) { return v.Collection, &v.Doc.Value })
}
