package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/errs"
)

// Lock handoff.
//
// bbolt holds the store's flock for as long as a handle is open, so a
// long import (minutes, for millions of documents) would lock every other
// process out until it ends: the MCP server, which opens the store for
// each call, and CLI reads would fail busy after their lock timeouts. An
// import therefore hands the store over between batches, but only when
// someone is waiting:
//
//  1. A process waiting for the lock read-locks the intent byte of the
//     file (lock_linux.go) while it polls for the flock, every lockPoll.
//  2. After each committed batch the import tests the intent byte (one
//     fcntl). Nobody waiting: it goes on, at no cost.
//  3. Somebody waiting: the import read-locks the resume byte, closes its
//     bbolt handle (dropping the flock), and waits, at most maxHandoffWait,
//     until the intent byte is free again: every waiter has its lock (a
//     reader shares it with the others) and has released the byte.
//  4. It then reopens the store, waiting for the lock up to resumeTimeout
//     (or the timeout it was opened with, when longer; a cancelled ctx
//     stops the wait), and releases the resume byte. Processes that start
//     waiting while the resume byte is held defer to it for up to
//     maxResumeDefer, so a stream of readers cannot keep the import out.
//  5. Before going on, it checks that the file is still its store: the
//     same store id, and the journal still holds its last batch (a
//     compaction in the meantime replaces the file, which is fine; a file
//     restored from an older backup is not).
//
// A reader therefore waits at most about one batch, plus a poll. The
// import's own state (its change id, shared by every batch, the input
// read ahead, the summary) lives in the import and is untouched; every
// batch checks _ids and unique keys against the store as it is then, so
// documents another writer added in between are seen. Decoded collection
// metadata is cached by content, so nothing cached can be stale.
const (
	lockPoll       = 10 * time.Millisecond
	maxHandoffWait = 500 * time.Millisecond
	maxResumeDefer = 500 * time.Millisecond
	// resumeTimeout is the least a writer that handed the store over waits
	// to take it back (its lock timeout when longer): having chosen to let
	// others in, it waits for them rather than give up its work.
	resumeTimeout = 30 * time.Second
)

// yieldLock hands the store to the processes waiting for it, if any, and
// takes it back. lsn is the journal record of the last batch the caller
// committed. It is called between the batches of an import.
func (db *DB) yieldLock(ctx context.Context, lsn uint64) error {
	if !handoffSupported || db.readOnly {
		return nil
	}
	db.swap.RLock()
	waiting := db.bolt != nil && db.file != nil && waitersIn(db.file)
	db.swap.RUnlock()
	if !waiting {
		return nil
	}
	return db.handoff(ctx, lsn)
}

func (db *DB) handoff(ctx context.Context, lsn uint64) (err error) {
	db.swap.Lock()
	defer db.swap.Unlock()
	if err := db.usable(true); err != nil {
		return err
	}
	var storeID []byte
	db.bolt.View(func(btx *bolt.Tx) error {
		storeID = bytes.Clone(btx.Bucket(bucketMeta).Get(keyStoreID))
		return nil
	})
	sig := holdResume(db.path)
	if sig != nil {
		defer sig.Close()
	}
	if err := db.bolt.Close(); err != nil {
		return db.lose(wrap(errs.IO, err, "store %s: release the lock: %v", db.path, err))
	}
	db.bolt, db.file = nil, nil
	// Let the waiters take the lock: each frees the intent byte once it
	// holds it.
	for start := time.Now(); time.Since(start) < maxHandoffWait; {
		time.Sleep(lockPoll / 5)
		if sig == nil && time.Since(start) >= 2*lockPoll || sig != nil && !waitersIn(sig) {
			break
		}
	}
	wait := max(db.timeout, resumeTimeout)
	deadline := time.Now().Add(wait)
	var bdb *bolt.DB
	var file *os.File
	for {
		// In steps of a second, to notice a cancelled ctx.
		step := min(time.Until(deadline), time.Second)
		bdb, file, err = openCurrent(db.path, max(step, time.Nanosecond), &Options{NoSync: db.noSync}, true)
		if err == nil || !errors.Is(err, ErrBusy) || time.Now().After(deadline) {
			break
		}
		if ctx.Err() != nil {
			db.lose(err)
			return ctx.Err()
		}
	}
	if err != nil {
		e := wrap(errs.Busy, ErrBusy, "store %s: the import let another process in and could not take the store back (waited %s)", db.path, wait)
		if !errors.Is(err, ErrBusy) {
			e = wrap(errs.KindOf(err), err, "store %s: the import let another process in and could not reopen it: %v", db.path, err)
		}
		e.Hint = "the batches committed so far are kept (the summary counts them); import the remaining lines when the store is free"
		return db.lose(e)
	}
	db.bolt, db.file = bdb, file
	if err := db.init(); err != nil {
		return db.lose(err)
	}
	var sameID bool
	var last uint64
	db.bolt.View(func(btx *bolt.Tx) error {
		sameID = bytes.Equal(btx.Bucket(bucketMeta).Get(keyStoreID), storeID)
		tx := &Tx{db: db, btx: btx}
		last = max(tx.LastLSN(), tx.PrunedLSN())
		return nil
	})
	if !sameID || last < lsn {
		e := wrap(errs.Conflict, ErrReplaced, "store %s was replaced while the import let another process in: its last batch (journal record %d) is not in the file now", db.path, lsn)
		e.Hint = "another process put a different or older file at this path (a restore?); check what it holds with `omgdb log " + db.path + "`, then import again"
		return db.lose(e)
	}
	return nil
}

// lose makes the handle refuse further work after a failed handoff.
func (db *DB) lose(err error) error {
	if db.bolt != nil {
		db.bolt.Close()
		db.bolt, db.file = nil, nil
	}
	db.mu.Lock()
	db.released = err
	db.mu.Unlock()
	return err
}
