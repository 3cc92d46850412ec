package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// diagnoseLimit bounds the documents the diagnose tool reads.
const diagnoseLimit = 100000

func (s *Server) explainTool() *tool {
	return &tool{
		Name: "explain", Title: "Explain a query plan", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("find's plan (COLLSCAN or IXSCAN with bounds, index or memory sort,",
			"rejected plans); executionStats runs it (keys, docs read, ms). Example:",
			s.example("collection", "users", "filter", obj("age", 30), "verbosity", "executionStats")),
		Params: []param{s.pathParam(), collectionParam, filterParam, sortParam,
			{Name: "verbosity", Type: "string", Enum: []string{"queryPlanner", "executionStats"}, Default: value.StringValue("queryPlanner"), Description: "Mode."},
			collationParam},
		Output: outputSchema([]string{"plan"}, "plan", tObj(), "redacted", tArr(tStr())),
		Run:    runExplain,
	}
}

func runExplain(ctx context.Context, c *call) (*output, error) {
	cl, err := c.collation()
	if err != nil {
		return nil, err
	}
	var plan value.Value
	var coll string
	err = c.view(c.str("collection"), func(_ *store.Tx, col *store.Collection) error {
		coll = col.Name()
		// The query find would run: the collation given, else the
		// collection's default.
		if dc := c.defaultCollation(col); dc != nil {
			cl = dc
		}
		q, err := c.filterSortCollation(cl)
		if err != nil {
			return err
		}
		// Under redaction the plan is the one find runs: a collection scan
		// (index bounds and estimates would reveal redacted values).
		q.Redact = c.redactor(coll)
		plan, err = col.Explain(ctx, q, &store.ExplainOptions{Execute: c.str("verbosity") == "executionStats"})
		return err
	})
	if err != nil {
		return nil, err
	}
	return newOutput(obj("collection", coll, "plan", plan, "redacted", c.redactedValue(coll))), nil
}

// redactedValue lists the collection's redacted fields, or is missing.
func (c *call) redactedValue(coll string) value.Value {
	if names := c.srv.policy.redactedNames(coll); len(names) > 0 {
		return jv(names)
	}
	return value.MissingValue
}

func (s *Server) diagnoseTool() *tool {
	return &tool{
		Name: "diagnose", Title: "Diagnose a filter", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Why a filter matches what it does (or nothing): per-predicate counts, hints with a fixed",
			"filter (did-you-mean, type mismatch). Example:",
			s.example("collection", "users", "filter", obj("age", "30"))),
		Params: []param{s.pathParam(), collectionParam, filterParam},
		Output: outputSchema([]string{"verdict"}, "verdict", tStr(), "matches", tInt(),
			"predicates", tList(), "hints", tList(), "note", tStr(), "redacted", tArr(tStr())),
		Run: runDiagnose,
	}
}

func runDiagnose(ctx context.Context, c *call) (*output, error) {
	spec := c.value("filter")
	filter, err := compileFilter(spec)
	if err != nil {
		return nil, err
	}
	var data value.Value
	coll := c.str("collection")
	err = c.view(coll, func(_ *store.Tx, col *store.Collection) error {
		if c.redactor(coll) == nil {
			d, err := col.Diagnose(ctx, filter, &store.DiagnoseOptions{Limit: diagnoseLimit})
			if err != nil {
				return err
			}
			data, err = diagnosisValue(d)
			return err
		}
		// The engine's diagnose scans documents unredacted, and its counts
		// and hints (did-you-mean, would_match of a fix) would reveal
		// redacted values: use the interim diagnosis, which reads redacted
		// documents only.
		n, err := c.count(ctx, col, filter)
		if err != nil {
			return err
		}
		verdict := fmt.Sprintf("the filter matches %d document(s)", n)
		if n == 0 {
			verdict = interimReason(ctx, c, col, spec, 0, 0)
		}
		data = obj("collection", coll, "verdict", verdict, "matches", n, "redacted", c.redactedValue(coll),
			"note", "collection has redacted fields: per-predicate counts and hints are not available")
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := newOutput(data)
	out.fence = "diagnosis of `" + coll + "`"
	return out, nil
}

// diagnosisValue converts the engine's diagnosis to a value.
func diagnosisValue(d *store.Diagnosis) (value.Value, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return value.Value{}, err
	}
	return value.Parse(b)
}

// engineReason is the engine diagnose verdict for an empty find on a
// collection without redaction; ok is false when it is not available.
// Under redaction the engine cannot be used: it reads documents
// unredacted, so its verdict could name or count redacted values.
func engineReason(ctx context.Context, c *call, col *store.Collection, spec value.Value) (string, bool) {
	if c.redactor(col.Name()) != nil {
		return "", false
	}
	f, err := compileFilter(spec)
	if err != nil || f == nil {
		return "", false
	}
	d, err := col.Diagnose(ctx, f, &store.DiagnoseOptions{Limit: reasonSample})
	if err != nil || d.Verdict == "" {
		return "", false
	}
	if d.Examined < d.Documents {
		return fmt.Sprintf("%s (in the first %d documents)", d.Verdict, d.Examined), true
	}
	return d.Verdict, true
}
