package mongoengine

import (
	"context"
	"errors"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// The bulk writes of `omgdb copy`: creating a collection with its
// validator and indexes, ordered insertMany batches, and omgdb's own
// record of what a copy put there. They are the only writes of the
// MongoDB engine so far, and nothing but copy calls them.

// CopyMetaCollection is the collection where copy keeps omgdb's own
// definitions of each collection it copied into the database (its
// validation rules and index definitions, exactly as the store file had
// them), one document per collection with the collection's name as _id:
// a copy back to a file restores them exactly, where the server keeps
// less (an index's sparse option on FerretDB) or nothing (a validator).
const CopyMetaCollection = "omgdb.copy"

// ErrNotImplemented is returned (wrapped) when the server refuses an
// option it does not implement, such as a validator on FerretDB.
var ErrNotImplemented = errors.New("mongoengine: not implemented by the server")

// HasCollection reports whether the database has coll.
func (d *DB) HasCollection(ctx context.Context, coll string) (bool, error) {
	names, err := d.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return false, wrapErr(d.target, "list the collections of", err)
	}
	return slices.Contains(names, coll), nil
}

// CreateCollection creates coll, with validator as its validator unless
// it is Missing. A server that does not implement validators gives an
// error that wraps ErrNotImplemented; the collection is then created
// without one.
func (d *DB) CreateCollection(ctx context.Context, coll string, validator value.Value) error {
	if validator.IsMissing() {
		return d.create(ctx, coll, nil)
	}
	v, err := docToBSON(validator)
	if err != nil {
		return err
	}
	err = d.create(ctx, coll, options.CreateCollection().SetValidator(v))
	if isNotImplemented(err) {
		if err2 := d.create(ctx, coll, nil); err2 != nil {
			return err2
		}
		e := errs.Errorf(errs.Invalid, "MongoDB at %s keeps no validator on `%s`: %s", d.target.Redacted, coll, Redact(err.Error(), d.target.URI))
		e.Err = ErrNotImplemented
		return e
	}
	return err
}

func (d *DB) create(ctx context.Context, coll string, opts *options.CreateCollectionOptionsBuilder) error {
	var err error
	if opts == nil {
		err = d.db.CreateCollection(ctx, coll)
	} else {
		err = d.db.CreateCollection(ctx, coll, opts)
	}
	if err != nil && !isNotImplemented(err) {
		return wrapErr(d.target, "create a collection in", err)
	}
	return err
}

// isNotImplemented reports a server's NotImplemented (238) error.
func isNotImplemented(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && (ce.Code == 238 || ce.Name == "NotImplemented")
}

// DropCollection drops coll (undoing a copy's first step).
func (d *DB) DropCollection(ctx context.Context, coll string) error {
	if err := d.db.Collection(coll).Drop(ctx); err != nil {
		return wrapErr(d.target, "drop a collection of", err)
	}
	return nil
}

// CreateIndex creates one index from its createIndexes specification
// ({key, name, unique, sparse, collation, weights, …}). A server that
// refuses it gives an error naming the index.
func (d *DB) CreateIndex(ctx context.Context, coll string, spec value.Value) error {
	s, err := docToBSON(spec)
	if err != nil {
		return err
	}
	cmd := bson.D{{Key: "createIndexes", Value: coll}, {Key: "indexes", Value: bson.A{s}}}
	if err := d.db.RunCommand(ctx, cmd).Err(); err != nil {
		name := spec.Get("name").Str()
		return errs.Errorf(errs.Invalid, "MongoDB at %s cannot hold index `%s` of `%s`: %s", d.target.Redacted, name, coll, Redact(err.Error(), d.target.URI)).
			WithHint("the deployment does not support this kind of index or one of its options; drop the index from the source, or copy to a deployment that supports it")
	}
	return nil
}

// IndexSpecs returns coll's listIndexes entries as the server gives
// them, the _id index left out.
func (d *DB) IndexSpecs(ctx context.Context, coll string) ([]value.Value, error) {
	cur, err := d.db.Collection(coll).Indexes().List(ctx)
	if err != nil {
		return nil, wrapErr(d.target, "list the indexes of", err)
	}
	var out []value.Value
	err = d.drain(ctx, cur, func(spec value.Value) error {
		if spec.Get("name").Str() != "_id_" {
			out = append(out, spec)
		}
		return nil
	})
	return out, err
}

// Validator returns coll's validator, or Missing when it has none.
func (d *DB) Validator(ctx context.Context, coll string) (value.Value, error) {
	specs, err := d.db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return value.Value{}, wrapErr(d.target, "list the collections of", err)
	}
	for _, s := range specs {
		if s.Options == nil {
			continue
		}
		v, err := bson.Raw(s.Options).LookupErr("validator")
		if err != nil || v.Type != bson.TypeEmbeddedDocument {
			continue
		}
		return fromDoc(v.Document())
	}
	return value.Value{}, nil
}

// InsertMany inserts docs into coll in order, as one ordered insertMany
// (the driver splits it into messages the server accepts). It stops at
// the first document the server refuses: the ones before it are kept,
// the count says how many.
func (d *DB) InsertMany(ctx context.Context, coll string, docs []value.Value) (int, error) {
	many := make([]any, len(docs))
	for i, doc := range docs {
		b, err := docToBSON(doc)
		if err != nil {
			return 0, err
		}
		many[i] = b
	}
	res, err := d.db.Collection(coll).InsertMany(ctx, many, options.InsertMany().SetOrdered(true))
	n := 0
	if res != nil {
		n = len(res.InsertedIDs)
	}
	if err != nil {
		var bw mongo.BulkWriteException
		if errors.As(err, &bw) && len(bw.WriteErrors) > 0 && bw.WriteErrors[0].Index < len(docs) {
			we := bw.WriteErrors[0]
			n = we.Index
			kind := errs.Invalid // a document the server refuses, such as one its validator fails
			if we.Code == 11000 {
				kind = errs.Conflict
			}
			return n, errs.Errorf(kind, "MongoDB at %s refused document %d of the batch into `%s` (_id %s): %s", d.target.Redacted, n, coll,
				value.AppendEJSON(nil, docs[n].Get("_id"), value.EJSONRelaxed), Redact(we.Message, d.target.URI))
		}
		return n, wrapErr(d.target, "insert into", err)
	}
	return n, nil
}

// LastID returns the greatest _id of coll (Missing when it is empty) and
// its count.
func (d *DB) LastID(ctx context.Context, coll string) (value.Value, int64, error) {
	c := d.db.Collection(coll)
	n, err := c.CountDocuments(ctx, bson.D{})
	if err != nil || n == 0 {
		return value.Value{}, 0, wrapIfErr(d.target, "count in", err)
	}
	opts := options.FindOne().SetSort(bson.D{{Key: "_id", Value: int32(-1)}}).SetProjection(bson.D{{Key: "_id", Value: int32(1)}})
	raw, err := c.FindOne(ctx, bson.D{}, opts).Raw()
	if err != nil {
		return value.Value{}, 0, wrapErr(d.target, "find in", err)
	}
	doc, err := fromDoc(raw)
	if err != nil {
		return value.Value{}, 0, err
	}
	return doc.Get("_id"), n, nil
}

func wrapIfErr(t *Target, doing string, err error) error {
	if err == nil {
		return nil
	}
	return wrapErr(t, doing, err)
}

// CopyMeta returns omgdb's record of coll in CopyMetaCollection, or
// Missing when copy never wrote one.
func (d *DB) CopyMeta(ctx context.Context, coll string) (value.Value, error) {
	raw, err := d.db.Collection(CopyMetaCollection).FindOne(ctx, bson.D{{Key: "_id", Value: coll}}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return value.Value{}, nil
	}
	if err != nil {
		return value.Value{}, wrapErr(d.target, "read from", err)
	}
	return fromDoc(raw)
}

// SetCopyMeta replaces omgdb's record of coll (a document whose _id is
// the collection's name).
func (d *DB) SetCopyMeta(ctx context.Context, coll string, meta value.Value) error {
	doc, err := docToBSON(meta)
	if err != nil {
		return err
	}
	_, err = d.db.Collection(CopyMetaCollection).ReplaceOne(ctx, bson.D{{Key: "_id", Value: coll}}, doc, options.Replace().SetUpsert(true))
	return wrapIfErr(d.target, "write to", err)
}
