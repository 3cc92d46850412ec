package mcpserver_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/omgdb/omgdb/internal/storetest"
)

// checkNotifications: after logging/setLevel the client gets a log
// message per call, and a call that runs past the progress interval (a
// second; 100 ms in the test's server) with a progressToken gets progress
// notifications, over the transport tested when it streams; an HTTP
// client that accepts only JSON gets none.
func checkNotifications(t *testing.T, start starter, streams bool) {
	t.Setenv("OMGDB_TEST_PROGRESS_EVERY", "100ms")
	dir := t.TempDir()
	var docs []string
	for i := range 150 {
		docs = append(docs, fmt.Sprintf(`{"_id":%d}`, i))
	}
	storetest.Create(t, filepath.Join(dir, "app.omgdb"), map[string][]string{"slow": docs})
	var mu sync.Mutex
	var logs []string
	var progress []float64
	clientOptions = &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, fmt.Sprintf("%s %v", r.Params.Level, r.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			if r.Params.ProgressToken == "e2e" {
				progress = append(progress, r.Params.Progress)
			}
		},
	}
	defer func() { clientOptions = nil }()
	cs := start(t, dir, "--timeout", "60s")
	ctx := context.Background()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "verbose"}); err == nil {
		t.Errorf("logging/setLevel verbose: no error")
	}
	slow := m{"path": "app.omgdb", "collection": "slow", "filter": m{"$expr": m{"$gt": []any{m{"$size": m{"$range": []any{0, 200000}}}, 0}}}}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count", Arguments: slow, Meta: mcp.Meta{"progressToken": "e2e"}})
	if err != nil || res.IsError {
		t.Fatalf("slow count: %v %v", res, err)
	}
	// The client hands notifications to its handlers asynchronously.
	for i := 0; i < 100 && streams; i++ {
		mu.Lock()
		n := len(logs)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if !streams {
		if len(progress)+len(logs) != 0 {
			t.Errorf("notifications to a client that accepts only JSON: %v %v", progress, logs)
		}
		return
	}
	if len(progress) == 0 || !slices.IsSorted(progress) {
		t.Errorf("progress of a call past the progress interval: %v", progress)
	}
	if len(logs) != 1 || !strings.HasPrefix(logs[0], "info tool count answered") {
		t.Errorf("log messages: %v", logs)
	}
}
