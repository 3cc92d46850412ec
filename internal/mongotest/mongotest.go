package mongotest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// server is the one FerretDB of the test binary; mu guards it.
var (
	mu     sync.Mutex
	server *Server
	seq    int
)

// Server is a running embedded FerretDB.
type Server struct {
	// URI is the server's address, "mongodb://127.0.0.1:PORT/".
	URI string
	// Started is how long New took until the server answered.
	Started time.Duration

	dir    string
	cancel context.CancelFunc
	done   chan error
}

// New starts a FerretDB on the SQLite handler in a new temporary
// directory, on a free port of 127.0.0.1. Callers stop it with Close.
func New() (*Server, error) {
	begin := time.Now()
	dir, err := os.MkdirTemp("", "omgdb-ferretdb-")
	if err != nil {
		return nil, fmt.Errorf("mongotest: %w", err)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Logger:    logger(),
		Handler:   "sqlite",
		SQLiteURL: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/"}).String(),
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("mongotest: start FerretDB: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{dir: dir, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- f.Run(ctx) }()
	s.URI = f.MongoDBURI() // waits until the listener is bound
	if err := waitReady(s.URI); err != nil {
		s.Close()
		return nil, err
	}
	s.Started = time.Since(begin)
	return s, nil
}

// logger returns FerretDB's logger: silent, or warnings and errors on
// stderr when $OMGDB_FERRETDB_LOG is set (to debug the test server).
func logger() *slog.Logger {
	if os.Getenv("OMGDB_FERRETDB_LOG") == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// Close stops the server, waits for it and removes its directory.
func (s *Server) Close() error {
	s.cancel()
	err := <-s.done
	if rerr := os.RemoveAll(s.dir); err == nil {
		err = rerr
	}
	return err
}

// Start returns the test binary's server, starting it on first use, and
// the URI of a database of the caller's own ("mongodb://…/<name>"), which
// is dropped when the test ends. It skips the test when -short is given.
func Start(tb testing.TB) (s *Server, dbURI string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts the embedded FerretDB test server")
	}
	mu.Lock()
	defer mu.Unlock()
	if server == nil {
		var err error
		if server, err = New(); err != nil {
			tb.Fatal(err)
		}
	}
	seq++
	name := fmt.Sprintf("t%d_%s", seq, dbName(tb.Name()))
	s = server
	tb.Cleanup(func() { dropDatabase(tb, s.URI, name) })
	return s, strings.TrimSuffix(s.URI, "/") + "/" + name
}

// Own starts a server of the test's own, stopped when the test ends,
// for packages whose TestMain cannot call Main. It skips the test when
// -short is given.
func Own(tb testing.TB) *Server {
	tb.Helper()
	if testing.Short() {
		tb.Skip("starts the embedded FerretDB test server")
	}
	s, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("mongotest: stop FerretDB: %v", err)
		}
	})
	return s
}

// Stop stops the test binary's server, if one was started. TestMain calls
// it after m.Run.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if server != nil {
		server.Close()
		server = nil
	}
}

// Main runs a test binary's tests and then Stop: a TestMain of a
// package whose tests use Start calls it.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// dbName turns a test name into a database name MongoDB accepts (no
// '/', '.', ' ', '$', '"', at most 63 bytes in all).
func dbName(test string) string {
	b := []byte(test)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), 40)])
}
