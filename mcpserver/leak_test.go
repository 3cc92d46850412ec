package mcpserver

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestServer_NoLeaks makes calls that succeed, fail and panic, on a store
// opened per call, and checks that no file descriptor or goroutine is left
// behind.
func TestServer_NoLeaks(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	f := newFixture(t, Config{Scope: ScopeReadWrite})
	f.standardStore()
	f.addTool(&tool{Name: "boom", Scope: ScopeRead, Run: func(context.Context, *call) (*output, error) { panic("kaboom") }})
	round := func() {
		f.callTool("find", `{"path":"app.omgdb","collection":"users","filter":{"city":"Paris"}}`)
		f.callTool("count", `{"path":"app.omgdb","collection":"nope"}`)
		f.callTool("count", `{"path":"missing.omgdb","collection":"users"}`)
		f.callTool("insert", `{"path":"app.omgdb","collection":"tmp","document":{"a":1}}`)
		f.callTool("describe", `{"path":"app.omgdb"}`)
		f.callTool("boom", `{}`)
		f.send(`{"jsonrpc":"2.0","id":1,"method":"nope"}`)
		f.send(`{not json`)
	}
	round()
	fds, goroutines := countFDs(t), runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		round()
	}
	time.Sleep(50 * time.Millisecond)
	if got := countFDs(t); got > fds {
		t.Errorf("open file descriptors: %d before 20 rounds, %d after", fds, got)
	}
	if got := runtime.NumGoroutine(); got > goroutines {
		t.Errorf("goroutines: %d before 20 rounds, %d after", goroutines, got)
	}
}

func countFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
