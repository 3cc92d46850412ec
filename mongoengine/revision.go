package mongoengine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Journal order. Each change takes, when it is journaled, the next seq:
// it inserts {_id: seq, change} into omgdb.seqs, whose _id the server
// keeps unique, one greater than the greatest there, and tries the next
// when another writer took it first. The seq orders the journal as the
// lsn orders a store file's. (A counter moved by findAndModify or a
// conditional update is not enough: FerretDB v1 gave one seq to several
// concurrent callers both ways.) Changes journaled before seq existed
// have none and come first, by id.
const SeqsColl = "omgdb.seqs" // one document per seq given: {_id: seq, change}

// nextSeq takes the journal's next seq for change tok.
func (d *DB) nextSeq(ctx context.Context, tok bson.ObjectID) (int64, error) {
	c := d.db.Collection(SeqsColl)
	for attempt := 0; attempt < 1000; attempt++ {
		var last struct {
			Seq int64 `bson:"_id"`
		}
		err := c.FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "_id", Value: -1}})).Decode(&last)
		if err != nil && !isNoDocuments(err) {
			return 0, wrapErr(d.target, "number the change in", err)
		}
		_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: last.Seq + 1}, {Key: "change", Value: tok}})
		if err == nil {
			return last.Seq + 1, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return 0, wrapErr(d.target, "number the change in", err)
		}
	}
	return 0, errs.Errorf(errs.Busy, "number the change in %s: other changes kept taking the next seq (1000 attempts)", d.target.Redacted).
		WithHint("many changes are being journaled at once; try again")
}

// creates reports whether coll does not exist yet: the change about to
// be journaled creates it, which time travel needs to know.
func (d *DB) creates(ctx context.Context, coll string) (bool, error) {
	names, err := d.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return false, wrapErr(d.target, "list the collections of", err)
	}
	return len(names) == 0, nil
}

// timeLayouts are the ISO 8601 forms a revision may take (as on a file).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// ResolveRevision turns a revision spec into a point of the journal. A
// spec is, tried in this order: "now" (or empty), a snapshot name, a seq
// (digits: the state after the changes numbered up to it), a change id
// (the state right after it), or an ISO 8601 time (the state after the
// last change, in journal order, applied at or before it; without a zone,
// UTC). A change that is still applying (running, or interrupted) has no
// state after it: naming it is a Conflict error.
func (d *DB) ResolveRevision(ctx context.Context, spec string) (engine.Revision, error) {
	rev, err := d.resolveRevision(ctx, spec)
	if err != nil || rev.Kind == engine.RevNow || rev.Change == "" {
		return rev, err
	}
	oid, _ := bson.ObjectIDFromHex(rev.Change)
	chs, err := d.journal(ctx, bson.D{{Key: "_id", Value: oid}}, 1, 1)
	if err == nil && len(chs) == 1 {
		err = settled(chs[0])
	}
	return rev, err
}

// resolveRevision resolves spec, refusing a revision before the history
// kept: one whose changes PruneHistory removed.
func (d *DB) resolveRevision(ctx context.Context, spec string) (engine.Revision, error) {
	rev, err := d.resolveSpec(ctx, spec)
	if err != nil || rev.Kind == engine.RevNow {
		return rev, err
	}
	cut, err := d.prunedThrough(ctx)
	if err == nil && cut > 0 && rev.Seq < cut {
		err = errs.Errorf(errs.NotFound, "revision %q is before the history kept: the journal was pruned through seq %d", spec, cut).
			WithHint("pick a revision at seq %d or later (`omgdb log %s`)", cut, d.target.Redacted)
	}
	return rev, err
}

func (d *DB) resolveSpec(ctx context.Context, spec string) (engine.Revision, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == engine.RevNow {
		return d.lastRevision(ctx, engine.RevNow, engine.RevNow)
	}
	if s, err := d.snapshot(ctx, spec); err != nil || s != nil {
		if err != nil {
			return engine.Revision{}, err
		}
		return engine.Revision{Spec: spec, Kind: engine.RevSnapshot, Change: s.Change, Seq: s.Seq}, nil
	}
	if isDigits(spec) {
		return d.seqRevision(ctx, spec)
	}
	if oid, err := bson.ObjectIDFromHex(spec); err == nil && len(spec) == 24 {
		return d.changeRevision(ctx, spec, oid)
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, spec); err == nil {
			return d.timeRevision(ctx, spec, t)
		}
	}
	names, _ := d.snapshotNames(ctx)
	return engine.Revision{}, errs.Errorf(errs.NotFound, "unknown revision %q%s", spec, errs.DidYouMean(spec, names)).
		WithHint("over MongoDB a revision is a seq (`omgdb log %s`), a snapshot name (`omgdb snapshot list`), a change id (`omgdb history`) or an ISO time such as 2024-05-01T12:00:00Z", d.target.Redacted)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// lastRevision is the revision after the newest change.
func (d *DB) lastRevision(ctx context.Context, spec, kind string) (engine.Revision, error) {
	rev := engine.Revision{Spec: spec, Kind: kind}
	chs, err := d.journal(ctx, bson.D{}, -1, 1)
	if err == nil && len(chs) == 1 {
		rev.Change, rev.Seq = chs[0].ID, chs[0].Seq
	}
	return rev, err
}

func (d *DB) seqRevision(ctx context.Context, spec string) (engine.Revision, error) {
	last, err := d.lastRevision(ctx, spec, engine.RevSeq)
	if err != nil {
		return last, err
	}
	n, perr := strconv.ParseInt(spec, 10, 64)
	if perr != nil || n > last.Seq {
		return engine.Revision{}, errs.Errorf(errs.NotFound, "revision %s is past the end of the journal (last seq %d)", spec, last.Seq).
			WithHint("the journal's seqs run up to %d; see `omgdb log %s`", last.Seq, d.target.Redacted)
	}
	rev := engine.Revision{Spec: spec, Kind: engine.RevSeq, Seq: n}
	chs, err := d.journal(ctx, bson.D{{Key: "seq", Value: bson.D{{Key: "$lte", Value: n}}}}, -1, 1)
	if err == nil && len(chs) == 1 {
		rev.Change = chs[0].ID
	}
	return rev, err
}

func (d *DB) changeRevision(ctx context.Context, spec string, oid bson.ObjectID) (engine.Revision, error) {
	chs, err := d.journal(ctx, bson.D{{Key: "_id", Value: oid}}, 1, 1)
	if err != nil {
		return engine.Revision{}, err
	}
	if len(chs) == 0 {
		return engine.Revision{}, errs.Errorf(errs.NotFound, "no change %s in the journal of %s", spec, d.target.Redacted).
			WithHint("list the changes made through omgdb with `omgdb history %s`; writes made around omgdb are not in its journal", d.target.Redacted)
	}
	return engine.Revision{Spec: spec, Kind: engine.RevChange, Change: spec, Seq: chs[0].Seq}, nil
}

// timeRevision is the state after the last change, in journal order,
// applied at or before t.
func (d *DB) timeRevision(ctx context.Context, spec string, t time.Time) (engine.Revision, error) {
	rev := engine.Revision{Spec: spec, Kind: engine.RevTime}
	chs, err := d.journal(ctx, bson.D{{Key: "time", Value: bson.D{{Key: "$lte", Value: bson.NewDateTimeFromTime(t)}}}}, -1, 1)
	if err == nil && len(chs) == 1 {
		rev.Change, rev.Seq = chs[0].ID, chs[0].Seq
	}
	return rev, err
}

// settled refuses a change whose writer is still writing (its lease
// runs): the state right after it is not settled yet. An interrupted or
// partial change names the state it left, which is read as any other.
func settled(ch Change) error {
	if ch.Status != StatusApplying {
		return nil
	}
	return errs.Errorf(errs.Conflict, "change %s is being applied by another omgdb (its lease runs until %s): the state after it is not settled yet", ch.ID, leaseEnd(&ch).Format(time.RFC3339)).
		WithHint("wait for it to finish, or pick a revision before it; if that omgdb was stopped, its lease expires at the time given")
}

// journal reads changes in journal order (dir 1) or newest first (-1),
// at most limit when positive.
func (d *DB) journal(ctx context.Context, filter bson.D, dir, limit int) ([]Change, error) {
	opts := options.Find().SetSort(bson.D{{Key: "seq", Value: dir}, {Key: "_id", Value: dir}})
	if limit > 0 {
		opts.SetLimit(int64(limit))
	}
	cur, err := d.db.Collection(ChangesColl).Find(ctx, filter, opts)
	if err != nil {
		return nil, wrapErr(d.target, "read the journal from", err)
	}
	var out []Change
	now := time.Now()
	err = d.drain(ctx, cur, func(v value.Value) error {
		ch := changeOf(v)
		if ch.Status == StatusApplying && leaseExpired(&ch, now) {
			ch.Status = StatusInterrupted
		}
		out = append(out, ch)
		return nil
	})
	return out, err
}

// after is the filter of the changes journaled after rev.
func after(rev engine.Revision) bson.D {
	switch {
	case rev.Seq > 0:
		return bson.D{{Key: "seq", Value: bson.D{{Key: "$gt", Value: rev.Seq}}}}
	case rev.Change != "": // a change journaled before seq existed
		oid, _ := bson.ObjectIDFromHex(rev.Change)
		return bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "seq", Value: bson.D{{Key: "$gt", Value: int64(0)}}}},
			bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: oid}}}}}}}
	}
	return bson.D{}
}
