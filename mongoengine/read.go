package mongoengine

import (
	"context"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// Find checks q with omgdb's compiler and runs it on the server, sorted
// as the file engine sorts (by q.Sort, then _id).
func (d *DB) Find(ctx context.Context, coll string, q *engine.Find, each func(value.Value) error) error {
	if _, err := engine.Check(q); err != nil {
		return err
	}
	c, err := d.collection(ctx, coll)
	if err != nil {
		return err
	}
	filter, err := specDoc(q.Filter)
	if err != nil {
		return err
	}
	sort, err := specDoc(q.Sort)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(sort, func(e bson.E) bool { return e.Key == "_id" }) {
		sort = append(sort, bson.E{Key: "_id", Value: int32(1)})
	}
	opts := options.Find().SetSort(sort).SetSkip(q.Skip).SetLimit(q.Limit)
	if d.collation != nil {
		opts.SetCollation(d.collation)
	}
	if !q.Projection.IsMissing() && q.Projection.Len() > 0 {
		proj, err := specDoc(q.Projection)
		if err != nil {
			return err
		}
		opts.SetProjection(proj)
	}
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		return d.readErr("find in", err)
	}
	return d.drain(ctx, cur, each)
}

// Count counts the documents that match filter on the server
// (countDocuments: exact, unlike the collection's estimated count).
func (d *DB) Count(ctx context.Context, coll string, filter value.Value) (int64, error) {
	if _, err := engine.CheckFilter(filter); err != nil {
		return 0, err
	}
	c, err := d.collection(ctx, coll)
	if err != nil {
		return 0, err
	}
	f, err := specDoc(filter)
	if err != nil {
		return 0, err
	}
	opts := options.Count()
	if d.collation != nil {
		opts.SetCollation(d.collation)
	}
	n, err := c.CountDocuments(ctx, f, opts)
	if err != nil {
		return 0, d.readErr("count in", err)
	}
	return n, nil
}

// Distinct runs the distinct command and returns its values in MongoDB's
// sort order (the server gives no order).
func (d *DB) Distinct(ctx context.Context, coll, field string, filter value.Value) ([]value.Value, error) {
	if _, err := engine.CheckFilter(filter); err != nil {
		return nil, err
	}
	if err := engine.CheckField(field); err != nil {
		return nil, err
	}
	c, err := d.collection(ctx, coll)
	if err != nil {
		return nil, err
	}
	f, err := specDoc(filter)
	if err != nil {
		return nil, err
	}
	// The driver would send the context's deadline as maxTimeMS, which
	// some servers refuse on distinct (FerretDB v1: "unknown field"); the
	// deadline is kept by the client instead: cancelling closes the call.
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	opts := options.Distinct()
	if d.collation != nil {
		opts.SetCollation(d.collation)
	}
	raw, err := c.Distinct(dctx, field, f, opts).Raw()
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, d.readErr("distinct in", err)
	}
	arr, err := fromArray(raw)
	if err != nil {
		return nil, err
	}
	vals := arr.Array()
	slices.SortStableFunc(vals, value.Compare)
	return vals, nil
}

// Aggregate checks the pipeline with omgdb's compiler (which refuses $out
// and $merge) and runs it on the server.
func (d *DB) Aggregate(ctx context.Context, coll string, pipeline value.Value, each func(value.Value) error) error {
	if _, err := engine.CheckPipeline(pipeline, &agg.PipelineOptions{}); err != nil {
		return err
	}
	c, err := d.collection(ctx, coll)
	if err != nil {
		return err
	}
	stages, err := toBSON(pipeline)
	if err != nil {
		return err
	}
	opts := options.Aggregate()
	if d.collation != nil {
		opts.SetCollation(d.collation)
	}
	cur, err := c.Aggregate(ctx, stages, opts)
	if err != nil {
		return d.readErr("aggregate in", err)
	}
	return d.drain(ctx, cur, each)
}

// Indexes lists coll's indexes: _id_ first, then by name.
func (d *DB) Indexes(ctx context.Context, coll string) ([]engine.Index, error) {
	c, err := d.collection(ctx, coll)
	if err != nil {
		return nil, err
	}
	cur, err := c.Indexes().List(ctx)
	if err != nil {
		return nil, wrapErr(d.target, "list the indexes of", err)
	}
	var out []engine.Index
	err = d.drain(ctx, cur, func(spec value.Value) error {
		out = append(out, indexOf(spec))
		return nil
	})
	slices.SortFunc(out, func(a, b engine.Index) int {
		switch {
		case a.Name == b.Name:
			return 0
		case a.Name == "_id_":
			return -1
		case b.Name == "_id_":
			return 1
		case a.Name < b.Name:
			return -1
		}
		return 1
	})
	return out, err
}

// indexOf reads a listIndexes entry. The _id index is unique whether or
// not the server says so.
func indexOf(spec value.Value) engine.Index {
	var ix engine.Index
	for _, f := range spec.Fields() {
		switch f.Key {
		case "name":
			ix.Name = f.Value.Str()
		case "key":
			ix.Key = engine.NormalizeKey(f.Value)
		case "unique":
			ix.Unique = truthy(f.Value)
		case "sparse":
			ix.Sparse = truthy(f.Value)
		}
	}
	if ix.Name == "_id_" {
		ix.Unique = true
	}
	return ix
}

// truthy reads a boolean option that a server may store as a number.
func truthy(v value.Value) bool {
	if v.IsNumber() {
		return v.Float() != 0
	}
	return v.Bool()
}

// drain passes every document of cur to each and closes cur.
func (d *DB) drain(ctx context.Context, cur *mongo.Cursor, each func(value.Value) error) error {
	defer cur.Close(context.Background())
	for cur.Next(ctx) {
		doc, err := fromDoc(cur.Current)
		if err != nil {
			return err
		}
		if err := each(doc); err != nil {
			return err
		}
	}
	if err := cur.Err(); err != nil {
		return wrapErr(d.target, "read from", err)
	}
	return nil
}

// specDoc converts a filter, sort or projection to a BSON document;
// Missing gives an empty one.
func specDoc(spec value.Value) (bson.D, error) {
	if spec.IsMissing() {
		return bson.D{}, nil
	}
	return docToBSON(spec)
}

// readErr is wrapErr, and the clear refusal of a server without
// collations when one was given.
func (d *DB) readErr(doing string, err error) error {
	if cerr := d.collationRefused(err); cerr != nil {
		return cerr
	}
	return wrapErr(d.target, doing, err)
}
