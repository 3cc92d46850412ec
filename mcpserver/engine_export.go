package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// export over an engine: the find runs on the server through the
// redacting reader (the redacted paths are removed by the first stage,
// before the filter or sort), in _id order unless sort (then _id breaks
// ties), and its documents are kept as a file's export is: NDJSON pages
// within max_bytes, at most limit documents and maxExportBytes in all,
// read with resources/read in the session that made them.

func init() { engineRuns["export"] = runExportEngine }

func runExportEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	q, err := c.engineFind()
	if err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	limit := int(c.int("limit", maxExportDocs))
	q.Limit = int64(limit) + 1 // one more, to say whether the limit cut it
	src := engine.Stream(ctx, func(ctx context.Context, each func(value.Value) error) error {
		return c.srv.reader.Find(ctx, coll, q, each)
	})
	lines, limits, err := exportLines(ctx, src, limit)
	if err != nil {
		return nil, err
	}
	return c.exportOutput(coll, lines, limits), nil
}
