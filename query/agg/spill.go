package agg

import (
	"github.com/omgdb/omgdb/internal/spill"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Spilling: past MaxMemory, with PipelineOptions.SpillDir set, $sort and
// $group keep going in temporary files (internal/spill), as MongoDB's
// allowDiskUse does.

// spiller writes documents under byte keys to a spill.Sorter.
type spiller struct {
	s   *spill.Sorter
	js  []byte
	key []byte
}

func (r *runState) spiller() *spiller {
	return &spiller{s: spill.New(r.opts.SpillDir, r.opts.MaxMemory)}
}

func (sp *spiller) add(key []byte, doc value.Value) error {
	sp.js = value.AppendJSON(sp.js[:0], doc)
	if err := sp.s.Add(key, sp.js); err != nil {
		return spillError(err)
	}
	return nil
}

// spillError names a temporary file's failure for the user.
func spillError(err error) error {
	e := errs.Errorf(errs.IO, "the aggregation outgrew memory and could not use its temporary files: %v", err)
	e.Err = err
	return e.WithHint("free space in the temporary directory, or point TMPDIR at a disk with room (a stage needs about the size of the documents it holds)")
}

// spilled is a sorted spill read back: each record's key and document.
type spilled struct {
	it  *spill.Iter
	doc value.Value
	err error
}

// next reads the next record; false at the end or on an error (err).
func (s *spilled) next() bool {
	if s.err != nil || !s.it.Next() {
		if s.err == nil && s.it.Err() != nil {
			s.err = spillError(s.it.Err())
		}
		return false
	}
	if s.doc, s.err = value.Parse(s.it.Value()); s.err != nil {
		s.err = spillError(s.err)
		return false
	}
	return true
}

func (s *spilled) key() []byte { return s.it.Key() }
