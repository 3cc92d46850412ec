package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/omgdb/omgdb/store"
)

// slowInput yields batches*per documents, pausing after each batch's worth
// of lines so that the import lasts a while.
type slowInput struct {
	n, total, per int
	pause         time.Duration
	buf           []byte
}

func (s *slowInput) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.n == s.total {
			return 0, io.EOF
		}
		if s.n > 0 && s.n%s.per == 0 {
			time.Sleep(s.pause)
		}
		s.buf = fmt.Appendf(s.buf, `{"_id":%d,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`+"\n", s.n)
		s.n++
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// TestHandoff_ReadersDuringImport: while an import runs, other handles
// (bbolt's flock is per open file, so they contend as other processes
// would) open the store read-only, and another writes: every one gets in
// within its lock timeout, readers see whole batches only, and the import
// ends with every document.
func TestHandoff_ReadersDuringImport(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the handoff signals are Linux OFD locks")
	}
	path := filepath.Join(t.TempDir(), "h.omgdb")
	db, err := store.Open(path, &store.Options{Create: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	const batches, per = 60, 100
	done := make(chan struct{})
	var sum *store.ImportSummary
	var ierr error
	go func() {
		defer close(done)
		sum, ierr = db.Import(context.Background(), "c", &slowInput{total: batches * per, per: per, pause: 15 * time.Millisecond}, &store.ImportOptions{BatchSize: per})
		db.Close() // readers that are waiting get in
	}()
	var wg sync.WaitGroup
	var reads, writes atomic.Int64
	counts := sync.Map{}
	errs := make(chan error, 8)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				rdb, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: 5 * time.Second})
				if err != nil {
					errs <- fmt.Errorf("reader: %w", err)
					return
				}
				var n int64
				err = rdb.View(func(tx *store.Tx) error {
					c, err := tx.Collection("c")
					if err != nil {
						return nil // the first batch is not committed yet
					}
					n = c.Count()
					return nil
				})
				rdb.Close()
				if err != nil {
					errs <- err
					return
				}
				if n%per != 0 {
					errs <- fmt.Errorf("a reader saw %d documents: not whole batches of %d", n, per)
					return
				}
				counts.Store(n, true)
				reads.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() { // a second writer, on another collection
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(40 * time.Millisecond):
			}
			w, err := store.Open(path, &store.Options{Timeout: 5 * time.Second})
			if err != nil {
				errs <- fmt.Errorf("writer: %w", err)
				return
			}
			err = w.Update(store.Change{}, func(tx *store.Tx) error {
				c, err := tx.CreateCollection("other")
				if err != nil {
					return err
				}
				_, err = c.InsertJSON([]byte(fmt.Sprintf(`{"_id":%d}`, i)))
				return err
			})
			w.Close()
			if err != nil {
				errs <- err
				return
			}
			writes.Add(1)
		}
	}()
	<-done
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ierr != nil {
		t.Fatalf("import: %v", ierr)
	}
	if sum.Inserted != batches*per {
		t.Errorf("import inserted %d, want %d", sum.Inserted, batches*per)
	}
	distinct := 0
	counts.Range(func(any, any) bool { distinct++; return true })
	t.Logf("%d reads (%d different counts), %d writes by another handle during a %d-batch import", reads.Load(), distinct, writes.Load(), batches)
	if distinct < 2 {
		t.Errorf("readers saw %d different counts: they did not get in during the import", distinct)
	}
	db, err = store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		if n := c.Count(); n != batches*per {
			return fmt.Errorf("count %d, want %d", n, batches*per)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	rep, err := db.Verify(context.Background())
	if err != nil || !rep.OK {
		t.Errorf("verify: %v %+v", err, rep)
	}
}

// TestHandoff_ReplacedStore: a store put at the path while the import was
// out (here: another store) stops the import with a clear error, and the
// handle refuses further work.
func TestHandoff_ReplacedStore(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the handoff signals are Linux OFD locks")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "h.omgdb")
	other := filepath.Join(dir, "other.omgdb")
	o, err := store.Open(other, &store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	started := make(chan struct{})
	in := &hookInput{slowInput: slowInput{total: 1000, per: 100, pause: 20 * time.Millisecond}, at: 300, hook: func() { close(started) }}
	done := make(chan error)
	go func() {
		_, err := db.Import(context.Background(), "c", in, &store.ImportOptions{BatchSize: 100})
		done <- err
	}()
	<-started
	// Wait for the lock, holding the intent signal, then swap the file.
	r, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	r.Close()
	err = <-done
	if !errors.Is(err, store.ErrReplaced) {
		t.Fatalf("import: %v, want ErrReplaced", err)
	}
	if err := db.View(func(*store.Tx) error { return nil }); !errors.Is(err, store.ErrBusy) {
		t.Errorf("after a failed handoff: %v, want ErrBusy", err)
	}
}

type hookInput struct {
	slowInput
	at   int
	hook func()
}

func (h *hookInput) Read(p []byte) (int, error) {
	if h.n == h.at && h.hook != nil {
		h.hook()
		h.hook = nil
	}
	return h.slowInput.Read(p)
}

// TestHandoff_CancelWhileOut: an import that handed the store to a reader
// that keeps it waits to take it back; cancelling its context stops the
// wait (within a second) and the import.
func TestHandoff_CancelWhileOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the handoff signals are Linux OFD locks")
	}
	path := filepath.Join(t.TempDir(), "h.omgdb")
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	started := make(chan struct{})
	in := &hookInput{slowInput: slowInput{total: 1000, per: 100, pause: 20 * time.Millisecond}, at: 300, hook: func() { close(started) }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error)
	go func() {
		_, err := db.Import(ctx, "c", in, &store.ImportOptions{BatchSize: 100})
		done <- err
	}()
	<-started
	r, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("import: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the import did not stop when cancelled while out of the store")
	}
}

// TestHandoff_TwoImports: two imports through two handles on one store
// take turns, batch by batch; both finish with all their documents. Each
// lasts over 1.5 s and opens with a 1 s lock timeout: without the handoff
// the second would be busy.
func TestHandoff_TwoImports(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the handoff signals are Linux OFD locks")
	}
	path := filepath.Join(t.TempDir(), "h.omgdb")
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	const batches, per = 30, 100
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := store.Open(path, &store.Options{Timeout: time.Second})
			if err != nil {
				errs[i] = err
				return
			}
			defer h.Close()
			sum, err := h.Import(context.Background(), fmt.Sprint("c", i), &slowInput{total: batches * per, per: per, pause: 50 * time.Millisecond}, &store.ImportOptions{BatchSize: per})
			if err == nil && sum.Inserted != batches*per {
				err = fmt.Errorf("inserted %d", sum.Inserted)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("import %d: %v", i, err)
		}
	}
	db, err = store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *store.Tx) error {
		for i := range 2 {
			c, err := tx.Collection(fmt.Sprint("c", i))
			if err != nil || c.Count() != batches*per {
				t.Errorf("c%d: %v", i, err)
			}
		}
		return nil
	})
}
