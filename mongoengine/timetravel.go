package mongoengine

import (
	"context"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Time travel. A collection as it was at revision R is the documents
// where the collection that name held at R is now (its own name, a new
// name after a rename, an omgdb_dropped_<id> collection after a drop:
// timetravel_follow.go), where every document written by an omgdb change
// of it journaled after R takes the before-image it has in the earliest
// such change (and is absent if that change inserted it). Documents
// written around omgdb are read as they are now. A change of it still
// being written is refused, and so is an interrupted one whose unmarked
// document cannot be judged. The reconstructed documents stream in _id
// order, and queries on them run in omgdb's own engine (engine.Scanned),
// as on a store file's past revision: a time-travel read scans the
// collection.

var _ engine.Past = (*DB)(nil)

// docState is a document as it was at a revision.
type docState struct {
	coll  string
	id    value.Value
	state value.Value // Missing: absent
}

// undoSet holds, for each document written after a revision, its state at
// the revision: the before-image of the earliest change that wrote it.
type undoSet struct {
	docs  map[string]*docState
	order []*docState
	// lines holds, by the name at the revision, where that collection is
	// now and the changes that wrote it since.
	lines map[string]*lineage
}

func docKey(coll string, id value.Value) string {
	return coll + "\x00" + idKey(id)
}

// undoAfter follows coll (every collection the changes after rev name,
// when coll is empty) from rev to now, and gathers the state at rev of
// each document written since.
func (d *DB) undoAfter(ctx context.Context, rev engine.Revision, coll string) (*undoSet, error) {
	u := &undoSet{docs: map[string]*docState{}, lines: map[string]*lineage{}}
	chs, err := d.readAfter(ctx, rev, coll)
	if err != nil {
		return nil, err
	}
	names := []string{coll}
	if coll == "" {
		names = namesIn(chs)
	}
	for _, name := range names {
		l, err := follow(chs, name, d.target.Redacted)
		if err != nil {
			return nil, err
		}
		u.lines[name] = l
		if d.fence != nil && len(l.via) > 0 {
			if err := d.fence(name, l.via); err != nil {
				return nil, err
			}
		}
		if err := d.undoLineage(ctx, u, l); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(u.order, func(a, b *docState) int {
		if a.coll != b.coll {
			return strings.Compare(a.coll, b.coll)
		}
		return value.Compare(a.id, b.id)
	})
	return u, nil
}

// namesIn lists the collection names chs write or name, omgdb's own left
// out, sorted.
func namesIn(chs []Change) []string {
	seen := map[string]bool{}
	for _, ch := range chs {
		seen[ch.Collection] = true
		for _, s := range ch.steps {
			seen[s.Coll], seen[s.To] = true, true
		}
	}
	var names []string
	for n := range seen {
		if n != "" && !hidden(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// line is coll's lineage in u: where it is now.
func (u *undoSet) line(coll string) *lineage {
	if l := u.lines[coll]; l != nil {
		return l
	}
	return &lineage{coll: coll, loc: coll}
}

// At returns the database as it was at a revision: a Reader whose
// queries run in omgdb's engine over the reconstructed documents.
func (d *DB) At(ctx context.Context, spec string) (engine.Reader, engine.Revision, error) {
	rev, err := d.ResolveRevision(ctx, spec)
	if err != nil {
		return nil, rev, err
	}
	return engine.Scanned(atScanner{d: d, rev: rev}), rev, nil
}

type atScanner struct {
	d   *DB
	rev engine.Revision
}

func (s atScanner) Collections(ctx context.Context) ([]string, error) { return s.d.Collections(ctx) }

func (s atScanner) Indexes(ctx context.Context, coll string) ([]engine.Index, error) {
	return s.d.Indexes(ctx, coll)
}

func (s atScanner) Scan(ctx context.Context, coll string) (agg.Source, error) {
	return s.d.ScanAt(ctx, coll, s.rev)
}

// ScanAt returns coll's documents as they were at rev, in _id order:
// those of the collection the name held then, wherever it is now. A
// collection that did not exist at rev (an omgdb change after rev created
// it, or renamed another into the name) is NotFound; one that a drop
// after rev put aside, and whose aside collection is gone, is Invalid.
func (d *DB) ScanAt(ctx context.Context, coll string, rev engine.Revision) (agg.Source, error) {
	if hidden(coll) {
		_, err := d.collection(ctx, coll)
		return nil, err
	}
	u, err := d.undoAfter(ctx, rev, coll)
	if err != nil {
		return nil, err
	}
	l := u.line(coll)
	if l.absent {
		return nil, errs.Errorf(errs.NotFound, "collection `%s` did not exist at revision %s (seq %d)", coll, rev.Spec, rev.Seq).
			WithHint("pick a later revision; `omgdb history %s --coll %s` lists its changes", d.target.Redacted, coll)
	}
	src := &atSource{ctx: ctx, d: d, u: u}
	c, err := d.lineColl(ctx, l, len(u.order) > 0)
	if err != nil || c == nil {
		return src, err
	}
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, wrapErr(d.target, "read from", err)
	}
	src.cur = cur
	return src, nil
}

// lineColl is the collection where l is now; nil when there is none and
// written (documents written since the revision) says the past is in the
// journal alone. A missing aside collection is Invalid: the documents
// the drop kept are gone.
func (d *DB) lineColl(ctx context.Context, l *lineage, written bool) (*mongo.Collection, error) {
	if l.loc == "" {
		return nil, nil
	}
	if l.dropped != "" {
		ok, err := d.HasCollection(ctx, l.loc)
		if err != nil || ok {
			return d.db.Collection(l.loc), err
		}
		return nil, errs.Errorf(errs.Invalid, "collection `%s` was dropped by change %s after that revision, and the collection the drop kept aside (`%s`) is gone: omgdb cannot rebuild it", l.coll, l.dropped, l.loc).
			WithHint("it was dropped by hand; read at a revision after change %s (`omgdb log %s`), and run `omgdb verify %s` to list the drops whose kept collection is gone", l.dropped, d.target.Redacted, d.target.Redacted)
	}
	c, err := d.collection(ctx, l.loc)
	if errs.KindOf(err) == errs.NotFound && written {
		return nil, nil
	}
	return c, err
}

// atSource merges the current documents (skipping those written after
// the revision) with the states at the revision of those written since,
// both in _id order.
type atSource struct {
	ctx     context.Context
	d       *DB
	u       *undoSet
	cur     *mongo.Cursor // nil when the collection does not exist now
	next    value.Value   // the cursor's document not yet passed on
	curDone bool
	i       int
	doc     value.Value
	err     error
}

func (s *atSource) Next() bool {
	for s.err == nil {
		if s.next.IsMissing() && !s.curDone {
			s.advance()
			continue
		}
		over := s.over()
		switch {
		case over == nil && s.next.IsMissing():
			return false
		case over != nil && (s.next.IsMissing() || value.Compare(over.id, s.next.Get("_id")) <= 0):
			s.i++
			if over.state.IsMissing() {
				continue
			}
			s.doc = over.state
		default:
			s.doc, s.next = s.next, value.Value{}
		}
		return true
	}
	return false
}

// over is the next document written after the revision, or nil.
func (s *atSource) over() *docState {
	if s.i < len(s.u.order) {
		return s.u.order[s.i]
	}
	return nil
}

// advance reads the cursor's next document that no change after the
// revision wrote.
func (s *atSource) advance() {
	for s.cur != nil && s.cur.Next(s.ctx) {
		doc, err := fromDoc(s.cur.Current)
		if err != nil {
			s.err = err
			return
		}
		if ds := s.u.docs[docKey(s.u.collOf(), doc.Get("_id"))]; ds == nil {
			s.next = doc
			return
		}
	}
	if s.cur != nil && s.cur.Err() != nil {
		s.err = wrapErr(s.d.target, "read from", s.cur.Err())
	}
	s.curDone = true
}

// collOf is the collection of a one-collection undo set.
func (u *undoSet) collOf() string {
	if len(u.order) > 0 {
		return u.order[0].coll
	}
	return ""
}

func (s *atSource) Doc() value.Value { return s.doc }
func (s *atSource) Err() error       { return s.err }

func (s *atSource) Close() error {
	if s.cur != nil {
		s.cur.Close(context.Background())
		s.cur = nil
	}
	return nil
}

// Diff compares two revisions (to empty: now): each document written by
// omgdb changes between them whose state differs at the two ends, by
// collection then _id. Writes made around omgdb are not seen: a
// document's state at the later end, when no change after it wrote it,
// is the document as it is now.
func (d *DB) Diff(ctx context.Context, from, to, coll string) (*engine.Diff, error) {
	res := &engine.Diff{Documents: []engine.DocChange{}}
	var err error
	if res.From, err = d.ResolveRevision(ctx, from); err != nil {
		return nil, err
	}
	if res.To, err = d.ResolveRevision(ctx, to); err != nil {
		return nil, err
	}
	if later(res.From, res.To) {
		return nil, errs.Errorf(errs.Usage, "revision %s (seq %d) is after revision %s (seq %d)", res.From.Spec, res.From.Seq, res.To.Spec, res.To.Seq).
			WithHint("give the older revision first: omgdb diff <store> <from> <to>")
	}
	atFrom, err := d.undoAfter(ctx, res.From, coll)
	if err != nil {
		return nil, err
	}
	atTo, err := d.undoAfter(ctx, res.To, coll)
	if err != nil {
		return nil, err
	}
	moved := map[string]bool{}
	for name := range atFrom.lines {
		if atFrom.line(name).moved || atTo.line(name).moved {
			moved[name] = true
			docs, err := d.compareAt(ctx, name, res.From, &res.To, nil)
			if err != nil {
				return nil, err
			}
			res.Documents = append(res.Documents, docs...)
		}
	}
	for _, ds := range atFrom.order {
		if moved[ds.coll] {
			continue
		}
		var after value.Value
		if t := atTo.docs[docKey(ds.coll, ds.id)]; t != nil {
			after = t.state
		} else if after, err = d.current(ctx, ds.coll, ds.id); err != nil {
			return nil, err
		}
		if sameState(ds.state, after) {
			continue
		}
		res.Documents = append(res.Documents, engine.DocChange{Collection: ds.coll, ID: ds.id, Before: ds.state, After: after})
	}
	slices.SortFunc(res.Documents, func(a, b engine.DocChange) int {
		if a.Collection != b.Collection {
			return strings.Compare(a.Collection, b.Collection)
		}
		return value.Compare(a.ID, b.ID)
	})
	return res, nil
}

// later reports whether a is after b in the journal.
func later(a, b engine.Revision) bool {
	if a.Seq != b.Seq {
		return a.Seq > b.Seq
	}
	return a.Seq == 0 && a.Change > b.Change
}

// current reads a document by _id; Missing when there is none.
func (d *DB) current(ctx context.Context, coll string, id value.Value) (value.Value, error) {
	bid, err := toBSON(id)
	if err != nil {
		return value.Value{}, err
	}
	raw, err := d.db.Collection(coll).FindOne(ctx, bson.D{{Key: "_id", Value: bid}}).Raw()
	if isNoDocuments(err) {
		return value.Value{}, nil
	}
	if err != nil {
		return value.Value{}, wrapErr(d.target, "read from", err)
	}
	return fromDoc(raw)
}
