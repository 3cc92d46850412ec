package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
)

// fakeEngine stands for a deployment: New never calls it.
type fakeEngine struct{ engine.Reader }

// fakeWriter stands for the engine's write half.
type fakeWriter struct{ mcpserver.EngineWriter }

// TestNew_EngineScopes: a read-scope server over an engine refuses to be
// handed the write half (so its tools cannot reach a write function), a
// read-write one needs it, dangerous scope is refused, and a writer
// without an engine is a mistake.
func TestNew_EngineScopes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    mcpserver.Config
		errHas string // "" for success
	}{
		{"read", mcpserver.Config{Scope: mcpserver.ScopeRead, Engine: fakeEngine{}}, ""},
		{"read_with_writer", mcpserver.Config{Scope: mcpserver.ScopeRead, Engine: fakeEngine{}, Writer: fakeWriter{}}, "must not be handed"},
		{"read_write", mcpserver.Config{Scope: mcpserver.ScopeReadWrite, Engine: fakeEngine{}, Writer: fakeWriter{}}, ""},
		{"read_write_without_writer", mcpserver.Config{Scope: mcpserver.ScopeReadWrite, Engine: fakeEngine{}}, "needs Config.Writer"},
		{"dangerous", mcpserver.Config{Scope: mcpserver.ScopeDangerous, Engine: fakeEngine{}, Writer: fakeWriter{}}, ""},
		{"dangerous_without_writer", mcpserver.Config{Scope: mcpserver.ScopeDangerous, Engine: fakeEngine{}}, "a dangerous server over an engine needs Config.Writer"},
		{"writer_without_engine", mcpserver.Config{Scope: mcpserver.ScopeReadWrite, Writer: fakeWriter{}}, "needs Config.Engine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Store, tc.cfg.Root = "mongodb://***@db/app", t.TempDir()
			if tc.name == "writer_without_engine" {
				tc.cfg.Store = ""
			}
			srv, err := mcpserver.New(tc.cfg)
			if srv != nil {
				srv.Close()
			}
			switch {
			case tc.errHas == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("New: %v, want an error containing %q", err, tc.errHas)
			}
		})
	}
}
