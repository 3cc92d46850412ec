package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/faults"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The fault tests run a child that writes, meets an injected I/O fault,
// and reports what it saw; the parent then reopens the store and checks
// that nothing acknowledged was lost, that the failed transaction left
// nothing behind, and that the store verifies clean and takes writes
// again. Faults are injected at the process level because bbolt does its
// own file I/O: RLIMIT_FSIZE for a full disk (EFBIG), and a seccomp filter
// for failing fdatasync (EIO) and failing page writes (ENOSPC). Besides
// the full disk (an import), each fault fails each of faultOps.
var faultCases = []struct {
	name  string
	errno syscall.Errno // what errors.Is finds in the error; 0 where bbolt formats it away
	text  string        // what the message says
}{
	{"disk-full", 0, "file too large"},                           // RLIMIT_FSIZE just above the file's size, then import until it is reached
	{"fdatasync-eio", syscall.EIO, "input/output error"},         // every fdatasync and fsync fails
	{"pwrite-enospc", syscall.ENOSPC, "no space left on device"}, // every page write fails
	{"meta-write-eio", syscall.EIO, "input/output error"},        // the data pages are written and synced, the meta page write fails
}

// faultOps are the writes whose commit the faults fail: an insert of new
// documents, and the changes package's one-step update (setting "gone" in
// every document), one-step delete (of every document) and rename (of "c"
// to "moved"). A failed one leaves "c" exactly as acknowledged.
var faultOps = []string{"insert", "update", "delete", "rename"}

func TestFault_CommitFails(t *testing.T) {
	if !faults.Supported() {
		t.Skip("fault injection needs Linux on amd64 or arm64")
	}
	for _, fc := range faultCases {
		ops := faultOps
		if fc.name == "disk-full" {
			ops = []string{"import"}
		}
		for _, op := range ops {
			t.Run(fc.name+"/"+op, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "f.omgdb")
				o, err := crashtest.Complete("faults", []string{path, fc.name, op})
				if err != nil {
					t.Fatal(err)
				}
				checkFaultOutcome(t, path, fc.errno, fc.text, o.Lines)
			})
		}
	}
}

// checkFaultOutcome reads the child's report:
//
//	ack <id>…             documents committed before the fault
//	failed <id>…          documents of the transaction whose commit failed
//	error <message>       its error
//	errno <n>             the errno errors.Is found in it (0: none)
//	summary <inserted>    an import's summary (disk-full)
//	after <write> <read>  whether later writes and reads got ErrFailed
func checkFaultOutcome(t *testing.T, path string, errno syscall.Errno, text string, lines []string) {
	t.Helper()
	var acked, failed []string
	report := map[string]string{}
	for _, l := range lines {
		kind, rest, _ := strings.Cut(l, " ")
		switch kind {
		case "ack":
			acked = append(acked, strings.Fields(rest)...)
		case "failed":
			failed = append(failed, strings.Fields(rest)...)
		default:
			report[kind] = rest
		}
	}
	if len(acked) == 0 {
		t.Fatalf("the child acknowledged nothing before the fault: %q", lines)
	}
	if msg := report["error"]; !strings.Contains(msg, "commit to "+path+" failed") || !strings.Contains(msg, text) {
		t.Errorf("error = %q, want a commit failure saying %q", msg, text)
	}
	if report["errno"] != strconv.Itoa(int(errno)) {
		t.Errorf("errors.Is found errno %s in the error, want %d (%v)", report["errno"], errno, errno)
	}
	if report["after"] != "ErrFailed ErrFailed" {
		t.Errorf("after the failed commit, write and read returned %q, want ErrFailed for both", report["after"])
	}
	present := faultStoreIDs(t, path)
	for _, id := range acked {
		if !present[id] {
			t.Errorf("acknowledged document %s lost", id)
		}
	}
	for _, id := range failed {
		if present[id] {
			t.Errorf("document %s of the failed commit is in the store", id)
		}
	}
	if s, ok := report["summary"]; ok && s != strconv.Itoa(len(present)) {
		t.Errorf("import summary says %s documents inserted, the store holds %d", s, len(present))
	}
	if len(present) != len(acked) {
		t.Errorf("store holds %d documents, %d were acknowledged", len(present), len(acked))
	}
	t.Logf("%d acknowledged documents kept, %d of the failed commit absent; %s", len(acked), len(failed), report["error"])
}

// faultStoreIDs reopens the store, writes to it (it must take writes
// again), verifies it and returns the ids of collection "c". No failed
// update, delete or rename may show: no document has "gone", and there is
// no collection "moved".
func faultStoreIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	db, err := store.Open(path, &store.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("reopen after the fault: %v", err)
	}
	defer db.Close()
	if err := db.Update(store.Change{}, func(tx *store.Tx) error {
		_, err := tx.CreateCollection("after")
		return err
	}); err != nil {
		t.Errorf("write after reopening: %v", err)
	}
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK {
		t.Fatalf("verify after the fault: %v %v", err, rep.Problems)
	}
	ids := map[string]bool{}
	db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		for cur := c.Scan(); cur.Next(); {
			ids[cur.Doc().Get("_id").Str()] = true
			if !cur.Doc().Get("gone").IsMissing() {
				t.Errorf("document %s holds the failed update: %s", cur.Doc().Get("_id"), cur.Doc())
			}
		}
		if _, err := tx.Collection("moved"); err == nil {
			t.Error("the failed rename's collection exists")
		}
		return nil
	})
	return ids
}

// faultChild is the child of the fault tests: args are the store path,
// the fault and the write it fails (faultOps, or import).
func faultChild(w io.Writer, args []string) error {
	path, fault, op := args[0], args[1], args[2]
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		return err
	}
	say := func(format string, a ...any) { io.WriteString(w, fmt.Sprintf(format, a...)+"\n") }
	say("ready")
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("before-%d", i)
		if err := faultInsert(db, id); err != nil {
			return err
		}
		say("ack %s", id)
	}
	if err := injectFault(fault, db.Size()); err != nil {
		return err
	}
	err = faultWrite(db, fault, op, say)
	var errno syscall.Errno
	for _, e := range []syscall.Errno{syscall.EFBIG, syscall.EIO, syscall.ENOSPC} {
		if errors.Is(err, e) {
			errno = e
		}
	}
	say("error %v", err)
	say("errno %d", errno)
	werr := faultInsert(db, "after")
	rerr := db.View(func(*store.Tx) error { return nil })
	say("after %s %s", failedName(werr), failedName(rerr))
	return db.Close()
}

func injectFault(fault string, size int64) error {
	switch fault {
	case "disk-full":
		return faults.LimitFileSize(size + 256<<10)
	case "fdatasync-eio":
		return faults.FailSyscalls([]faults.Rule{{Syscall: "fdatasync", Errno: syscall.EIO}, {Syscall: "fsync", Errno: syscall.EIO}})
	case "pwrite-enospc":
		return faults.FailSyscalls([]faults.Rule{{Syscall: "pwrite64", Errno: syscall.ENOSPC}})
	case "meta-write-eio": // bbolt's meta pages are pages 0 and 1
		return faults.FailSyscalls([]faults.Rule{{Syscall: "pwrite64", Errno: syscall.EIO, OffsetBelow: uint32(2 * os.Getpagesize())}})
	}
	return fmt.Errorf("unknown fault %q", fault)
}

// faultWrite writes until the fault makes a commit fail: an import for
// the full disk (acknowledging each batch), one transaction (op)
// otherwise.
func faultWrite(db *store.DB, fault, op string, say func(string, ...any)) error {
	if fault != "disk-full" {
		return faultOp(db, op, say)
	}
	pr, pw := io.Pipe()
	go func() {
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(pw, `{"_id":"imp-%d","pad":"%s"}`+"\n", i, strings.Repeat("p", 400)); err != nil {
				return
			}
		}
	}()
	defer pr.Close()
	next := 0
	sum, err := db.Import(context.Background(), "c", pr, &store.ImportOptions{BatchSize: 50, Progress: func(lines, _ int64) {
		var ids []string
		for ; next < int(lines); next++ {
			ids = append(ids, fmt.Sprintf("imp-%d", next))
		}
		say("ack %s", strings.Join(ids, " "))
	}})
	var ids []string
	for i := next; i < next+50; i++ {
		ids = append(ids, fmt.Sprintf("imp-%d", i))
	}
	say("failed %s", strings.Join(ids, " "))
	say("summary %d", sum.Inserted+5)
	return err
}

// faultOp makes one write of faultOps, whose commit fails.
func faultOp(db *store.DB, op string, say func(string, ...any)) error {
	ctx, all := context.Background(), value.MustParse(`{}`)
	var err error
	switch op {
	case "insert":
		var ids []string
		for i := 0; i < 10; i++ {
			ids = append(ids, fmt.Sprintf("failed-%d", i))
		}
		say("failed %s", strings.Join(ids, " "))
		return faultInsert(db, ids...)
	case "update":
		_, err = changes.Update(ctx, db, "c", all, value.MustParse(`{"$set":{"gone":true}}`), nil)
	case "delete":
		_, err = changes.Delete(ctx, db, "c", all, nil)
	case "rename":
		_, err = changes.RenameCollection(ctx, db, "c", "moved", nil)
	default:
		err = fmt.Errorf("unknown write %q", op)
	}
	return err
}

func faultInsert(db *store.DB, ids ...string) error {
	return db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection("c")
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := c.Insert(value.ObjectValue([]value.Field{{Key: "_id", Value: value.StringValue(id)}})); err != nil {
				return err
			}
		}
		return nil
	})
}

func failedName(err error) string {
	if errors.Is(err, store.ErrFailed) {
		return "ErrFailed"
	}
	return fmt.Sprint(err)
}

// TestFault_InjectionWorks makes sure the injection itself works here, so
// that a fault test cannot pass because no fault happened.
func TestFault_InjectionWorks(t *testing.T) {
	if !faults.Supported() {
		t.Skip("fault injection needs Linux on amd64 or arm64")
	}
	o, err := crashtest.Complete("faults", []string{filepath.Join(t.TempDir(), "g.omgdb"), "fdatasync-eio", "insert"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(o.Lines, "\n"), "input/output error") {
		t.Fatalf("no EIO seen: %q", o.Lines)
	}
}
