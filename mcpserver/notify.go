package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// Notifications the server sends while a request runs: log messages
// (the logging capability) and progress. They go back over the channel
// the request came on: the stdio stream, or the event stream of an HTTP
// POST whose client accepts one (a client that accepts only JSON gets
// none). Their text is built from fixed words, tool names, error codes,
// counts and durations only: never a message, an argument or a document,
// so that no redacted value or stored content can appear in them.

// notifierKey is the context key of the function that sends a
// notification on the request's channel.
type notifierKey struct{}

func withNotifier(ctx context.Context, send func([]byte)) context.Context {
	return context.WithValue(ctx, notifierKey{}, send)
}

func notifierFrom(ctx context.Context) func([]byte) {
	send, _ := ctx.Value(notifierKey{}).(func([]byte))
	return send
}

// notification encodes a JSON-RPC notification.
func notification(method string, params value.Value) []byte {
	return value.AppendJSON(nil, obj("jsonrpc", "2.0", "method", method, "params", params))
}

// logLevels are the protocol's levels (RFC 5424's), least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// setLevel answers logging/setLevel: the session gets log messages at
// that level and above from then on. Before it, it gets none.
func (ss *session) setLevel(_ context.Context, p params) (value.Value, *rpcError) {
	level, e := p.str("level", true)
	if e != nil {
		return value.Value{}, e
	}
	if !slices.Contains(logLevels, level) {
		return value.Value{}, rpcErrorf(codeInvalidParams, "invalid params: unknown log level %q (use one of debug, info, notice, warning, error, critical, alert, emergency)", truncate(level, 40))
	}
	ss.mu.Lock()
	ss.logLevel = slices.Index(logLevels, level) + 1
	ss.mu.Unlock()
	return obj(), nil
}

// log sends a notifications/message at level to the session, if it asked
// for that level. text must hold no document data or argument.
func (ss *session) log(ctx context.Context, level, text string) {
	send := notifierFrom(ctx)
	ss.mu.Lock()
	min := ss.logLevel
	ss.mu.Unlock()
	if send == nil || min == 0 || slices.Index(logLevels, level)+1 < min {
		return
	}
	send(notification("notifications/message", obj("level", level, "logger", "omgdb", "data", text)))
}

// logCall logs the outcome of a tool call: an error's code at warning
// (INTERNAL at error), a success at info, with what capped it at notice.
func (ss *session) logCall(ctx context.Context, name string, out *output, te *toolError, took time.Duration) {
	ms := took.Milliseconds()
	switch {
	case te != nil && te.code == CodeInternal:
		ss.log(ctx, "error", fmt.Sprintf("tool %s failed: %s after %d ms", name, te.code, ms))
	case te != nil:
		ss.log(ctx, "warning", fmt.Sprintf("tool %s refused: %s after %d ms", name, te.code, ms))
	case out != nil && !out.data.Get("applied_limits").IsMissing():
		var caps []string
		for _, f := range out.data.Get("applied_limits").Fields() {
			caps = append(caps, f.Key)
		}
		ss.log(ctx, "notice", fmt.Sprintf("tool %s answered in %d ms, capped by %v", name, ms, caps))
	default:
		ss.log(ctx, "info", fmt.Sprintf("tool %s answered in %d ms", name, ms))
	}
}

// progressEvery is how often a call that runs longer sends progress: the
// first notification comes after it has run this long.
var progressEvery = time.Second

// startProgress sends notifications/progress every progressEvery while a
// call runs, when its request carried _meta.progressToken (a string or
// an integer). The progress is the seconds elapsed: the engine does not
// know ahead how much a scan will read, so there is no total. The
// returned function stops it; no notification follows it.
func (ss *session) startProgress(ctx context.Context, p params, name string) (stop func()) {
	token, ok := progressToken(p)
	send := notifierFrom(ctx)
	if !ok || send == nil {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		start := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				secs := time.Since(start).Seconds()
				send(notification("notifications/progress", obj("progressToken", token, "progress", secs,
					"message", fmt.Sprintf("tool %s running for %.0f s", name, secs))))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); <-exited }) }
}

// progressToken returns the request's progress token, if it has one.
func progressToken(p params) (value.Value, bool) {
	var meta struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if raw := p["_meta"]; raw == nil || json.Unmarshal(raw, &meta) != nil || meta.Token == nil {
		return value.Value{}, false
	}
	v, err := value.Parse(meta.Token)
	if err != nil {
		return value.Value{}, false
	}
	if _, isInt := integer(v); v.Kind() != value.String && !isInt {
		return value.Value{}, false
	}
	return v, true
}
