package spill

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/omgdb/omgdb/internal/failpoint"
)

// DefaultBudget is the memory a Sorter holds records in before it writes
// a run, when New is given none.
const DefaultBudget = 64 << 20

const (
	// recordOverhead is what a record costs in memory beside its bytes:
	// its two slice headers and its sequence number.
	recordOverhead = 56
	// chunkSize is the size of the blocks records are copied into, so
	// that a million records are a few hundred allocations.
	chunkSize = 1 << 20
	// maxFanIn bounds the runs merged at once (each holds a descriptor
	// and a read buffer); more runs are first merged into longer ones.
	maxFanIn = 64
	// maxField bounds a key or value read back from a run, so that a
	// damaged file cannot ask for a huge allocation.
	maxField = 1 << 30
	bufSize  = 256 << 10
)

// ErrDamaged reports a run file that does not read back as written.
var ErrDamaged = errors.New("spill: a temporary sort file is damaged")

// Stats says what a sort wrote to disk.
type Stats struct {
	Runs  int   // run files written, merges included
	Bytes int64 // bytes written to them
}

// A Sorter collects records and sorts them. It is for one goroutine.
type Sorter struct {
	dir    string
	budget int64
	recs   []record
	held   int64
	arena  []byte
	runs   []*run
	stats  Stats
	err    error
}

// A record is a key and a value, with the order it was added in among
// the records held in memory, which breaks ties.
type record struct {
	key, val []byte
	seq      int
}

// New returns a Sorter that writes its runs to temporary files in dir
// (os.TempDir() when empty) once the records it holds pass budget bytes
// (DefaultBudget when not positive).
func New(dir string, budget int64) *Sorter {
	if dir == "" {
		dir = os.TempDir()
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Sorter{dir: dir, budget: budget}
}

// Add adds a record; the Sorter copies key and val. An error (writing a
// run) is final: the Sorter returns it from every later call.
func (s *Sorter) Add(key, val []byte) error {
	if s.err != nil {
		return s.err
	}
	n := len(key) + len(val)
	if len(s.recs) > 0 && s.held+int64(n)+recordOverhead > s.budget {
		if err := s.spill(); err != nil {
			s.err = err
			return err
		}
	}
	b := s.alloc(n)
	copy(b, key)
	copy(b[len(key):], val)
	s.recs = append(s.recs, record{b[:len(key):len(key)], b[len(key):], len(s.recs)})
	s.held += int64(n) + recordOverhead
	return nil
}

// alloc returns n bytes from the current chunk, or a block of its own for
// a large record.
func (s *Sorter) alloc(n int) []byte {
	if n > chunkSize/4 {
		return make([]byte, n)
	}
	if len(s.arena)+n > cap(s.arena) {
		s.arena = make([]byte, 0, chunkSize)
	}
	b := s.arena[len(s.arena) : len(s.arena)+n]
	s.arena = s.arena[:len(s.arena)+n]
	return b
}

// Stats reports what the Sorter has written to disk so far.
func (s *Sorter) Stats() Stats { return s.stats }

// sortMemory sorts the records held in memory, stably: equal keys keep
// the order they were added in.
func (s *Sorter) sortMemory() {
	slices.SortFunc(s.recs, func(a, b record) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.seq - b.seq
	})
}

// spill writes the records held in memory as a run and lets them go.
func (s *Sorter) spill() error {
	s.sortMemory()
	r, err := s.newRun()
	if err != nil {
		return err
	}
	for _, rec := range s.recs {
		if err := r.write(rec.key, rec.val); err != nil {
			r.close()
			return err
		}
	}
	if err := r.finish(); err != nil {
		r.close()
		return err
	}
	failpoint.Hit(failpoint.SpillWrite)
	s.addRun(r)
	clear(s.recs)
	s.recs, s.arena, s.held = s.recs[:0], nil, 0
	return nil
}

func (s *Sorter) addRun(r *run) {
	s.runs = append(s.runs, r)
	s.stats.Runs++
	s.stats.Bytes += r.size
}

// Sort ends the adding and returns the records in order. The Iter owns
// the Sorter's files from then on; close it.
func (s *Sorter) Sort() (*Iter, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.sortMemory()
	for len(s.runs) >= maxFanIn {
		if err := s.mergeFirst(maxFanIn); err != nil {
			s.Close()
			return nil, err
		}
	}
	it := &Iter{runs: s.runs}
	for i, r := range s.runs {
		if err := r.rewind(); err != nil {
			it.Close()
			return nil, err
		}
		it.add(&cursor{idx: i, rd: r})
	}
	it.add(&cursor{idx: len(s.runs), mem: s.recs})
	s.runs, s.recs = nil, nil
	return it, nil
}

// mergeFirst merges the first n runs into one, which takes their place:
// they hold consecutive records, so the merged run keeps the order stable.
func (s *Sorter) mergeFirst(n int) error {
	it := &Iter{runs: s.runs[:n]}
	for i, r := range it.runs {
		if err := r.rewind(); err != nil {
			return err
		}
		it.add(&cursor{idx: i, rd: r})
	}
	out, err := s.newRun()
	if err != nil {
		return err
	}
	for it.Next() {
		if err := out.write(it.Key(), it.Value()); err != nil {
			out.close()
			return err
		}
	}
	if err := errors.Join(it.Err(), out.finish()); err != nil {
		out.close()
		return err
	}
	it.Close()
	s.runs = append([]*run{out}, s.runs[n:]...)
	s.stats.Runs++
	s.stats.Bytes += out.size
	return nil
}

// Close lets go of the Sorter's files, for a caller that does not Sort.
func (s *Sorter) Close() error {
	var errs []error
	for _, r := range s.runs {
		errs = append(errs, r.close())
	}
	s.runs, s.recs, s.arena = nil, nil, nil
	return errors.Join(errs...)
}

// An Iter returns the sorted records.
type Iter struct {
	heap    []*cursor
	runs    []*run
	started bool
	err     error
}

func (it *Iter) add(c *cursor) {
	if c.next() {
		it.heap = append(it.heap, c)
	} else if c.err != nil && it.err == nil {
		it.err = c.err
	}
}

// Next moves to the next record and reports whether there is one.
func (it *Iter) Next() bool {
	if it.err != nil {
		return false
	}
	if !it.started {
		it.started = true
		heap.Init(it)
		return len(it.heap) > 0
	}
	if len(it.heap) == 0 {
		return false
	}
	top := it.heap[0]
	if top.next() {
		heap.Fix(it, 0)
	} else {
		if top.err != nil {
			it.err = top.err
			return false
		}
		heap.Pop(it)
	}
	return len(it.heap) > 0
}

// Key returns the current record's key, valid until Next.
func (it *Iter) Key() []byte { return it.heap[0].key }

// Value returns the current record's value, valid until Next.
func (it *Iter) Value() []byte { return it.heap[0].val }

// Err returns the error that ended the iteration early, if any.
func (it *Iter) Err() error { return it.err }

// Close lets go of the run files.
func (it *Iter) Close() error {
	var errs []error
	for _, r := range it.runs {
		errs = append(errs, r.close())
	}
	it.runs, it.heap = nil, nil
	return errors.Join(errs...)
}

// heap.Interface over the cursors: the smallest key first, and for equal
// keys the earliest source (runs hold consecutive records, memory the
// last), which keeps the sort stable.
func (it *Iter) Len() int { return len(it.heap) }
func (it *Iter) Less(i, j int) bool {
	a, b := it.heap[i], it.heap[j]
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}
func (it *Iter) Swap(i, j int) { it.heap[i], it.heap[j] = it.heap[j], it.heap[i] }
func (it *Iter) Push(x any)    { it.heap = append(it.heap, x.(*cursor)) }
func (it *Iter) Pop() any {
	c := it.heap[len(it.heap)-1]
	it.heap = it.heap[:len(it.heap)-1]
	return c
}

// A cursor reads one sorted source: a run or the records in memory.
type cursor struct {
	idx      int
	mem      []record
	rd       *run
	key, val []byte
	err      error
}

func (c *cursor) next() bool {
	if c.rd == nil {
		if len(c.mem) == 0 {
			return false
		}
		c.key, c.val, c.mem = c.mem[0].key, c.mem[0].val, c.mem[1:]
		return true
	}
	var ok bool
	c.key, c.val, ok, c.err = c.rd.read(c.key[:0], c.val[:0])
	return ok
}

// A run is a temporary file of sorted records, each written as the
// uvarint lengths of its key and value, then the key and the value.
type run struct {
	f     *os.File
	name  string // the file's name while it could not be removed
	w     *bufio.Writer
	r     *bufio.Reader
	count int64 // records written
	left  int64 // records still to read
	size  int64
	lens  [2 * binary.MaxVarintLen64]byte
}

func (s *Sorter) newRun() (*run, error) {
	f, unnamed, err := openUnnamed(s.dir)
	if err == nil && !unnamed {
		sweepOnce(s.dir)
		f, err = os.CreateTemp(s.dir, fmt.Sprintf("%s%d-*", namePrefix, os.Getpid()))
	}
	if err != nil {
		return nil, fmt.Errorf("spill: create a temporary file for the sort: %w", err)
	}
	r := &run{f: f, w: bufio.NewWriterSize(f, bufSize)}
	if !unnamed && os.Remove(f.Name()) != nil {
		r.name = f.Name() // removed by close, or by a later sweep
	}
	return r, nil
}

// namePrefix begins the names of run files where files cannot be
// unnamed; the process id follows.
const namePrefix = "omgdb-sort-"

var swept sync.Map // directories swept by this process

// sweepOnce removes, once per directory and process, the run files that
// processes which no longer exist left behind (killed between creating a
// file and removing its name).
func sweepOnce(dir string) {
	if _, done := swept.LoadOrStore(dir, true); done {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), namePrefix)
		pid, err := strconv.Atoi(strings.Split(rest, "-")[0])
		if ok && err == nil && pid != os.Getpid() && processGone(pid) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func (r *run) write(key, val []byte) error {
	n := binary.PutUvarint(r.lens[:], uint64(len(key)))
	n += binary.PutUvarint(r.lens[n:], uint64(len(val)))
	r.w.Write(r.lens[:n])
	r.w.Write(key)
	if _, err := r.w.Write(val); err != nil {
		return fmt.Errorf("spill: write a temporary sort file: %w", err)
	}
	r.count++
	r.size += int64(n + len(key) + len(val))
	return nil
}

func (r *run) finish() error {
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("spill: write a temporary sort file: %w", err)
	}
	r.w = nil
	return nil
}

func (r *run) rewind() error {
	if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spill: read a temporary sort file: %w", err)
	}
	r.r, r.left = bufio.NewReaderSize(r.f, bufSize), r.count
	return nil
}

// read reads the next record into key and val, and reports whether there
// was one.
func (r *run) read(key, val []byte) ([]byte, []byte, bool, error) {
	if r.left == 0 {
		return key, val, false, nil
	}
	r.left--
	kn, err := binary.ReadUvarint(r.r)
	if err != nil {
		return key, val, false, r.damaged(err)
	}
	vn, err := binary.ReadUvarint(r.r)
	if err != nil || kn > maxField || vn > maxField {
		return key, val, false, r.damaged(err)
	}
	key = slices.Grow(key, int(kn))[:kn]
	val = slices.Grow(val, int(vn))[:vn]
	if _, err := io.ReadFull(r.r, key); err != nil {
		return key, val, false, r.damaged(err)
	}
	if _, err := io.ReadFull(r.r, val); err != nil {
		return key, val, false, r.damaged(err)
	}
	return key, val, true, nil
}

func (r *run) damaged(err error) error {
	if err == nil {
		err = errors.New("a length past the limit")
	}
	return fmt.Errorf("%w: %w", ErrDamaged, err)
}

func (r *run) close() error {
	err := r.f.Close()
	if r.name != "" {
		err = errors.Join(err, os.Remove(r.name))
	}
	return err
}
