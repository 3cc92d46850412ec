package store

import (
	"fmt"

	"github.com/omgdb/omgdb/internal/spill"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// spillSort sorts as an external merge sort: the documents held so far
// (held, whose last one src has just returned; none when the sort spills
// from the start) and the rest of src go with their sort keys
// (query.Sort.AppendKey) and canonical JSON into a spill.Sorter, whose
// budget is MaxSortBytes, and come back in order. A plain collection scan
// hands over its stored JSON and decodes only the sort's fields. src is
// closed by the caller.
func spillSort(src agg.Source, q Query, held []value.Value) agg.Source {
	s := spill.New(q.SpillDir, q.MaxSortBytes)
	var key, js []byte
	add := func(d value.Value, raw []byte) error {
		key = q.Sort.AppendKey(key[:0], d)
		if raw == nil {
			js = value.AppendJSON(js[:0], d)
			raw = js
		}
		if err := s.Add(key, raw); err != nil {
			return spillError(err)
		}
		return nil
	}
	err := func() error {
		for _, d := range held {
			if err := add(d, nil); err != nil {
				return err
			}
		}
		rs, _ := src.(RawSource)
		fs, _ := src.(fieldsSource)
		dec, paths := value.NewDecoder(true), value.NewFieldSet(append(sortPaths(q.Sort), "_id"))
		for src.Next() {
			if fs != nil {
				if d, raw, ok, err := fs.storedFields(dec, paths); err != nil {
					return err
				} else if ok {
					if err := add(d, raw); err != nil {
						return err
					}
					continue
				}
			}
			var raw []byte
			if rs != nil {
				raw = rs.RawJSON()
			}
			if err := add(src.Doc(), raw); err != nil {
				return err
			}
		}
		return src.Err()
	}()
	if err != nil {
		s.Close()
		return &sliceSource{err: err}
	}
	it, err := s.Sort()
	if err != nil {
		return &sliceSource{err: spillError(err)}
	}
	return &spillSource{it: it, skip: q.Skip, limit: q.Limit}
}

// fieldsSource is a stream that can decode part of its current document.
type fieldsSource interface {
	// storedFields decodes with d what fs reaches of the current document
	// (valid until d's next document) and returns its stored JSON; ok is
	// false when the stream does not pass documents on as stored (the
	// caller then uses Doc).
	storedFields(d *value.Decoder, fs *value.FieldSet) (doc value.Value, raw []byte, ok bool, err error)
}

func sortPaths(s *query.Sort) []string {
	var paths []string
	for _, k := range s.Keys() {
		paths = append(paths, k.Path)
	}
	return paths
}

// spillError names a temporary file's failure for the user.
func spillError(err error) error {
	e := errs.Errorf(errs.IO, "the sort outgrew memory and could not use its temporary files: %v", err)
	e.Err = err
	return e.WithHint("free space in the temporary directory, or point TMPDIR at a disk with room (the sort needs about the size of the documents it sorts)")
}

// spillSource reads an external sort's result, skipping and limiting. It
// is a RawSource: each document is the canonical JSON it was sorted as.
type spillSource struct {
	it           *spill.Iter
	skip, limit  int64
	n            int64
	doc          value.Value
	parsed, done bool
	err          error
}

func (s *spillSource) Next() bool {
	if s.done || s.err != nil {
		return false
	}
	for s.skip > 0 && s.it.Next() {
		s.skip--
	}
	if (s.limit > 0 && s.n >= s.limit) || !s.it.Next() {
		s.done = true
		if err := s.it.Err(); err != nil {
			s.err = spillError(err)
		}
		return false
	}
	s.n++
	s.parsed = false
	return true
}

func (s *spillSource) Doc() value.Value {
	if !s.parsed {
		s.doc, s.parsed = value.Value{}, true
		d, err := value.Parse(s.it.Value())
		if err != nil {
			s.err = fmt.Errorf("%w: a document read back from a temporary sort file does not parse: %w", ErrCorrupt, err)
		}
		s.doc = d
	}
	return s.doc
}

func (s *spillSource) RawJSON() []byte {
	if s.done || s.err != nil {
		return nil
	}
	return s.it.Value()
}

func (s *spillSource) Err() error { return s.err }

func (s *spillSource) Close() error { return s.it.Close() }
