package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// CompactOptions configures Compact. The zero value keeps all history.
type CompactOptions struct {
	// HistoryBefore, when not 0, drops the journal records with an LSN of
	// at most HistoryBefore: the state at that revision stays reachable,
	// every earlier one is gone for good. Irreversible.
	HistoryBefore uint64
	// Timeout bounds the wait for the store's lock; 0 means DefaultTimeout.
	Timeout time.Duration
	// Progress, when set, is called as buckets are copied, with the keys
	// copied so far.
	Progress func(keys int64)
}

// CompactResult is what Compact did.
type CompactResult struct {
	Path            string `json:"path"`
	BytesBefore     int64  `json:"bytes_before"`
	BytesAfter      int64  `json:"bytes_after"`
	RecordsPruned   int64  `json:"records_pruned"`
	HistoryStartsAt uint64 `json:"history_starts_at_lsn"` // the first journal record kept
}

// Compact rewrites the store at path into a new file holding the same
// data with no free pages, optionally dropping early history, and renames
// it over the old one. It holds the store's exclusive lock throughout:
// other processes wait, and those that were waiting open the new file
// (see openCurrent). A crash leaves either the old file or the new one.
func Compact(ctx context.Context, path string, opts *CompactOptions) (*CompactResult, error) {
	if opts == nil {
		opts = &CompactOptions{}
	}
	src, err := Open(path, &Options{Timeout: opts.Timeout, Actor: "compact"})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	res := &CompactResult{Path: path, BytesBefore: src.Size()}
	removeStale(path)
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".compact-"+value.NewOID().Hex())
	defer os.Remove(tmp)
	if err := src.copyTo(ctx, tmp, opts, res); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, wrap(errs.IO, err, "compact %s: replace the file: %v", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return nil, wrap(errs.IO, err, "compact %s: sync the directory: %v", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		res.BytesAfter = fi.Size()
	}
	return res, nil
}

// removeStale deletes what a compaction killed midway left beside the
// store. Only one compaction of a store runs at a time (it holds the
// exclusive lock), so any such file is stale.
func removeStale(path string) {
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".compact-*"))
	for _, f := range stale {
		os.Remove(f)
	}
}

// copyTo writes a compacted copy of the store to a new file at tmp,
// syncing it before returning.
func (db *DB) copyTo(ctx context.Context, tmp string, opts *CompactOptions, res *CompactResult) error {
	dst, err := bolt.Open(tmp, 0o644, &bolt.Options{Timeout: time.Second, NoSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return wrap(errs.IO, err, "compact %s: create %s: %v", db.path, tmp, err)
	}
	defer dst.Close()
	cp := &copier{ctx: ctx, dst: dst, progress: opts.Progress}
	defer func() {
		if cp.tx != nil {
			cp.tx.Rollback()
		}
	}()
	cut := opts.HistoryBefore
	err = db.View(func(tx *Tx) error {
		var err error
		if cut, err = pruneCut(tx, cut); err != nil {
			return err
		}
		return tx.btx.ForEach(func(name []byte, b *bolt.Bucket) error {
			return cp.bucket([][]byte{name}, b, pruneFilter(name, cut, res))
		})
	})
	if err == nil {
		err = cp.commit()
	}
	if err == nil && cut > 0 {
		err = dst.Update(func(dtx *bolt.Tx) error {
			return dtx.Bucket(bucketMeta).Put(keyPrunedLSN, binary.BigEndian.AppendUint64(nil, cut))
		})
	}
	if err == nil {
		res.HistoryStartsAt = max(cut, db.prunedLSN()) + 1
		err = dst.Sync()
	}
	if err != nil {
		return wrap(errs.KindOf(err), err, "compact %s: %v", db.path, err)
	}
	return nil
}

func (db *DB) prunedLSN() (lsn uint64) {
	db.View(func(tx *Tx) error { lsn = tx.PrunedLSN(); return nil })
	return lsn
}

// copier copies keys into a new file in transactions of bounded size, so
// that compacting a large store does not hold it all in memory.
type copier struct {
	ctx      context.Context
	dst      *bolt.DB
	tx       *bolt.Tx
	size     int64
	keys     int64
	progress func(int64)
}

const copyTxBytes = 64 << 20

// bucket copies src, whose path from the root is path, skipping the keys
// drop says to.
func (c *copier) bucket(path [][]byte, src *bolt.Bucket, drop func([]byte) bool) error {
	if _, err := c.open(path); err != nil {
		return err
	}
	return src.ForEach(func(k, v []byte) error {
		if v == nil {
			return c.bucket(append(path[:len(path):len(path)], k), src.Bucket(k), nil)
		}
		if drop != nil && drop(k) {
			return nil
		}
		return c.put(path, k, v)
	})
}

func (c *copier) put(path [][]byte, k, v []byte) error {
	if c.keys++; c.keys%4096 == 0 {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if c.progress != nil {
			c.progress(c.keys)
		}
	}
	if c.size += int64(len(k) + len(v)); c.size > copyTxBytes {
		if err := c.commit(); err != nil {
			return err
		}
	}
	failpoint.Hit(failpoint.CompactCopy)
	b, err := c.open(path)
	if err != nil {
		return err
	}
	return b.Put(k, v)
}

// open returns the bucket at path in the current transaction, creating it
// (and a transaction) as needed. Keys arrive in order, so pages are
// filled completely.
func (c *copier) open(path [][]byte) (*bolt.Bucket, error) {
	if c.tx == nil {
		tx, err := c.dst.Begin(true)
		if err != nil {
			return nil, err
		}
		c.tx, c.size = tx, 0
	}
	b, err := c.tx.CreateBucketIfNotExists(path[0])
	for _, name := range path[1:] {
		if err != nil {
			break
		}
		b.FillPercent = 1.0
		b, err = b.CreateBucketIfNotExists(name)
	}
	if err != nil {
		return nil, err
	}
	b.FillPercent = 1.0
	return b, nil
}

func (c *copier) commit() error {
	if c.tx == nil {
		return nil
	}
	err := c.tx.Commit()
	c.tx = nil
	return err
}

// pruneCut checks where history is to be cut and moves the cut back so
// that it never splits a change (an import writes one record per batch
// under one change id): a change is kept whole or dropped whole, so a
// rollback never sees part of one.
func pruneCut(tx *Tx, before uint64) (uint64, error) {
	if before == 0 {
		return 0, nil
	}
	if last := tx.LastLSN(); before > last {
		return 0, errs.Errorf(errs.Invalid, "--history-before %d is past the end of the journal (last lsn %d)", before, last)
	}
	if p := tx.PrunedLSN(); before < p {
		return 0, errs.Errorf(errs.Invalid, "history up to lsn %d was already pruned", p)
	}
	if before == tx.LastLSN() {
		return before, nil
	}
	var next *Record
	err := tx.Journal(before+1, func(r *Record) (bool, error) { next = r; return false, nil })
	if err != nil || next == nil {
		return before, err
	}
	recs, err := tx.ChangeRecords(next.Change)
	if err != nil {
		return 0, err
	}
	if len(recs) > 0 && recs[0].LSN <= before {
		before = recs[0].LSN - 1
	}
	return before, nil
}

// pruneFilter returns which keys of a top-level bucket to drop.
func pruneFilter(bucket []byte, before uint64, res *CompactResult) func(k []byte) bool {
	if before == 0 {
		return nil
	}
	switch {
	case bytes.Equal(bucket, bucketJournal):
		return func(k []byte) bool {
			drop := len(k) == 8 && binary.BigEndian.Uint64(k) <= before
			if drop {
				res.RecordsPruned++
			}
			return drop
		}
	case bytes.Equal(bucket, bucketChanges):
		return func(k []byte) bool { return len(k) >= 8 && binary.BigEndian.Uint64(k[len(k)-8:]) <= before }
	}
	return nil
}

// PrunedLSN returns the LSN up to which compaction dropped history, or 0.
func (tx *Tx) PrunedLSN() uint64 {
	m := tx.btx.Bucket(bucketMeta)
	if m == nil || len(m.Get(keyPrunedLSN)) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(m.Get(keyPrunedLSN))
}

// BackupResult is what Backup wrote.
type BackupResult struct {
	Path       string `json:"path"`
	Output     string `json:"output"`
	Bytes      int64  `json:"bytes"`
	Compressed bool   `json:"compressed"`
	LastLSN    uint64 `json:"last_lsn"`
	Verified   bool   `json:"verified"`
}

// Backup writes a consistent copy of the store, as of one read
// transaction, to out (zstd-compressed when out ends in ".zst"). Writers
// may go on meanwhile in other processes once the read lock allows. The
// copy is written to a temporary file, synced and renamed into place;
// an existing out is never overwritten. The copy is then opened and
// verified (decompressed to a temporary file first for ".zst").
func (db *DB) Backup(ctx context.Context, out string) (*BackupResult, error) {
	if _, err := os.Lstat(out); err == nil {
		return nil, errs.Errorf(errs.Conflict, "%s already exists; backup never overwrites a file", out).
			WithHint("choose a new file name")
	}
	res := &BackupResult{Path: db.path, Output: out, Compressed: strings.HasSuffix(out, ".zst")}
	removeAbandoned(out, ".backup-")
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".backup-"+value.NewOID().Hex())
	defer os.Remove(tmp)
	err := db.View(func(tx *Tx) error {
		res.LastLSN = tx.LastLSN()
		return writeFileSynced(tmp, func(w io.Writer) error {
			w = failpoint.Writer(failpoint.BackupCopy, w)
			pw := &progressWriter{ctx: ctx, w: w, step: "copying", total: tx.btx.Size(), fn: progressOf(ctx)}
			if !res.Compressed {
				_, err := tx.btx.WriteTo(pw)
				return err
			}
			zw, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
			if err != nil {
				return err
			}
			pw.w = zw
			if _, err := tx.btx.WriteTo(pw); err != nil {
				zw.Close()
				return err
			}
			return zw.Close()
		})
	})
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err() // bbolt's copy wraps it as text
		}
		return nil, wrap(errs.IO, err, "backup %s to %s: %v", db.path, out, err)
	}
	if err := linkInto(tmp, out); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(out); err == nil {
		res.Bytes = fi.Size()
	}
	if err := VerifyBackup(ctx, out); err != nil {
		return res, err
	}
	res.Verified = true
	return res, nil
}

// VerifyBackup opens a backup (decompressing a ".zst" one to a temporary
// file) and verifies it.
func VerifyBackup(ctx context.Context, path string) error {
	step := progressOf(ctx)
	ctx = WithProgress(ctx, func(s string, done, total int64) { step("verifying: "+s, done, total) })
	file := path
	if strings.HasSuffix(path, ".zst") {
		step("decompressing to verify", 0, 0)
		tmp, err := decompressTemp(path)
		if err != nil {
			return err
		}
		defer os.Remove(tmp)
		file = tmp
	}
	db, err := Open(file, &Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	rep, err := db.Verify(ctx)
	if err != nil {
		return err
	}
	if !rep.OK {
		return errs.Errorf(errs.IO, "backup %s failed verification: %s", path, strings.Join(rep.Problems, "; "))
	}
	return nil
}

// Restore copies a backup (decompressing a ".zst" one) to a new store file
// at out, verified before it is renamed into place. An existing out is
// never overwritten.
func Restore(ctx context.Context, backup, out string) error {
	if _, err := os.Lstat(out); err == nil {
		return errs.Errorf(errs.Conflict, "%s already exists; restore never overwrites a file", out).
			WithHint("restore to a new name, then replace the store yourself once you have checked it")
	}
	removeAbandoned(out, ".restore-")
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".restore-"+value.NewOID().Hex())
	defer os.Remove(tmp)
	in, err := os.Open(backup)
	if err != nil {
		return errs.Errorf(errs.NotFound, "cannot read backup %s: %v", backup, err)
	}
	defer in.Close()
	var size int64
	if fi, err := in.Stat(); err == nil {
		size = fi.Size()
	}
	src := io.TeeReader(in, &progressWriter{ctx: ctx, w: io.Discard, step: "copying", total: size, fn: progressOf(ctx)})
	err = writeFileSynced(tmp, func(w io.Writer) error {
		if !strings.HasSuffix(backup, ".zst") {
			_, err := io.Copy(w, src)
			return err
		}
		zr, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return err
		}
		defer zr.Close()
		_, err = io.Copy(w, zr)
		return err
	})
	if err != nil {
		return wrap(errs.IO, err, "restore %s: %v", backup, err)
	}
	if err := VerifyBackup(ctx, tmp); err != nil {
		return err
	}
	return linkInto(tmp, out)
}

func decompressTemp(path string) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", errs.Errorf(errs.NotFound, "cannot read backup %s: %v", path, err)
	}
	defer in.Close()
	f, err := os.CreateTemp("", "omgdb-verify-*.omgdb")
	if err != nil {
		return "", wrap(errs.IO, err, "verify backup %s: %v", path, err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1))
	if err == nil {
		_, err = io.Copy(f, zr)
		zr.Close()
	}
	if err != nil {
		os.Remove(f.Name())
		return "", wrap(errs.IO, ErrCorrupt, "backup %s is not a valid zstd stream: %v", path, err)
	}
	return f.Name(), nil
}

// writeFileSynced creates path, lets write fill it, and fsyncs it.
func writeFileSynced(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	lockTemp(f) // marks it live for removeAbandoned; released by Close
	if err = write(f); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abandonedAge is how old a temporary file must be before removeAbandoned
// considers it: a writer locks its file at once, so an older file without
// a lock has no writer.
const abandonedAge = time.Minute

// removeAbandoned deletes the temporary files (".<out>"+kind+"<id>") that
// backups or restores to out killed midway left beside it. A live one is
// locked by its writer (writeFileSynced), so only files older than
// abandonedAge that nobody locks are removed; two backups to one name may
// run at once and each keeps its own.
func removeAbandoned(out, kind string) {
	dir, prefix := filepath.Dir(out), "."+filepath.Base(out)+kind
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < abandonedAge {
			continue
		}
		if path := filepath.Join(dir, e.Name()); tempAbandoned(path) {
			os.Remove(path)
		}
	}
}

// linkInto gives the synced file tmp the name out, refusing to replace an
// existing file, and syncs the directory.
func linkInto(tmp, out string) error {
	if err := os.Link(tmp, out); err != nil {
		if errors.Is(err, os.ErrExist) {
			return errs.Errorf(errs.Conflict, "%s already exists; omgdb never overwrites a file", out)
		}
		return wrap(errs.IO, err, "write %s: %v", out, err)
	}
	if err := syncDir(filepath.Dir(out)); err != nil {
		return wrap(errs.IO, err, "sync the directory of %s: %v", out, err)
	}
	return nil
}
