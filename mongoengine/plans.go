package mongoengine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// What a plan was made of is kept in its header (omgdb.plans) as omgdb's
// canonical JSON text, type for type: filter, update, array_filters and
// pipeline hold operators ("$set", "$out", …), which a server may refuse
// as field names of a stored document.

// specFields are the header fields that say what was planned.
func specFields(p *Plan) bson.D {
	var d bson.D
	text := func(key string, v value.Value) {
		if !v.IsMissing() {
			d = append(d, bson.E{Key: key, Value: string(value.AppendJSON(nil, v))})
		}
	}
	text("filter", p.Filter)
	text("update", p.Update)
	if len(p.ArrayFilters) > 0 {
		text("array_filters", value.ArrayValue(p.ArrayFilters))
	}
	text("pipeline", p.Pipeline)
	for _, f := range []struct {
		key string
		on  bool
	}{{"upsert", p.Upsert}, {"first_only", p.First}, {"create_target", p.CreateTarget}} {
		if f.on {
			d = append(d, bson.E{Key: f.key, Value: true})
		}
	}
	if p.Source != "" {
		d = append(d, bson.E{Key: "source", Value: p.Source})
	}
	return d
}

// planOf reads a plan's header (without its items).
func planOf(raw bson.Raw) (*Plan, error) {
	v, err := fromDoc(raw)
	if err != nil {
		return nil, err
	}
	date := func(key string) time.Time { return time.UnixMilli(v.Get(key).Date()).UTC() }
	p := &Plan{Token: v.Get("_id").OID().Hex(), Kind: v.Get("kind").Str(), Collection: v.Get("collection").Str(),
		Matched: v.Get("matched").Long(), Modified: v.Get("modified").Long(), Created: date("created"), Expires: date("expires"),
		Actor: v.Get("actor").Str(), Status: v.Get("status").Str(), RollbackOf: v.Get("rollback_of").Str(),
		Upsert: v.Get("upsert").Bool(), First: v.Get("first_only").Bool(), CreateTarget: v.Get("create_target").Bool(),
		Source: v.Get("source").Str()}
	if !v.Get("status_time").IsMissing() {
		p.StatusTime = date("status_time")
	}
	for _, f := range []struct {
		key string
		dst *value.Value
	}{{"filter", &p.Filter}, {"update", &p.Update}, {"pipeline", &p.Pipeline}} {
		if t := v.Get(f.key); t.Kind() == value.String {
			if *f.dst, err = value.Parse([]byte(t.Str())); err != nil {
				return nil, errs.Errorf(errs.IO, "plan %s: its %s cannot be read: %v", p.Token, f.key, err).
					WithHint("the plan was changed outside omgdb; plan again")
			}
		}
	}
	if t := v.Get("array_filters"); t.Kind() == value.String {
		af, err := value.Parse([]byte(t.Str()))
		if err != nil {
			return nil, errs.Errorf(errs.IO, "plan %s: its array_filters cannot be read: %v", p.Token, err).
				WithHint("the plan was changed outside omgdb; plan again")
		}
		p.ArrayFilters = af.Array()
	}
	return p, nil
}

// StatusAt returns the plan's status at time now: a pending plan past its
// expiry is expired.
func (p *Plan) StatusAt(now time.Time) string {
	if p.Status == StatusPending && now.After(p.Expires) {
		return StatusExpired
	}
	return p.Status
}

// Plans lists the plans, oldest first: the pending ones, or with all
// every plan (applying, applied, discarded, expired, and the plans of
// rollbacks, inserts and imports). Status is as of now: a pending plan
// past its expiry is listed as expired. Items are not read.
func (d *DB) Plans(ctx context.Context, all bool) ([]*Plan, error) {
	now := time.Now().UTC()
	filter := bson.D{}
	if !all {
		filter = bson.D{{Key: "status", Value: StatusPending}}
	}
	cur, err := d.db.Collection(PlansColl).Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, wrapErr(d.target, "read the plans from", err)
	}
	defer cur.Close(context.Background())
	out := []*Plan{}
	for cur.Next(ctx) {
		p, err := planOf(cur.Current)
		if err != nil {
			return nil, err
		}
		p.Status = p.StatusAt(now)
		if all || p.Status == StatusPending {
			out = append(out, p)
		}
	}
	if err := cur.Err(); err != nil {
		return nil, wrapErr(d.target, "read the plans from", err)
	}
	return out, nil
}

// ShowPlan reads a plan and its items; its status is as of now.
func (d *DB) ShowPlan(ctx context.Context, token string) (*Plan, error) {
	p, err := d.LoadPlan(ctx, token)
	if err != nil {
		return nil, err
	}
	p.Status = p.StatusAt(time.Now().UTC())
	return p, nil
}

// checkPending refuses a plan that is not pending at time now, saying
// what became of it: the messages of a store file's.
func (d *DB) checkPending(p *Plan, now time.Time) error {
	switch p.StatusAt(now) {
	case StatusPending:
		return nil
	case StatusApplied:
		return errs.Errorf(errs.Conflict, "plan %s was already applied at %s as change %s", p.Token, p.StatusTime.Format(time.RFC3339), p.Token).
			WithHint("a plan applies once; to undo it run `omgdb rollback %s %s`, to change more plan again", d.target.Redacted, p.Token)
	case StatusApplying:
		return errs.Errorf(errs.Conflict, "plan %s is being applied, or an apply of it was interrupted", p.Token).
			WithHint("see `omgdb history %s`: an apply whose writer stopped is \"interrupted\" once its lease expires (%s); then `omgdb apply %s %s --resume` finishes it, or `omgdb rollback %s %s` undoes what it wrote",
				d.target.Redacted, LeaseTime, d.target.Redacted, p.Token, d.target.Redacted, p.Token)
	case StatusDiscarded:
		return errs.Errorf(errs.Conflict, "plan %s was discarded at %s", p.Token, p.StatusTime.Format(time.RFC3339)).
			WithHint("plan the change again")
	case StatusExpired:
		return errs.Errorf(errs.Conflict, "plan %s expired at %s", p.Token, p.Expires.Format(time.RFC3339)).
			WithHint("plans stay pending for 24 h by default; plan the change again and apply the new token")
	}
	return errs.Errorf(errs.Conflict, "plan %s is %s", p.Token, p.Status).WithHint("plan the change again")
}

// DiscardPlan drops a pending plan: its status becomes discarded, its
// items are deleted, and its token can no longer be applied. A plan that
// is being applied, applied, discarded or expired is refused. It returns
// the plan as it now is.
func (d *DB) DiscardPlan(ctx context.Context, token string) (*Plan, error) {
	p, err := d.LoadPlan(ctx, token)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := d.checkPending(p, now); err != nil {
		return nil, err
	}
	tok, _ := bson.ObjectIDFromHex(p.Token)
	r, err := d.db.Collection(PlansColl).UpdateOne(ctx, bson.D{{Key: "_id", Value: tok}, {Key: "status", Value: StatusPending}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: StatusDiscarded}, {Key: "status_time", Value: bson.NewDateTimeFromTime(now)}}}})
	if err != nil {
		return nil, wrapErr(d.target, "discard the plan in", err)
	}
	if r.MatchedCount == 0 {
		return nil, errs.Errorf(errs.Conflict, "plan %s was claimed by an apply while it was being discarded", p.Token).
			WithHint("see `omgdb history %s`; roll the change back if it is not wanted", d.target.Redacted)
	}
	if _, err := d.db.Collection(PlanItemsColl).DeleteMany(ctx, bson.D{{Key: "plan", Value: tok}}); err != nil {
		return nil, wrapErr(d.target, "discard the plan in", err)
	}
	p.Status, p.StatusTime, p.Items = StatusDiscarded, now, nil
	return p, nil
}
