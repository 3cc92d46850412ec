package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// session is one client connection: a stdio stream or an HTTP session.
type session struct {
	srv       *Server
	transport string // "stdio" or "http"

	mu       sync.Mutex // guards the fields below
	version  string     // negotiated protocol version; "" before initialize
	client   string     // clientInfo.name from initialize
	logLevel int        // 1 + the index in logLevels of logging/setLevel's level; 0: send no log messages
	inflight map[string]*inflight

	wg sync.WaitGroup // calls in flight
}

// inflight is a call that runs in its own goroutine.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // by notifications/cancelled: its answer is dropped
}

func (s *Server) newSession(transport string) *session {
	return &session{srv: s, transport: transport, inflight: map[string]*inflight{}}
}

func (ss *session) clientName() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.client == "" {
		return "unknown"
	}
	return ss.client
}

func (ss *session) protocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// wait waits for the calls in flight.
func (ss *session) wait() { ss.wg.Wait() }

func (ss *session) cancelAll() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, f := range ss.inflight {
		f.cancelled = true
		f.cancel()
	}
}

// handleLine handles one input line (or HTTP body). reply is called with
// each answer; notifications and blank lines get none. With async, calls
// that may take long (tools/call, resources/read) and batches run in
// their own goroutine and reply from it; without, handleLine returns
// after every reply.
func (ss *session) handleLine(ctx context.Context, line []byte, tooLong bool, reply func([]byte), async bool) {
	ss.handle(ctx, readInput(line, tooLong), reply, async)
}

// handle answers a line already read. The calls it holds arrive now:
// their deadlines run from here.
func (ss *session) handle(ctx context.Context, in input, reply func([]byte), async bool) {
	ctx = withArrival(ctx, time.Now())
	switch {
	case in.err != nil:
		reply(errorMessage(nil, in.err))
	case in.batch:
		ss.handleBatch(ctx, in.msgs, reply, async)
	case len(in.msgs) == 1:
		ss.dispatch(ctx, in.msgs[0], reply, async)
	}
}

// dispatch answers one message.
func (ss *session) dispatch(ctx context.Context, m message, reply func([]byte), async bool) {
	req := m.req
	switch {
	case m.err != nil:
		reply(errorMessage(m.id, m.err))
	case req == nil: // a response from the client: nothing asked, nothing to do
	case req.notification():
		ss.notify(req)
	case req.method == "tools/call" || req.method == "resources/read":
		ss.start(ctx, req, reply, async)
	default:
		reply(ss.answer(ctx, req))
	}
}

// handleBatch handles a JSON-RPC batch, which only protocol version
// 2025-03-26 has. Its messages run one after the other, and the answers
// go back together in one array.
func (ss *session) handleBatch(ctx context.Context, msgs []message, reply func([]byte), async bool) {
	if v := ss.protocolVersion(); v != "2025-03-26" {
		if v == "" {
			v = "none was negotiated yet"
		} else {
			v = "this session speaks " + v
		}
		reply(errorMessage(nil, rpcErrorf(codeInvalidRequest,
			"invalid request: JSON-RPC batches exist only in protocol version 2025-03-26; %s", v)))
		return
	}
	if len(msgs) == 0 {
		reply(errorMessage(nil, rpcErrorf(codeInvalidRequest, "invalid request: empty batch")))
		return
	}
	run := func() {
		var answers [][]byte
		collect := func(b []byte) { answers = append(answers, b) }
		for _, m := range msgs {
			switch {
			case m.req != nil && m.req.method == "initialize":
				collect(errorMessage(m.req.id, rpcErrorf(codeInvalidRequest, "invalid request: initialize must not be part of a batch")))
			case m.nested:
				collect(errorMessage(nil, rpcErrorf(codeInvalidRequest, "invalid request: batches do not nest")))
			default:
				ss.dispatch(ctx, m, collect, false)
			}
		}
		if len(answers) > 0 {
			reply(append(append([]byte{'['}, bytes.Join(answers, []byte{','})...), ']'))
		}
	}
	if !async {
		run()
		return
	}
	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		run()
	}()
}

// start runs a call registered under its id, so that
// notifications/cancelled can stop it; with async, in its own goroutine.
func (ss *session) start(ctx context.Context, req *request, reply func([]byte), async bool) {
	key := string(req.id)
	ss.mu.Lock()
	if _, dup := ss.inflight[key]; dup {
		ss.mu.Unlock()
		reply(errorMessage(req.id, rpcErrorf(codeInvalidRequest, "invalid request: id %s is already used by a call in flight", truncate(key, 40))))
		return
	}
	if len(ss.inflight) >= maxQueued {
		ss.mu.Unlock()
		reply(errorMessage(req.id, &rpcError{code: codeServerBusy,
			msg:  fmt.Sprintf("server busy: %d calls in flight; wait for answers before sending more", maxQueued),
			data: obj("retryable", true)}))
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	f := &inflight{cancel: cancel}
	ss.inflight[key] = f
	ss.wg.Add(1)
	ss.mu.Unlock()
	run := func() {
		defer ss.wg.Done()
		defer cancel()
		msg := ss.answer(cctx, req)
		ss.mu.Lock()
		delete(ss.inflight, key)
		dropped := f.cancelled
		ss.mu.Unlock()
		if !dropped {
			reply(msg)
		}
	}
	if async {
		go run()
	} else {
		run()
	}
}

// notify handles a notification. Unknown notifications are ignored, as
// JSON-RPC requires.
func (ss *session) notify(req *request) {
	if req.method != "notifications/cancelled" {
		return
	}
	p := req.params
	if req.paramsErr != nil || p["requestId"] == nil {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if f := ss.inflight[string(p["requestId"])]; f != nil {
		f.cancelled = true
		f.cancel()
	}
}

// answer runs a request and returns the encoded response. A panic becomes
// an internal error, never a crash.
func (ss *session) answer(ctx context.Context, req *request) (msg []byte) {
	defer func() {
		if r := recover(); r != nil {
			ss.srv.cfg.Logger.Error("panic", "method", req.method, "panic", r)
			ss.srv.cfg.Logger.Debug("panic stack", "method", req.method, "stack", string(debug.Stack()))
			msg = errorMessage(req.id, rpcErrorf(codeInternalError, "internal error: %v", r))
		}
	}()
	handler := methods[req.method]
	if handler == nil {
		return errorMessage(req.id, rpcErrorf(codeMethodNotFound, "method not found: %s", truncate(req.method, 80)))
	}
	if req.paramsErr != nil {
		return errorMessage(req.id, req.paramsErr)
	}
	p := req.params
	if p == nil {
		p = params{}
	}
	result, e := handler(ss, ctx, p)
	if e != nil {
		return errorMessage(req.id, e)
	}
	return resultMessage(req.id, result)
}

// params are a request's parameters, by key, each value as sent.
type params map[string]json.RawMessage

// str returns a string parameter; a missing one is "" unless required.
func (p params) str(key string, required bool) (string, *rpcError) {
	raw, ok := p[key]
	if !ok || string(raw) == "null" {
		if required {
			return "", rpcErrorf(codeInvalidParams, "invalid params: missing %q", key)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", rpcErrorf(codeInvalidParams, "invalid params: %q must be a string", key)
	}
	return s, nil
}

// object returns an object parameter as a value.Value (missing when
// absent).
func (p params) object(key string) (value.Value, *rpcError) {
	raw, ok := p[key]
	if !ok || string(raw) == "null" {
		return value.MissingValue, nil
	}
	v, err := value.Parse(raw)
	if err != nil || v.Kind() != value.Object {
		return value.MissingValue, rpcErrorf(codeInvalidParams, "invalid params: %q must be an object", key)
	}
	return v, nil
}
