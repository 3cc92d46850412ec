package mcpserver

import (
	"context"
	"testing"

	"github.com/omgdb/omgdb/internal/leakcheck"
)

// TestServer_NoLeaks makes calls that succeed, fail and panic, on a store
// opened per call, and checks that no file descriptor or goroutine is left
// behind.
func TestServer_NoLeaks(t *testing.T) {
	if !leakcheck.Supported() {
		t.Skip("no /proc/self/fd")
	}
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.standardStore()
	f.addTool(&tool{Name: "boom", Scope: ScopeRead, Run: func(context.Context, *call) (*output, error) { panic("kaboom") }})
	round := func(int) {
		f.callTool("find", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`)
		f.callTool("count", `{"path":"app.omgdb","collection":"nope"}`)
		f.callTool("count", `{"path":"missing.omgdb","collection":"users"}`)
		f.callTool("insert", `{"path":"app.omgdb","collection":"tmp","document":{"a":1}}`)
		f.callTool("describe", `{"path":"app.omgdb"}`)
		f.callTool("boom", `{}`)
		f.send(`{"jsonrpc":"2.0","id":1,"method":"nope"}`)
		f.send(`{not json`)
	}
	leakcheck.Rounds(t, 20, round)
}
