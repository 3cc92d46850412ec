package mongoengine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/value"
)

// Log passes the journal to each, oldest first (journal order, by seq),
// from seq since on (0: all), each change as one record:
// {"seq","ts","change","kind","actor","status","ops":[{"op","coll","id","before","after"}]},
// where ops are the documents it wrote (its items marked applied) with
// their images; a schema change's record has its note and, as ops, the
// steps it carried out ({"op":"rename_collection","coll","to"},
// {"op":"create_collection","coll"}, {"op":"create_index"|"drop_index",
// "coll","index"}). A store file's log has an lsn where this has a seq.
func (d *DB) Log(ctx context.Context, since int64, each func(value.Value) error) error {
	filter := bson.D{}
	if since > 0 {
		filter = bson.D{{Key: "seq", Value: bson.D{{Key: "$gte", Value: since}}}}
	}
	chs, err := d.journal(ctx, filter, 1, 0)
	if err != nil {
		return err
	}
	for _, ch := range chs {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := d.logRecord(ctx, ch)
		if err != nil {
			return err
		}
		if err := each(rec); err != nil {
			return err
		}
	}
	return nil
}

// logRecord is a change as Log prints it.
func (d *DB) logRecord(ctx context.Context, ch Change) (value.Value, error) {
	tok, _ := bson.ObjectIDFromHex(ch.ID)
	items, err := d.planItems(ctx, tok, "applied")
	if err != nil {
		return value.Value{}, err
	}
	ops := make([]value.Value, len(items), len(items)+len(ch.steps))
	for i, it := range items {
		f := []value.Field{{Key: "op", Value: value.StringValue(it.Op)}, {Key: "coll", Value: value.StringValue(ch.Collection)},
			{Key: "id", Value: it.ID}}
		if !it.Before.IsMissing() {
			f = append(f, value.Field{Key: "before", Value: it.Before})
		}
		if !it.After.IsMissing() {
			f = append(f, value.Field{Key: "after", Value: it.After})
		}
		ops[i] = value.ObjectValue(f)
	}
	if ch.schema {
		steps := ch.steps
		if ch.Status != StatusApplied {
			steps = steps[:min(ch.done, len(steps))]
		}
		for _, s := range steps {
			ops = append(ops, stepRecord(s))
		}
	}
	rec := []value.Field{
		{Key: "seq", Value: value.LongValue(ch.Seq)},
		{Key: "ts", Value: value.DateValue(ch.Time.UnixMilli())},
		{Key: "change", Value: value.StringValue(ch.ID)},
		{Key: "kind", Value: value.StringValue(ch.Kind)},
		{Key: "actor", Value: value.StringValue(ch.Actor)},
		{Key: "status", Value: value.StringValue(ch.Status)},
	}
	if ch.Note != "" {
		rec = append(rec, value.Field{Key: "note", Value: value.StringValue(ch.Note)})
	}
	return value.ObjectValue(append(rec, value.Field{Key: "ops", Value: value.ArrayValue(ops)})), nil
}

// stepRecord is a schema step as Log prints it.
func stepRecord(s step) value.Value {
	op := map[string]string{stepRename: "rename_collection", stepCreate: "create_collection"}[s.Op]
	if op == "" {
		op = s.Op // create_index, drop_index
	}
	f := []value.Field{{Key: "op", Value: value.StringValue(op)}, {Key: "coll", Value: value.StringValue(s.Coll)}}
	if s.To != "" {
		f = append(f, value.Field{Key: "to", Value: value.StringValue(s.To)})
	}
	if !s.Spec.IsMissing() {
		f = append(f, value.Field{Key: "index", Value: s.Spec})
	}
	return value.ObjectValue(f)
}
