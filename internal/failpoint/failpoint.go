package failpoint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Env is the environment variable read at the first Hit.
const Env = "OMGDB_FAILPOINT"

// The named points.
const (
	Commit      = "commit"       // store: the journal record is put, the transaction not yet committed
	ImportBatch = "import-batch" // store: after each document put in an import batch, before its commit
	Apply       = "apply"        // changes: after each document an apply wrote, before its commit
	Rollback    = "rollback"     // changes: after each document a rollback restored, before its commit
	CompactCopy = "compact-copy" // store: after each key copied into a compaction's new file
	BackupCopy  = "backup-copy"  // store: before each write of a backup's copy
	SpillWrite  = "spill-write"  // spill: after each run of a sort written to a temporary file
	CopyBatch   = "copy-batch"   // cli: after each batch copy inserted into MongoDB
	CarryDocs   = "carry-docs"   // mongoengine: after a carried change's documents are written, before its journal entry
)

// Points lists the named points.
var Points = []string{Commit, ImportBatch, Apply, Rollback, CompactCopy, BackupCopy, SpillWrite, CopyBatch, CarryDocs}

var (
	off   atomic.Bool // set once the point is known to be off: the fast path
	setup sync.Once   // reads Env at the first Hit
	point string      // the point that is on, written once under setup
	left  atomic.Int64
)

// Hit marks that the process reached the named point. It returns at once
// unless that point is on; at its nth hit it kills the process.
func Hit(name string) {
	if off.Load() {
		return
	}
	hit(name)
}

func hit(name string) {
	if on(name) && left.Add(-1) == 0 {
		die()
	}
}

// on reports whether the named point is on, reading Env the first time.
// A bad Env turns every point off: the engine never fails because of it.
func on(name string) bool {
	setup.Do(func() {
		if enable(os.Getenv(Env)) != nil {
			off.Store(true)
		}
	})
	return point != "" && name == point
}

// Enable turns on the point of spec ("name" or "name:n"); an empty spec
// turns failpoints off. It returns an error for an unknown name or a bad
// count, and when called after the first Hit (which read Env already).
func Enable(spec string) error {
	err := errors.New("failpoint: Enable after the first Hit")
	setup.Do(func() { err = enable(spec) })
	return err
}

func enable(spec string) error {
	if spec == "" {
		off.Store(true)
		return nil
	}
	name, count, found := strings.Cut(spec, ":")
	n := int64(1)
	if found {
		v, err := strconv.ParseInt(count, 10, 64)
		if err != nil || v < 1 {
			return fmt.Errorf("failpoint: bad count in %q", spec)
		}
		n = v
	}
	for _, p := range Points {
		if p == name {
			point = name
			left.Store(n)
			return nil
		}
	}
	return fmt.Errorf("failpoint: unknown point %q (known: %s)", name, strings.Join(Points, ", "))
}

// die kills the process with SIGKILL (TerminateProcess on Windows) and
// waits for the kernel to end it.
func die() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
	select {}
}

// Writer returns w, or when the named point is on, a writer that hits it
// before each write, so that a copy can be killed midway.
func Writer(name string, w io.Writer) io.Writer {
	if off.Load() || !on(name) {
		return w
	}
	return hitWriter{name, w}
}

type hitWriter struct {
	name string
	w    io.Writer
}

func (h hitWriter) Write(p []byte) (int, error) {
	Hit(h.name)
	return h.w.Write(p)
}
