package spill

import (
	"bufio"
	"fmt"
	"io"
)

// A Tape keeps values in the order they are appended, in memory up to a
// budget and past it in one temporary file (a run of empty keys, with the
// same guarantee that no exit path leaves it behind), and reads them back
// in that order any number of times. It is for one goroutine.
type Tape struct {
	s    *Sorter
	mem  [][]byte
	held int64
	file *run
	err  error
}

// NewTape returns a Tape that spills to dir (os.TempDir() when empty)
// past budget bytes (DefaultBudget when not positive).
func NewTape(dir string, budget int64) *Tape {
	return &Tape{s: New(dir, budget)}
}

// Append adds a value; the Tape copies it. An error (writing the file)
// is final: the Tape returns it from every later call.
func (t *Tape) Append(val []byte) error {
	if t.err != nil {
		return t.err
	}
	if t.file == nil && t.held+int64(len(val))+24 > t.s.budget && len(t.mem) > 0 {
		if t.err = t.spill(); t.err != nil {
			return t.err
		}
	}
	if t.file != nil {
		if t.err = t.file.write(nil, val); t.err != nil {
			return t.err
		}
		return nil
	}
	b := t.s.alloc(len(val))
	copy(b, val)
	t.mem = append(t.mem, b)
	t.held += int64(len(val)) + 24
	return nil
}

// spill moves the values held in memory to a new file.
func (t *Tape) spill() error {
	r, err := t.s.newRun()
	if err != nil {
		return err
	}
	for _, v := range t.mem {
		if err := r.write(nil, v); err != nil {
			r.close()
			return err
		}
	}
	t.file, t.mem, t.s.arena, t.held = r, nil, nil, 0
	t.s.stats.Runs++
	return nil
}

// Stats reports what the Tape wrote to disk.
func (t *Tape) Stats() Stats {
	st := t.s.stats
	if t.file != nil {
		st.Bytes = t.file.size
	}
	return st
}

// Reader returns a reader of every value appended so far, from the first.
func (t *Tape) Reader() (*TapeReader, error) {
	if t.err != nil {
		return nil, t.err
	}
	if t.file == nil {
		return &TapeReader{mem: t.mem}, nil
	}
	if t.file.w != nil {
		if err := t.file.w.Flush(); err != nil {
			t.err = fmt.Errorf("spill: write a temporary file: %w", err)
			return nil, t.err
		}
	}
	f := &run{count: t.file.count, left: t.file.count}
	f.r = bufio.NewReaderSize(io.NewSectionReader(t.file.f, 0, t.file.size), bufSize)
	return &TapeReader{file: f}, nil
}

// Close lets go of the Tape's file.
func (t *Tape) Close() error {
	t.mem = nil
	if t.file == nil {
		return nil
	}
	return t.file.close()
}

// A TapeReader reads a Tape's values in order.
type TapeReader struct {
	mem      [][]byte
	file     *run
	key, val []byte
	err      error
}

// Next moves to the next value and reports whether there is one.
func (r *TapeReader) Next() bool {
	if r.file == nil {
		if len(r.mem) == 0 {
			return false
		}
		r.val, r.mem = r.mem[0], r.mem[1:]
		return true
	}
	var ok bool
	r.key, r.val, ok, r.err = r.file.read(r.key[:0], r.val[:0])
	return ok
}

// Value returns the current value, valid until Next.
func (r *TapeReader) Value() []byte { return r.val }

// Err returns the error that ended the reading early, if any.
func (r *TapeReader) Err() error { return r.err }
