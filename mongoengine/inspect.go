package mongoengine

import (
	"context"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

var _ engine.Inspector = (*DB)(nil)

// Explain checks q with omgdb's compiler, then runs the server's explain
// command of the find, count or aggregate, at verbosity queryPlanner (or
// executionStats with q.Execute), and returns its answer. A find is
// sorted as Find sorts it (then by _id).
func (d *DB) Explain(ctx context.Context, coll string, q *engine.ExplainQuery) (value.Value, error) {
	if err := q.Check(); err != nil {
		return value.Value{}, err
	}
	if _, err := d.collection(ctx, coll); err != nil {
		return value.Value{}, err
	}
	cmd, err := explainCommand(coll, q)
	if err != nil {
		return value.Value{}, err
	}
	cd, err := d.Collated(q.Collation)
	if err != nil {
		return value.Value{}, err
	}
	if cd.collation != nil {
		spec, err := specDoc(cd.collationSpec)
		if err != nil {
			return value.Value{}, err
		}
		// A server may explain a command with a collation it cannot run
		// (FerretDB v1 leaves it out of the plan): first a find that reads
		// nothing (no _id is in []), which such a server refuses.
		probe := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{}}}}}},
			{Key: "limit", Value: int64(1)}, {Key: "collation", Value: spec}}
		if err := d.db.RunCommand(ctx, probe).Err(); err != nil {
			return value.Value{}, cd.readErr("explain a query in", err)
		}
		cmd = append(cmd, bson.E{Key: "collation", Value: spec})
	}
	verbosity := "queryPlanner"
	if q.Execute {
		verbosity = "executionStats"
	}
	raw, err := d.db.RunCommand(ctx, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: verbosity}}).Raw()
	if err != nil {
		return value.Value{}, cd.readErr("explain a query in", err)
	}
	return fromDoc(raw)
}

// explainCommand is the command Explain explains.
func explainCommand(coll string, q *engine.ExplainQuery) (bson.D, error) {
	if !q.Pipeline.IsMissing() {
		stages, err := toBSON(q.Pipeline)
		if err != nil {
			return nil, err
		}
		return bson.D{{Key: "aggregate", Value: coll}, {Key: "pipeline", Value: stages}, {Key: "cursor", Value: bson.D{}}}, nil
	}
	filter, err := specDoc(q.Find.Filter)
	if err != nil {
		return nil, err
	}
	if q.Count {
		return bson.D{{Key: "count", Value: coll}, {Key: "query", Value: filter}}, nil
	}
	sort, err := specDoc(q.Find.Sort)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(sort, func(e bson.E) bool { return e.Key == "_id" }) {
		sort = append(sort, bson.E{Key: "_id", Value: int32(1)})
	}
	cmd := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter}, {Key: "sort", Value: sort}}
	if !q.Find.Projection.IsMissing() && q.Find.Projection.Len() > 0 {
		proj, err := specDoc(q.Find.Projection)
		if err != nil {
			return nil, err
		}
		cmd = append(cmd, bson.E{Key: "projection", Value: proj})
	}
	if q.Find.Skip > 0 {
		cmd = append(cmd, bson.E{Key: "skip", Value: q.Find.Skip})
	}
	if q.Find.Limit > 0 {
		cmd = append(cmd, bson.E{Key: "limit", Value: q.Find.Limit})
	}
	return cmd, nil
}

// CollStats returns the server's collStats of coll (scale 1: bytes).
func (d *DB) CollStats(ctx context.Context, coll string) (value.Value, error) {
	if _, err := d.collection(ctx, coll); err != nil {
		return value.Value{}, err
	}
	return d.command(ctx, "read the statistics of", bson.D{{Key: "collStats", Value: coll}, {Key: "scale", Value: int32(1)}})
}

// DBStats returns the server's dbStats of the database (scale 1: bytes).
func (d *DB) DBStats(ctx context.Context) (value.Value, error) {
	return d.command(ctx, "read the statistics of", bson.D{{Key: "dbStats", Value: int32(1)}, {Key: "scale", Value: int32(1)}})
}

// command runs a read command on the database and returns its reply.
func (d *DB) command(ctx context.Context, doing string, cmd bson.D) (value.Value, error) {
	raw, err := d.db.RunCommand(ctx, cmd).Raw()
	if err != nil {
		return value.Value{}, wrapErr(d.target, doing, err)
	}
	return fromDoc(raw)
}
