package cli

import (
	"context"
	"io"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/value"
)

// mongoExport is export over MongoDB: the same find as on a file
// (--query, --fields as a projection, --sort followed by _id, --skip,
// --limit), streamed from the server in _id order unless --sort, and
// written by the same exporter (JSON lines, --jsonArray, --pretty, CSV,
// --out whole or not at all), or printed as find prints documents.
func (e *env) mongoExport(ctx context.Context, opts *exportOptions, fo *findOptions, fields []string) error {
	fo.path, fo.coll, fo.out, fo.maxMemory = opts.path, opts.coll, opts.out, sortMemory
	f := &opts.mongo
	if !f.shaped() {
		return e.mongoFind(ctx, fo)
	}
	q, cv, err := e.mongoQuery(fo)
	if err != nil {
		return err
	}
	return e.writeOut(f.out, func(w io.Writer) error {
		x := newExporter(w, f, opts.out.ejson.mode, fields)
		err := e.withMongoCollated(ctx, opts.path, cv, func(db *mongoengine.DB) error {
			return db.Find(ctx, opts.coll, q, func(doc value.Value) error {
				var js []byte
				if x.csv == nil {
					js = value.JSON(doc)
				}
				return x.doc(func() value.Value { return doc }, js)
			})
		})
		if err != nil {
			return err
		}
		return x.close()
	})
}
