package changes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Plans live in the store file, in its plans area (store.Plans): per
// token, a header and the items in chunks of up to chunkItems lines: the
// chunk's store.PlanItems part holds their identity
// ({"coll","id","op","digest"}) and its store.PlanAfters part their
// after-images, line for line ("null" for none). Before-images are
// not stored: an item's is the document whose bytes have its digest (none
// when the digest is empty), which is the current document until the plan
// goes stale, and the journal's before-image of its first change after
// the plan's base LSN once it is (see planBefore). Plans written before
// this held them in a store.PlanBefores part; they are read when present.
// Chunks are written as the plan is computed and read one at a time,
// so memory stays bounded by a chunk whatever the plan's size; apply checks
// the items first and parses after-images only to write them. Every
// value is a store.Blob (checksummed; compressed when large). Applying, discarding or
// expiring a plan drops its items and keeps its header, so a token keeps
// saying what became of it.
const (
	chunkItems = 1024    // items per chunk at most
	chunkBytes = 1 << 20 // bytes per chunk, roughly
)

// storedPlan is the header as stored: the plan plus its bookkeeping.
type storedPlan struct {
	*Plan
	Items     int  `json:"items"`
	UpsertNew bool `json:"upsert_new,omitempty"`
}

// loadPlan reads a plan's header. An unknown token is a NotFound error.
func loadPlan(tx *store.Tx, token string) (*Plan, error) {
	raw, ok := tx.Plans().Header(token)
	if !ok {
		return nil, wrap(errs.NotFound, ErrNotFound, "no plan with token %s", token).
			WithHint("list pending plans with `omgdb plans %s`; plans expire after 24 h", tx.DB().Path())
	}
	return decodeHeader(token, raw)
}

func decodeHeader(token string, raw store.Blob) (*Plan, error) {
	js, err := store.DecodeBlob(raw)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", token, err)
	}
	sp := storedPlan{Plan: &Plan{}}
	if err := json.Unmarshal(js, &sp); err != nil {
		return nil, errs.Errorf(errs.IO, "plan %s: unreadable header: %v", token, err)
	}
	sp.Plan.items, sp.Plan.upsertNew = sp.Items, sp.UpsertNew
	return sp.Plan, nil
}

// saveHeader writes a plan's header, creating the plan if needed.
func saveHeader(tx *store.Tx, p *Plan) error {
	js, err := json.Marshal(storedPlan{Plan: p, Items: p.items, UpsertNew: p.upsertNew})
	if err != nil {
		return err
	}
	return tx.Plans().PutHeader(p.Token, js)
}

// planWriter writes a new plan's items as they are found. A full chunk is
// compressed on a goroutine of its own while the planner goes on (on a
// plan of 83,000 updates, compression was a third of the planning
// goroutine's time); the compressed chunks are written in order, by the
// caller's goroutine, as they are ready, with at most maxCompressing
// chunks in flight.
type planWriter struct {
	plans         store.Plans
	token         string
	seq           uint32
	n             int
	items, afters []byte
	compressing   []*chunkJob // in sequence order
	spare         [][]byte    // buffers of written chunks, for reuse
}

// chunkJob is a chunk being compressed.
type chunkJob struct {
	seq  uint32
	in   [2][]byte     // the item and after-image lines
	out  [2]store.Blob // the same compressed, once done is closed
	done chan struct{}
}

const maxCompressing = 4

func newPlanWriter(tx *store.Tx, token string) (*planWriter, error) {
	if err := tx.Plans().Create(token); err != nil {
		return nil, err
	}
	return &planWriter{plans: tx.Plans(), token: token}, nil
}

func (w *planWriter) add(it *item) error {
	w.items = append(value.AppendJSON(w.items, it.value()), '\n')
	w.afters = append(appendImage(w.afters, it.after, it.afterJSON), '\n')
	if w.n++; w.n >= chunkItems || len(w.items)+len(w.afters) >= chunkBytes {
		return w.flush()
	}
	return nil
}

// appendImage appends a document image: its JSON when the item has it
// (the same bytes AppendJSON writes), else its value encoded.
func appendImage(dst []byte, v value.Value, js []byte) []byte {
	if js != nil {
		return append(dst, js...)
	}
	return value.AppendJSON(dst, v)
}

// flush starts compressing the chunk being filled, and writes the chunks
// compressed by now.
func (w *planWriter) flush() error {
	if w.n == 0 {
		return nil
	}
	job := &chunkJob{seq: w.seq, in: [2][]byte{w.items, w.afters}, done: make(chan struct{})}
	go func() {
		defer close(job.done)
		job.out = [2]store.Blob{store.EncodeBlobFast(job.in[0]), store.EncodeBlobFast(job.in[1])}
	}()
	w.compressing = append(w.compressing, job)
	w.seq, w.n = w.seq+1, 0
	w.items, w.afters = w.buffer(), w.buffer()
	return w.write(len(w.compressing) >= maxCompressing)
}

// buffer returns an empty buffer for a chunk's lines.
func (w *planWriter) buffer() []byte {
	if n := len(w.spare); n > 0 {
		b := w.spare[n-1][:0]
		w.spare = w.spare[:n-1]
		return b
	}
	return nil
}

// write puts the compressed chunks at the front of the queue: those done,
// and with wait the first one whatever it takes.
func (w *planWriter) write(wait bool) error {
	for len(w.compressing) > 0 {
		job := w.compressing[0]
		select {
		case <-job.done:
		default:
			if !wait {
				return nil
			}
			<-job.done
		}
		wait = false
		w.compressing = w.compressing[1:]
		for i, part := range []store.PlanPart{store.PlanItems, store.PlanAfters} {
			// The store keeps the value until the commit: put the compressed
			// copy, and reuse the lines' buffer, which it never sees.
			if err := w.plans.PutChunk(w.token, part, job.seq, job.out[i]); err != nil {
				return err
			}
			w.spare = append(w.spare, job.in[i])
		}
	}
	return nil
}

// close writes the last chunk and waits for every chunk to be written.
func (w *planWriter) close() error {
	if err := w.flush(); err != nil {
		return err
	}
	for len(w.compressing) > 0 {
		if err := w.write(true); err != nil {
			return err
		}
	}
	return nil
}

// finish waits for the chunks still being compressed and drops them: the
// planners defer it, so that after a failure no goroutine outlives the
// plan. After close it has nothing to do.
func (w *planWriter) finish() {
	for _, job := range w.compressing {
		<-job.done
	}
	w.compressing = nil
}

// Parts of an item that eachItem reads besides its identity.
const (
	withAfter     = 1 << iota
	withBefore    // the before-image when the plan stores it (plans made before they were left out)
	withAfterJSON // the after-image's canonical JSON, unparsed (item.afterJSON)
)

// eachItem calls fn for each item of a plan, in order, with the parts
// asked for. A goroutine decompresses and parses the chunks ahead while fn
// runs on the items before them: on a plan of 83,000 updates that was a
// seventh of the applying goroutine's time.
func eachItem(tx *store.Tx, token string, parts int, fn func(*item) error) error {
	// The chunks' stored values, read in this goroutine: the other only
	// parses them. They stay valid until the transaction commits, which it
	// cannot do before eachItem returns.
	var want []store.PlanPart
	if parts&(withAfter|withAfterJSON) != 0 {
		want = append(want, store.PlanAfters)
	}
	if parts&withBefore != 0 {
		want = append(want, store.PlanBefores)
	}
	var chunks []rawChunk
	for _, ch := range tx.Plans().Chunks(token, want...) {
		if parts&(withAfter|withAfterJSON) != 0 && ch.Afters == nil {
			return errs.Errorf(errs.IO, "plan %s: a chunk of images does not match its items", token)
		}
		chunks = append(chunks, rawChunk{items: ch.Items, afters: ch.Afters, befores: ch.Befores})
	}
	type parsed struct {
		items []item
		err   error // after the items before it
	}
	out := make(chan parsed, 2)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		for _, rc := range chunks {
			items, err := rc.parse(token, parts)
			select {
			case out <- parsed{items, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
	}()
	for p := range out {
		for i := range p.items {
			if err := fn(&p.items[i]); err != nil {
				return err
			}
		}
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// rawChunk is a chunk of a plan as stored: its items, and its after- and
// before-images when asked for and present.
type rawChunk struct{ items, afters, befores []byte }

// parse returns the chunk's items, those before a failure with it.
func (rc rawChunk) parse(token string, parts int) ([]item, error) {
	lines, err := chunkLines(token, rc.items)
	if err != nil {
		return nil, err
	}
	read := func(raw []byte) ([][]byte, error) {
		if raw == nil {
			return nil, nil
		}
		l, err := chunkLines(token, raw)
		if err == nil && len(l) != len(lines) {
			err = errs.Errorf(errs.IO, "plan %s: a chunk of images does not match its items", token)
		}
		return l, err
	}
	afters, err := read(rc.afters)
	if err != nil {
		return nil, err
	}
	befores, err := read(rc.befores)
	if err != nil {
		return nil, err
	}
	items := make([]item, 0, len(lines))
	for i, line := range lines {
		it, err := parseItem(token, line, afters, befores, i, parts&withAfterJSON != 0)
		if err != nil {
			return items, err
		}
		items = append(items, it)
	}
	return items, nil
}

// chunkLines returns the lines of a chunk.
func chunkLines(token string, raw []byte) ([][]byte, error) {
	js, err := store.DecodeBlob(raw)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", token, err)
	}
	return bytes.Split(bytes.TrimSuffix(js, []byte{'\n'}), []byte{'\n'}), nil
}

func parseItem(token string, line []byte, afters, befores [][]byte, i int, rawAfter bool) (item, error) {
	v, err := value.Parse(line)
	if err != nil {
		return item{}, errs.Errorf(errs.IO, "plan %s: unreadable item: %v", token, err)
	}
	it := itemFromValue(v)
	if rawAfter {
		if a := afters[i]; string(a) != "null" {
			it.afterJSON = a
		}
	} else if afters != nil {
		if it.after, err = parseImage(afters[i]); err != nil {
			return item{}, errs.Errorf(errs.IO, "plan %s: unreadable after-image: %v", token, err)
		}
	}
	if befores != nil {
		it.hasBefore = true
		if it.before, err = parseImage(befores[i]); err != nil {
			return item{}, errs.Errorf(errs.IO, "plan %s: unreadable before-image: %v", token, err)
		}
	}
	return it, nil
}

// parseImage parses a document image; null is no document (missing).
func parseImage(line []byte) (value.Value, error) {
	v, err := value.Parse(line)
	if err != nil || v.IsNull() {
		return value.Value{}, err
	}
	return v, nil
}

// retire sets a plan's final status and drops its items: an applied plan's
// before-images live on in the journal.
func retire(tx *store.Tx, p *Plan, status string, now time.Time) error {
	if err := tx.Plans().DropChunks(p.Token); err != nil {
		return err
	}
	p.Status, p.StatusTime = status, now
	return saveHeader(tx, p)
}

// expireOld retires every pending plan past its expiry, so abandoned plans
// do not keep their documents in the file. It runs whenever a plan is made.
func expireOld(tx *store.Tx, now time.Time) error {
	var old []*Plan
	err := tx.Plans().Each(func(token string, header store.Blob) error {
		p, err := decodeHeader(token, header)
		if err != nil {
			return err
		}
		if p.status(now) == StatusExpired {
			old = append(old, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range old {
		if err := retire(tx, p, StatusExpired, p.Expires); err != nil {
			return err
		}
	}
	return nil
}

// allPlans returns every plan header, oldest first (tokens are ObjectIds,
// which sort by creation time).
func allPlans(tx *store.Tx) ([]*Plan, error) {
	var plans []*Plan
	err := tx.Plans().Each(func(token string, header store.Blob) error {
		p, err := decodeHeader(token, header)
		if err == nil {
			plans = append(plans, p)
		}
		return err
	})
	return plans, err
}
