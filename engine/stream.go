package engine

import (
	"context"
	"errors"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// Stream turns a read that passes documents to a function (a Reader's
// Find or Aggregate) into an agg.Source that hands them out one at a
// time: read runs in a goroutine and waits for each Next, so no more than
// one document is held, and a reader of the source can stop early. Close
// cancels read's context and waits for it to return; it is idempotent.
func Stream(ctx context.Context, read func(ctx context.Context, each func(value.Value) error) error) agg.Source {
	ctx, cancel := context.WithCancel(ctx)
	s := &stream{docs: make(chan value.Value), cancel: cancel}
	go func() {
		defer close(s.docs)
		s.err = read(ctx, func(doc value.Value) error {
			select {
			case s.docs <- doc:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return s
}

// stream is Stream's source. err is written by the goroutine before it
// closes docs and read only after docs is closed.
type stream struct {
	docs   chan value.Value
	cancel context.CancelFunc
	doc    value.Value
	err    error
	ended  bool // docs is closed and drained
	closed bool
}

func (s *stream) Next() bool {
	if s.ended {
		return false
	}
	doc, ok := <-s.docs
	if !ok {
		s.ended = true
		s.cancel()
		return false
	}
	s.doc = doc
	return true
}

func (s *stream) Doc() value.Value { return s.doc }

// Err is the read's error once the documents are all read (a read stopped
// by Close has none).
func (s *stream) Err() error {
	if !s.ended || s.closed && errors.Is(s.err, context.Canceled) {
		return nil
	}
	return s.err
}

func (s *stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.cancel()
	for range s.docs {
	}
	s.ended = true
	return nil
}
