package mcpserver

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) exportTool() *tool {
	return &tool{
		Name: "export", Title: "Export documents", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: "A find's matches as NDJSON in a temporary resource (uri), read page by page with resources/read.",
		Params: []param{s.pathParam(), collectionParam, filterParam, sortParam,
			{Name: "project", Type: "object", Description: "Fields."},
			{Name: "limit", Type: "integer", Min: i64(1), Max: i64(maxExportDocs), Description: "Max documents."}, maxBytesParam},
		Output: outputSchema([]string{"uri"}, "uri", tStr(), "documents", tInt(), "bytes", tInt(), "pages", tInt(),
			"expires", tStr(), "applied_limits", tObj()),
		Run: runExport,
	}
}

func runExport(ctx context.Context, c *call) (*output, error) {
	q, err := c.filterSort()
	if err != nil {
		return nil, err
	}
	if v := c.value("project"); !v.IsMissing() {
		if q.Projection, err = query.CompileProjection(v); err != nil {
			return nil, argError(err, "project")
		}
	}
	coll := c.str("collection")
	limit := int(c.int("limit", maxExportDocs))
	var lines [][]byte
	var limits value.Value
	err = c.view(coll, func(_ *store.Tx, col *store.Collection) error {
		// The filter and sort match as find's: by the collection's
		// default collation.
		if dc := c.defaultCollation(col); dc != nil {
			cq, err := c.filterSortCollation(dc)
			if err != nil {
				return err
			}
			q.Filter, q.Sort = cq.Filter, cq.Sort
		}
		if err := c.indexCheck(ctx, col, q, false); err != nil {
			return err
		}
		lines, limits, err = exportLines(ctx, c.scan(ctx, col, q), limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c.exportOutput(coll, lines, limits), nil
}

// exportOutput keeps the lines as an export and returns the tool's
// result that names it.
func (c *call) exportOutput(coll string, lines [][]byte, limits value.Value) *output {
	e := c.keepExport(lines)
	out := newOutput(obj("collection", coll, "uri", exportURI(e.store, e.id, 1), "documents", e.docs, "bytes", e.bytes,
		"pages", len(e.pages), "expires", e.expires.UTC().Format(time.RFC3339), "applied_limits", limits))
	out.returned = int64(e.docs)
	return out
}

// exportLines reads up to limit documents as NDJSON lines, within
// maxExportBytes, and says which bound stopped it (missing when none).
func exportLines(ctx context.Context, src interface {
	Next() bool
	Doc() value.Value
	Err() error
	Close() error
}, limit int) ([][]byte, value.Value, error) {
	defer src.Close()
	var lines [][]byte
	size := 0
	for src.Next() {
		if len(lines) == limit {
			return lines, obj("limit", limit), nil
		}
		js := encodeJSON(nil, src.Doc())
		if size += len(js) + 1; size > maxExportBytes {
			return lines, obj("max_export_bytes", maxExportBytes), nil
		}
		lines = append(lines, js)
		if len(lines)%1024 == 0 && ctx.Err() != nil {
			return nil, value.MissingValue, ctx.Err()
		}
	}
	return lines, value.MissingValue, src.Err()
}

// keepExport stores the lines as an export of the call's session.
func (c *call) keepExport(lines [][]byte) *export {
	b := make([]byte, 12)
	c.srv.cfg.Rand.Read(b)
	now := c.srv.cfg.Now()
	e := &export{id: hex.EncodeToString(b), owner: c.sess, store: c.storePath(), docs: len(lines),
		pages: paginate(lines, c.maxBytes()), expires: now.Add(exportLifetime)}
	for _, p := range e.pages {
		e.bytes += len(p)
	}
	c.srv.exports.add(e, now)
	return e
}
