package agg

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Spilling $setWindowFields (PipelineOptions.SpillDir). An input within
// MaxMemory is computed in memory, as without a SpillDir. Past it, every
// document goes to an external sort (internal/spill) under its partition
// key followed by its sortBy key (value.SortSpec.AppendOrderKey: ties keep
// the input order, as the sort in memory does), and is read back one
// partition at a time:
//
//   - a partition that fits in MaxMemory is computed as in memory;
//   - a bigger one is computed in chunks when every output's value for a
//     document depends only on the documents at most a fixed number of
//     places before and after it (its reach): a window with two numeric
//     "documents" bounds ([-1,1], [-6,0], ["current",3]) or $shift. A chunk
//     of about MaxMemory of documents is computed as a partition, with the
//     reach's documents on either side, and the outputs of its middle are
//     kept; the next chunk starts where they end;
//   - any other output (a window with an "unbounded" or a "range" bound, no
//     window, $rank, $denseRank, $documentNumber, $expMovingAvg, $locf,
//     $linearFill) needs its whole partition, and a partition bigger than
//     MaxMemory fails with ErrMemoryLimit and a hint, as does a reach too
//     wide for a chunk.
//
// The stage then holds about three times MaxMemory at most: a chunk, the
// outputs of the previous one not yet read, and the spill's own buffer.

// reacher is a window function that can say its reach: the output for the
// document at position i depends only on the documents at positions
// i+lo to i+hi of its partition (lo <= 0 <= hi), and on which of those
// exist.
type reacher interface {
	reach() (lo, hi int, ok bool)
}

// reach is a window's: bounded when both bounds are positions.
func (w window) reach() (lo, hi int, ok bool) {
	if w.byRange || w.lower.unbounded || w.upper.unbounded {
		return 0, 0, false
	}
	return min(int(w.lower.offset()), 0), max(int(w.upper.offset()), 0), true
}

func (f *accFunc) reach() (int, int, bool)        { return f.w.reach() }
func (f *rateFunc) reach() (int, int, bool)       { return f.w.reach() }
func (f *covarianceFunc) reach() (int, int, bool) { return f.w.reach() }
func (f *shiftFunc) reach() (int, int, bool)      { return min(int(f.by), 0), max(int(f.by), 0), true }

// windowSpill reads a spilled $setWindowFields input back and computes it.
type windowSpill struct {
	s   *windowStage
	r   *runState
	max int64

	sp   *spilled // the sorted input; sp.doc is the next document when more
	more bool

	open    bool          // a partition is being read
	part    []byte        // its key
	buf     []value.Value // its documents from position g0 on
	g0      int
	emitted int   // its documents before this position have their outputs in ready
	bytes   int64 // what buf counts against MaxMemory
	ready   []value.Value
}

func (s *windowStage) runSpilling(r *runState, in Source) Source {
	ws := &windowSpill{s: s, r: r, max: r.opts.MaxMemory}
	started := false
	src := &funcSource{next: func() (value.Value, bool, error) {
		if !started {
			started = true
			if err := ws.fill(in); err != nil {
				return value.Value{}, false, err
			}
		}
		return ws.next()
	}}
	src.onClose = func() error {
		ws.close()
		return in.Close()
	}
	return src
}

// fill reads the input: computed in memory when it fits, else spilled and
// sorted, ready to be read back.
func (ws *windowSpill) fill(in Source) error {
	s, r := ws.s, ws.r
	var items []windowItem
	var used int64
	var sp *spiller
	err := r.drain(in, func(doc value.Value) error {
		it, err := s.item(r, doc)
		if err != nil {
			return err
		}
		if sp != nil {
			return ws.add(sp, it)
		}
		if size := itemSize(doc); used+size <= ws.max {
			used += size
			items = append(items, it)
			return nil
		}
		sp = r.spiller()
		for _, it := range items {
			if err := ws.add(sp, it); err != nil {
				return err
			}
		}
		items = nil
		return ws.add(sp, it)
	})
	if err != nil {
		if sp != nil {
			sp.s.Close()
		}
		return err
	}
	if sp == nil {
		ws.ready, err = s.computeAll(r, items)
		return err
	}
	it, err := sp.s.Sort()
	if err != nil {
		return spillError(err)
	}
	ws.sp = &spilled{it: it}
	ws.more = ws.sp.next()
	return ws.sp.err
}

// add spills an item under its partition key and sortBy key.
func (ws *windowSpill) add(sp *spiller, it windowItem) error {
	sp.key = append(sp.key[:0], it.part...)
	if ws.s.sort != nil {
		sp.key = ws.s.sort.AppendOrderKey(sp.key, it.doc)
	}
	return sp.add(sp.key, it.doc)
}

// partOf returns the partition key at the start of a spilled key.
func (ws *windowSpill) partOf(key []byte) []byte {
	if ws.s.partition == nil {
		return nil
	}
	if n := value.KeyLen(key, false); n > 0 {
		return key[:n]
	}
	return key
}

func (ws *windowSpill) next() (value.Value, bool, error) {
	for len(ws.ready) == 0 {
		if !ws.more && !ws.open {
			return value.Value{}, false, nil
		}
		if err := ws.step(); err != nil {
			return value.Value{}, false, err
		}
	}
	d := ws.ready[0]
	ws.ready[0] = value.Value{}
	ws.ready = ws.ready[1:]
	return d, true, nil
}

// step reads the current partition on, to its end or to MaxMemory, and
// computes what it read.
func (ws *windowSpill) step() error {
	if !ws.open {
		ws.open, ws.g0, ws.emitted, ws.bytes = true, 0, 0, 0
		ws.part = append(ws.part[:0], ws.partOf(ws.sp.key())...)
	}
	for ws.more && ws.bytes <= ws.max && bytes.Equal(ws.partOf(ws.sp.key()), ws.part) {
		ws.buf = append(ws.buf, ws.sp.doc)
		ws.bytes += itemSize(ws.sp.doc)
		ws.more = ws.sp.next()
		if ws.sp.err != nil {
			return ws.sp.err
		}
		if ws.r.ctx.Err() != nil {
			return ws.r.ctx.Err()
		}
	}
	if !ws.more || !bytes.Equal(ws.partOf(ws.sp.key()), ws.part) {
		return ws.flush(true)
	}
	return ws.flush(false)
}

// flush computes the documents in buf as a partition and keeps the
// outputs of those whose reach lies in buf: all of them at the end of the
// partition (last), else all but the last hi. It then drops the documents
// no later output reaches.
func (ws *windowSpill) flush(last bool) error {
	end := ws.g0 + len(ws.buf)
	lo, hi := 0, 0
	if !last {
		var err error
		if lo, hi, err = ws.reach(); err != nil {
			return err
		}
		if end -= hi; end <= ws.emitted {
			return ws.tooBig(fmt.Sprintf("its window reaches %d document(s) ahead and %d behind, more than fit", hi, -lo))
		}
	}
	items := make([]windowItem, len(ws.buf))
	for i, d := range ws.buf {
		items[i].doc = d
		if ws.s.sort != nil {
			items[i].keys = ws.s.sort.Keys(d)
		}
	}
	out, err := ws.s.computePartition(ws.r, items)
	if err != nil {
		return err
	}
	ws.ready = append(ws.ready, out[ws.emitted-ws.g0:end-ws.g0]...)
	ws.emitted = end
	if last {
		ws.open, ws.buf = false, nil
		return nil
	}
	keep := max(ws.g0, ws.emitted+lo)
	ws.buf = slices.Clone(ws.buf[keep-ws.g0:])
	ws.g0, ws.bytes = keep, 0
	for _, d := range ws.buf {
		ws.bytes += itemSize(d)
	}
	return nil
}

// reach is the widest reach of the outputs, or the error of an output
// that needs its whole partition.
func (ws *windowSpill) reach() (lo, hi int, err error) {
	for _, o := range ws.s.outputs {
		rc, ok := o.fn.(reacher)
		var l, h int
		if ok {
			l, h, ok = rc.reach()
		}
		if !ok {
			return 0, 0, ws.tooBig(fmt.Sprintf("output `%s` needs the whole partition (a window with an \"unbounded\" or \"range\" bound, no window, $rank, $denseRank, $documentNumber, $expMovingAvg, $locf or $linearFill)", strings.Join(o.path, ".")))
		}
		lo, hi = min(lo, l), max(hi, h)
	}
	return lo, hi, nil
}

// tooBig is the error of a partition bigger than MaxMemory that the stage
// cannot compute in chunks.
func (ws *windowSpill) tooBig(why string) error {
	e := errs.Errorf(errs.Limit, "$setWindowFields: a partition holds more than the aggregation memory limit of %s, and %s", formatBytes(ws.max), why)
	e.Err = ErrMemoryLimit
	return e.WithHint(`partition more finely (partitionBy), bound each window by documents on both sides ("window":{"documents":[-10,0]}), or raise the memory limit`)
}

func (ws *windowSpill) close() {
	if ws.sp != nil {
		ws.sp.it.Close()
	}
}
