package mongoengine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// SnapshotsColl holds the snapshots: one document per name, naming the
// newest applied change when it was taken.
const SnapshotsColl = "omgdb.snapshots"

// Snapshot names a revision: the state right after Change (seq Seq;
// Change empty: before the first change).
type Snapshot struct {
	Name    string    `json:"name"`
	Change  string    `json:"change,omitempty"`
	Seq     int64     `json:"seq"`
	Created time.Time `json:"created"`
	Actor   string    `json:"actor,omitempty"`
}

// CreateSnapshot names the revision at (empty: the newest applied
// change). The caller checks the name (changes.ValidateSnapshotName); an
// empty one means "snap-<seq>", which is idempotent; a name that is taken
// is a Conflict error.
func (d *DB) CreateSnapshot(ctx context.Context, name, at, actor string) (*Snapshot, error) {
	var rev engine.Revision
	var err error
	if at == "" {
		rev = engine.Revision{Kind: engine.RevNow}
		chs, jerr := d.journal(ctx, bson.D{{Key: "status", Value: StatusApplied}}, -1, 1)
		if len(chs) == 1 {
			rev.Change, rev.Seq = chs[0].ID, chs[0].Seq
		}
		err = jerr
	} else {
		rev, err = d.ResolveRevision(ctx, at)
	}
	if err != nil {
		return nil, err
	}
	auto := name == ""
	if auto {
		name = fmt.Sprintf("snap-%d", rev.Seq)
	}
	s := &Snapshot{Name: name, Change: rev.Change, Seq: rev.Seq, Created: time.Now().UTC().Truncate(time.Millisecond), Actor: actor}
	doc := bson.D{{Key: "_id", Value: name}, {Key: "change", Value: s.Change}, {Key: "seq", Value: s.Seq},
		{Key: "created", Value: bson.NewDateTimeFromTime(s.Created)}, {Key: "actor", Value: actor}}
	_, err = d.db.Collection(SnapshotsColl).InsertOne(ctx, doc)
	if mongo.IsDuplicateKeyError(err) {
		old, oerr := d.snapshot(ctx, name)
		switch {
		case oerr != nil:
			return nil, oerr
		case old != nil && auto && old.Seq == s.Seq && old.Change == s.Change:
			return old, nil
		}
		return nil, errs.Errorf(errs.Conflict, "snapshot %s already exists", name).
			WithHint("choose another name, or delete it first with `omgdb snapshot delete`")
	}
	if err != nil {
		return nil, wrapErr(d.target, "store the snapshot in", err)
	}
	return s, nil
}

// Snapshots lists the snapshots, oldest revision first.
func (d *DB) Snapshots(ctx context.Context) ([]Snapshot, error) {
	cur, err := d.db.Collection(SnapshotsColl).Find(ctx, bson.D{})
	if err != nil {
		return nil, wrapErr(d.target, "read the snapshots from", err)
	}
	out := []Snapshot{}
	err = d.drain(ctx, cur, func(v value.Value) error {
		out = append(out, snapshotOf(v))
		return nil
	})
	slices.SortFunc(out, func(a, b Snapshot) int {
		switch {
		case a.Seq != b.Seq:
			return int(min(max(a.Seq-b.Seq, -1), 1))
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out, err
}

// DeleteSnapshot removes a snapshot name; the history stays.
func (d *DB) DeleteSnapshot(ctx context.Context, name string) (*Snapshot, error) {
	raw, err := d.db.Collection(SnapshotsColl).FindOneAndDelete(ctx, bson.D{{Key: "_id", Value: name}}).Raw()
	if isNoDocuments(err) {
		names, _ := d.snapshotNames(ctx)
		return nil, errs.Errorf(errs.NotFound, "no snapshot %s%s", name, errs.DidYouMean(name, names)).
			WithHint("list snapshots with `omgdb snapshot list %s`", d.target.Redacted)
	}
	if err != nil {
		return nil, wrapErr(d.target, "delete the snapshot in", err)
	}
	return decodeSnapshot(raw)
}

// snapshot reads a snapshot by name; nil when there is none.
func (d *DB) snapshot(ctx context.Context, name string) (*Snapshot, error) {
	raw, err := d.db.Collection(SnapshotsColl).FindOne(ctx, bson.D{{Key: "_id", Value: name}}).Raw()
	if isNoDocuments(err) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapErr(d.target, "read the snapshots from", err)
	}
	return decodeSnapshot(raw)
}

func decodeSnapshot(raw bson.Raw) (*Snapshot, error) {
	v, err := fromDoc(raw)
	if err != nil {
		return nil, err
	}
	s := snapshotOf(v)
	return &s, nil
}

func (d *DB) snapshotNames(ctx context.Context) ([]string, error) {
	snaps, err := d.Snapshots(ctx)
	names := make([]string, len(snaps))
	for i, s := range snaps {
		names[i] = s.Name
	}
	return names, err
}

func snapshotOf(v value.Value) Snapshot {
	return Snapshot{Name: v.Get("_id").Str(), Change: v.Get("change").Str(), Seq: v.Get("seq").Long(),
		Created: time.UnixMilli(v.Get("created").Date()).UTC(), Actor: v.Get("actor").Str()}
}
