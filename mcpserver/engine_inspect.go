package mcpserver

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// The read tools that inspect a query or the storage over an engine:
// explain (the server's own plan, in the file's shape), diagnose (the
// file's why-not diagnosis, each count a pipeline on the server through
// the redacting reader, so on the redacted view) and stats (the server's
// collStats, mapped to the file's fields). explain and stats need the
// engine to be an engine.Inspector, a read-only interface: a read-scope
// server is handed the engine as engine.Reader and engine.Inspector only.

func init() {
	engineRuns["explain"] = runExplainEngine
	engineRuns["diagnose"] = runDiagnoseEngine
	engineRuns["stats"] = runStatsEngine
}

// useInspector points explain and stats at the engine's Inspector, seen
// through the redactions.
func (s *Server) useInspector() {
	if in, ok := s.cfg.Engine.(engine.Inspector); ok {
		s.inspector = engine.RedactingInspector(in, s.policy.redactedPaths)
	}
}

// needInspector refuses a tool when the engine cannot explain.
func (c *call) needInspector(tool string) error {
	if c.srv.inspector == nil {
		return errorf(CodeNotFound, "tool `%s` is not supported by this engine", tool).withContext("tool", tool)
	}
	return nil
}

func runExplainEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.needInspector("explain"); err != nil {
		return nil, err
	}
	coll := c.str("collection")
	q := &engine.ExplainQuery{Find: engine.Find{Filter: c.value("filter"), Sort: c.value("sort")}, Execute: c.str("verbosity") == "executionStats",
		Collation: c.value("collation")}
	if _, err := c.filterSort(); err != nil {
		return nil, err
	}
	if _, err := c.collation(); err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	raw, err := c.srv.inspector.Explain(ctx, coll, q)
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "plan", engine.ServerPlan(coll, q, raw), "redacted", c.redactedValue(coll))), nil
}

func runDiagnoseEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	filter, err := compileFilter(c.value("filter"))
	if err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	d, err := engine.Diagnose(ctx, c.srv.reader, coll, filter, diagnoseLimit)
	if err != nil {
		return nil, err
	}
	data, err := diagnosisValue(d)
	if err != nil {
		return nil, err
	}
	if names := c.srv.policy.redactedNames(coll); len(names) > 0 {
		data = data.With("redacted", jv(names)).With("note", jv("counted on the redacted documents: a redacted field is missing in every one"))
	}
	out := newOutput(data)
	out.fence = "diagnosis of `" + coll + "`"
	return out, nil
}

// runStatsEngine gives the file's stats fields that the server's
// collStats has: documents (count), data_bytes (size), indexes
// (nindexes), index_bytes (totalIndexSize); file_bytes has no
// counterpart and is left out.
func runStatsEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.needInspector("stats"); err != nil {
		return nil, err
	}
	names, err := c.engineTargets(ctx)
	if err != nil {
		return nil, err
	}
	var docs, data, ixBytes int64
	colls := []value.Value{}
	for _, name := range names {
		st, err := c.srv.inspector.CollStats(ctx, name)
		if err != nil {
			return nil, err
		}
		cs := engine.CollStatsOf(name, st)
		docs, data, ixBytes = docs+cs.Documents, data+cs.DataBytes, ixBytes+cs.IndexBytes
		colls = append(colls, obj("name", name, "documents", cs.Documents, "data_bytes", cs.DataBytes,
			"indexes", cs.Indexes, "index_bytes", cs.IndexBytes))
	}
	out := newOutput(obj("documents", docs, "data_bytes", data, "index_bytes", ixBytes, "collections", colls,
		"note", fmt.Sprintf("the server's figures (collStats) for %d collection(s); a deployment has no file size", len(colls))))
	out.fence = "statistics"
	return out, nil
}

// engineTargets checks the path and returns the collections a call is
// about: the one its collection argument names, or every visible one.
func (c *call) engineTargets(ctx context.Context) ([]string, error) {
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	if one := c.str("collection"); one != "" {
		return []string{one}, c.engineCollection(ctx, one)
	}
	return c.engineCollections(ctx)
}

func init() { engineRuns["suggest_indexes"] = runSuggestIndexesEngine }

// runSuggestIndexesEngine proposes indexes over the engine: today's plan
// from its explain, each estimate a count through the redacting reader
// (so on the redacted documents), the mongosh statement for each.
func runSuggestIndexesEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.needInspector("suggest_indexes"); err != nil {
		return nil, err
	}
	coll := c.str("collection")
	q, err := c.filterSort()
	if err != nil {
		return nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	spec := &engine.Find{Filter: c.value("filter"), Sort: c.value("sort")}
	sug, err := engine.SuggestIndexes(ctx, c.srv.reader, c.srv.inspector, coll, spec, q, diagnoseLimit, nil)
	if err != nil {
		return nil, err
	}
	v, err := jsonValue(sug)
	if err != nil {
		return nil, err
	}
	out := newOutput(v.Without("filter").Without("sort"))
	out.fence = "index suggestions for `" + coll + "`"
	return out, nil
}

// withEmptyReason gives a find that matched nothing the diagnose verdict
// as its empty_reason, counted among the first reasonSample documents in
// _id order (as on a file). On a collection with redactions the generic
// reason stays: the verdict quotes the filter, which
// may be a probe of a redacted value (the diagnose tool still answers,
// on the redacted documents). So does it when the diagnosis fails, and
// at a revision (the diagnosis would count the collection of that name
// now, which may be another one, or none).
func (c *call) withEmptyReason(ctx context.Context, out *output, coll string, spec value.Value) *output {
	if out.returned != 0 || out.matched.n != 0 || out.matched.atLeast || len(c.srv.policy.redactedNames(coll)) > 0 || c.str("at") != "" {
		return out
	}
	f, err := compileFilter(spec)
	if err != nil {
		return out
	}
	d, err := engine.Diagnose(ctx, c.srv.reader, coll, f, reasonSample)
	if err != nil || d.Verdict == "" {
		return out
	}
	reason := d.Verdict
	if d.Examined < d.Documents {
		reason = fmt.Sprintf("%s (in the first %d documents)", d.Verdict, d.Examined)
	}
	out.data = out.data.With("empty_reason", jv(reason))
	return out
}
