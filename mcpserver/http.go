package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/omgdb/omgdb/query/errs"
)

// HTTPConfig configures the Streamable HTTP transport.
type HTTPConfig struct {
	Addr             string        // host:port to listen on
	Token            string        // bearer token every request must carry
	InsecureLoopback bool          // allow no token, on a loopback address only
	AllowRemote      bool          // allow listening on a non-loopback address
	AllowedOrigins   []string      // browser origins allowed besides loopback ones, e.g. https://app.example
	MaxSessions      int           // sessions alive at once; default 100
	IdleTimeout      time.Duration // a session unused this long ends; default 1 h
}

// Defaults of HTTPConfig.
const (
	DefaultMaxSessions = 100
	DefaultIdleTimeout = time.Hour
)

func (hc *HTTPConfig) maxSessions() int {
	if hc.MaxSessions <= 0 {
		return DefaultMaxSessions
	}
	return hc.MaxSessions
}

func (hc *HTTPConfig) idleTimeout() time.Duration {
	if hc.IdleTimeout <= 0 {
		return DefaultIdleTimeout
	}
	return hc.IdleTimeout
}

// httpState is the server's HTTP sessions.
type httpState struct {
	mu       sync.Mutex // guards sessions and the fields of each httpSession
	sessions map[string]*httpSession
}

type httpSession struct {
	sess     *session
	client   string // the remote host and clientInfo.name of its initialize
	lastUsed time.Time
	busy     int // requests being answered
}

// ListenAndServe serves MCP over Streamable HTTP on cfg.HTTP.Addr until
// ctx is done. It refuses to start without a token (unless on loopback
// with InsecureLoopback) and on a non-loopback address without
// AllowRemote. It logs the URL it listens on.
func (s *Server) ListenAndServe(ctx context.Context) error {
	hc := s.cfg.HTTP
	host, _, err := net.SplitHostPort(hc.Addr)
	if err != nil {
		return errs.Errorf(errs.Usage, "--http %s: %v", hc.Addr, err).WithHint("give host:port, e.g. 127.0.0.1:8765")
	}
	loopback := isLoopbackHost(host)
	switch {
	case !loopback && !hc.AllowRemote:
		return errs.Errorf(errs.Usage, "--http %s is not a loopback address: it would expose the store to the network", hc.Addr).
			WithHint("listen on 127.0.0.1, or pass --allow-remote if you mean it")
	case hc.Token == "" && !(loopback && hc.InsecureLoopback):
		return errs.Errorf(errs.Usage, "--http needs a bearer token: set --token or OMGDB_MCP_TOKEN").
			WithHint("on a loopback address only, --insecure-loopback serves without one")
	}
	ln, err := net.Listen("tcp", hc.Addr)
	if err != nil {
		return errs.Errorf(errs.IO, "--http %s: %v", hc.Addr, err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 5 * time.Minute}
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
		defer cancel()
		srv.Shutdown(sctx)
	})
	defer stop()
	s.cfg.Logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP serves the Streamable HTTP transport at /mcp: POST a JSON-RPC
// message and get its answer as an SSE stream of one event when Accept
// lists text/event-stream, else as JSON (202 with no body for
// notifications); DELETE to end a session. Sessions begin with
// initialize, whose answer carries Mcp-Session-Id; later requests must
// send it back. GET is 405: the server never sends messages of its own.
// GET /healthz answers "ok" to anyone, and nothing more.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/healthz" {
		healthz(w, r)
		return
	}
	if r.URL.Path != "/mcp" {
		http.Error(w, "not found: the MCP endpoint is /mcp", http.StatusNotFound)
		return
	}
	if code, msg := s.checkHTTP(r); code != 0 {
		if code == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="omgdb"`)
		}
		http.Error(w, msg, code)
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodDelete:
		if hs := s.httpSession(r.Header.Get("Mcp-Session-Id"), false); hs != nil {
			hs.sess.cancelAll()
			s.httpState.mu.Lock()
			delete(s.httpState.sessions, r.Header.Get("Mcp-Session-Id"))
			s.httpState.mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, "unknown session", http.StatusNotFound)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed: POST JSON-RPC messages to /mcp", http.StatusMethodNotAllowed)
	}
}

// checkHTTP applies the transport's guards: the Host and Origin headers
// (against DNS rebinding), the bearer token, the protocol version header.
func (s *Server) checkHTTP(r *http.Request) (int, string) {
	hc := s.cfg.HTTP
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	onLoopback := local != nil && isLoopbackAddr(local)
	if host := hostOnly(r.Host); onLoopback && !isLoopbackHost(host) {
		return http.StatusForbidden, "forbidden: Host " + r.Host + " is not a loopback name"
	}
	if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(o) {
		return http.StatusForbidden, "forbidden: Origin " + o + " is not allowed"
	}
	if hc.Token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(hc.Token)) != 1 {
			return http.StatusUnauthorized, "unauthorized: send Authorization: Bearer <token>"
		}
	} else if !(hc.InsecureLoopback && onLoopback) {
		return http.StatusUnauthorized, "unauthorized: this server has no token and is not on loopback"
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(SupportedVersions, v) {
		return http.StatusBadRequest, "bad request: unsupported MCP-Protocol-Version " + v
	}
	return 0, ""
}

func isLoopbackAddr(a net.Addr) bool {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	host, _, _ := net.SplitHostPort(a.String())
	return isLoopbackHost(host)
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

func (s *Server) originAllowed(origin string) bool {
	if slices.Contains(s.cfg.HTTP.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && isLoopbackHost(u.Hostname())
}

func (s *Server) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "unsupported media type: send Content-Type: application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxLineBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request too large: messages are limited to 4 MiB", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return
	}
	id := r.Header.Get("Mcp-Session-Id")
	in := readInput(body, false)
	var hs *httpSession
	if in.isRequest("initialize") {
		if hs, id = s.newHTTPSession(httpClient(r, in)); hs == nil {
			http.Error(w, "too many sessions: every session is answering a request; retry in a moment", http.StatusServiceUnavailable)
			return
		}
	} else if id == "" && in.isRequest("server/discover") {
		hs = &httpSession{sess: s.newSession("http")} // discovery needs no session
	} else if id == "" {
		http.Error(w, "bad request: missing Mcp-Session-Id (initialize first)", http.StatusBadRequest)
		return
	} else if hs = s.httpSession(id, true); hs == nil {
		http.Error(w, "unknown or expired session: initialize again", http.StatusNotFound)
		return
	}
	if id != "" {
		w.Header().Set("Mcp-Session-Id", id)
	}
	ctx := r.Context()
	var stream *sseStream
	if acceptsSSE(r.Header.Values("Accept")) {
		// Log and progress notifications go on the answer's event stream.
		stream = &sseStream{w: w}
		ctx = withNotifier(ctx, stream.send)
	}
	var answer []byte
	hs.sess.handle(ctx, in, func(b []byte) { answer = b }, false)
	s.httpState.done(hs, s.cfg.Now())
	if answer == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if stream != nil {
		stream.send(answer)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(answer)
}

// acceptsSSE reports whether an Accept header lists text/event-stream
// (with a q above 0). A client that accepts it gets the answer as an
// event stream, as Streamable HTTP clients expect; one that lists only
// application/json gets plain JSON.
func acceptsSSE(accept []string) bool {
	for _, h := range accept {
		for _, rng := range strings.Split(h, ",") {
			mt, params, _ := strings.Cut(rng, ";")
			if !strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				continue
			}
			q := true
			for _, p := range strings.Split(params, ";") {
				if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
					v = strings.TrimSpace(v)
					q = strings.Trim(v, "0.") != "" // q=0, q=0.0, q=0.000 refuse it
				}
			}
			return q
		}
	}
	return false
}

// sseStream is the event stream that answers a POST: the notifications
// of the call, if any, then its answer. It starts (headers, status 200)
// with the first message. Each message is one event, flushed at once; the
// stream ends with the handler, after the answer, so there is no event id
// to resume from.
type sseStream struct {
	mu      sync.Mutex // guards w and started
	w       http.ResponseWriter
	started bool
}

func (st *sseStream) send(msg []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.started {
		h := st.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		st.w.WriteHeader(http.StatusOK)
		st.started = true
	}
	var b bytes.Buffer
	b.WriteString("event: message\n")
	for line := range bytes.SplitSeq(bytes.TrimRight(msg, "\n"), []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	st.w.Write(b.Bytes())
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
}

// newHTTPSession opens a session for a client. Sessions idle longer than
// the idle timeout end first; when MaxSessions are still alive, one idle
// session (with no request being answered) ends to make room: the
// client's own oldest when it holds half the sessions or more, so that a
// client opening sessions in a loop pushes out its own; else the oldest
// of all. The client of an ended session gets 404 and initializes again,
// as Streamable HTTP has it. Only when every session is answering a
// request is there no room (nil).
func (s *Server) newHTTPSession(client string) (*httpSession, string) {
	st := s.httpState
	st.mu.Lock()
	defer st.mu.Unlock()
	now := s.cfg.Now()
	st.expire(now, s.cfg.HTTP.idleTimeout())
	limit := s.cfg.HTTP.maxSessions()
	if len(st.sessions) >= limit && !(2*st.held(client) >= limit && st.reclaimOldest(client)) && !st.reclaimOldest("") {
		return nil, ""
	}
	b := make([]byte, 16)
	rand.Read(b)
	id := hex.EncodeToString(b)
	hs := &httpSession{sess: s.newSession("http"), client: client, lastUsed: now, busy: 1}
	st.sessions[id] = hs
	return hs, id
}

// expire ends the sessions idle longer than idle. st.mu is held.
func (st *httpState) expire(now time.Time, idle time.Duration) {
	for id, hs := range st.sessions {
		if hs.busy == 0 && now.Sub(hs.lastUsed) > idle {
			st.end(id)
		}
	}
}

// held counts the sessions of a client. st.mu is held.
func (st *httpState) held(client string) int {
	n := 0
	for _, hs := range st.sessions {
		if hs.client == client {
			n++
		}
	}
	return n
}

// reclaimOldest ends the session unused the longest among those not
// answering a request (of the client, unless client is ""), and reports
// whether there was one. st.mu is held.
func (st *httpState) reclaimOldest(client string) bool {
	oldest := ""
	for id, hs := range st.sessions {
		if hs.busy == 0 && (client == "" || hs.client == client) &&
			(oldest == "" || hs.lastUsed.Before(st.sessions[oldest].lastUsed)) {
			oldest = id
		}
	}
	if oldest != "" {
		st.end(oldest)
	}
	return oldest != ""
}

// end ends a session: its calls are cancelled. st.mu is held.
func (st *httpState) end(id string) {
	st.sessions[id].sess.cancelAll()
	delete(st.sessions, id)
}

// done marks the end of a request on a session (httpSession with touch,
// or newHTTPSession, marked its start).
func (st *httpState) done(hs *httpSession, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	hs.busy--
	hs.lastUsed = now
}

// httpClient names the client of an initialize request: its remote host
// and the clientInfo.name it declares (any client can claim any name, so
// this only groups the sessions of a client that opens many).
func httpClient(r *http.Request, in input) string {
	var info struct {
		Name string `json:"name"`
	}
	json.Unmarshal(in.msgs[0].req.params["clientInfo"], &info)
	return hostOnly(r.RemoteAddr) + " " + truncate(info.Name, 64)
}

// healthz answers GET and HEAD /healthz with 200 and "ok": no version,
// no store, no session count. It needs no token, so it says nothing a
// stranger may not know.
func healthz(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, "ok\n")
}

// httpSession returns a live session, or nil. With touch, it marks the
// start of a request on it, which done ends.
func (s *Server) httpSession(id string, touch bool) *httpSession {
	st := s.httpState
	st.mu.Lock()
	defer st.mu.Unlock()
	hs := st.sessions[id]
	if hs != nil && hs.busy == 0 && s.cfg.Now().Sub(hs.lastUsed) > s.cfg.HTTP.idleTimeout() {
		st.end(id) // expired: the client initializes again
		return nil
	}
	if hs != nil && touch {
		hs.lastUsed = s.cfg.Now()
		hs.busy++
	}
	return hs
}
