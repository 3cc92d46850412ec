package mcpserver

import (
	"context"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) distinctTool() *tool {
	return &tool{
		Name: "distinct", Title: "Distinct values", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: "Sorted distinct values of a field (arrays give their elements).",
		Params: []param{s.pathParam(), collectionParam,
			{Name: "field", Type: "string", Required: true, Description: "Dotted path.", MaxLength: 1000}, filterParam, maxBytesParam, collationParam},
		Output: outputSchema([]string{"values", "distinct"}, "values", tArr(obj()), "distinct", tInt(), "applied_limits", tObj()),
		Run:    runDistinct,
	}
}

func runDistinct(ctx context.Context, c *call) (*output, error) {
	cl, err := c.collation()
	if err != nil {
		return nil, err
	}
	filter, err := compileFilterColl(c.value("filter"), cl)
	if err != nil {
		return nil, err
	}
	coll, field := c.str("collection"), c.str("field")
	var vals []value.Value
	err = c.view(coll, func(_ *store.Tx, col *store.Collection) error {
		if dc := c.defaultCollation(col); dc != nil {
			cl = dc
		}
		if cl != nil && filter == nil {
			filter, _ = query.CompileFilterCollation(value.ObjectValue(nil), cl) // distinct compares by it
		} else if filter, err = c.collatedFilter(col, c.value("filter"), filter); err != nil {
			return err
		}
		if err := c.indexCheck(ctx, col, store.Query{Filter: filter}, false); err != nil {
			return err
		}
		vals, err = col.Distinct(ctx, field, store.Query{Filter: filter, Redact: c.redactor(coll)}, 0)
		if err != nil {
			return argError(err, "field")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c.distinctOutput(coll, vals), nil
}

// distinctOutput is distinct's result: the values within the caps.
func (c *call) distinctOutput(coll string, vals []value.Value) *output {
	kept, limits := c.capValues(vals)
	out := newOutput(obj("collection", coll, "values", arr(kept...), "distinct", len(vals), "applied_limits", limits))
	out.fence = "values of `" + coll + "`"
	out.returned, out.matched = int64(len(kept)), matchCount{n: int64(len(vals))}
	return out
}

// capValues keeps the values that fit --max-docs and the byte cap, and
// says which cap fired (missing when none did).
func (c *call) capValues(vals []value.Value) ([]value.Value, value.Value) {
	maxDocs, maxBytes := c.srv.cfg.MaxDocs, c.maxBytes()
	var limits []value.Field
	size := 0
	for i, v := range vals {
		if i == maxDocs {
			limits = append(limits, value.Field{Key: "max_docs", Value: value.LongValue(int64(maxDocs))})
			return vals[:i], value.ObjectValue(limits)
		}
		v, _ = truncateStrings(v, c.srv.cfg.MaxString)
		vals[i] = v
		if size += len(encodeJSON(nil, v)) + 1; size > maxBytes {
			limits = append(limits, value.Field{Key: "max_bytes", Value: value.LongValue(int64(maxBytes))})
			return vals[:i], value.ObjectValue(limits)
		}
	}
	return vals, value.MissingValue
}
