package engine

import (
	"context"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Inspector is the introspection an engine that runs queries on a
// server offers: the server's own explain of a query, and its storage
// statistics. It is read-only like Reader (nothing in it writes), so a
// read-scope MCP server may be handed one next to its Reader.
type Inspector interface {
	// Explain returns the server's explain of q on coll, as the server
	// gave it (see ServerPlan for the file's shape).
	Explain(ctx context.Context, coll string, q *ExplainQuery) (value.Value, error)
	// CollStats returns the server's collStats of coll.
	CollStats(ctx context.Context, coll string) (value.Value, error)
	// DBStats returns the server's dbStats of the database.
	DBStats(ctx context.Context) (value.Value, error)
}

// ExplainQuery is what to explain: a find, a count of its filter, or a
// pipeline.
type ExplainQuery struct {
	Find     Find        // the find (or, with Count, the filter counted)
	Count    bool        // explain counting Find.Filter's matches
	Pipeline value.Value // explain this aggregate instead, when not Missing
	Execute  bool        // run it too: the server's executionStats
	// Collation compares strings as the query would with it: MongoDB's
	// collation document (Missing or null: none), checked by omgdb's
	// parser and sent with the explained command.
	Collation value.Value
}

// Check compiles the query's parts with omgdb's compiler, and its
// collation with omgdb's collation parser.
func (q *ExplainQuery) Check() error {
	if _, err := collation.Parse(q.Collation); err != nil {
		return err
	}
	if !q.Pipeline.IsMissing() {
		_, err := CheckPipeline(q.Pipeline, &agg.PipelineOptions{})
		return err
	}
	_, err := Check(&q.Find)
	return err
}

// RedactingInspector returns in as seen through redactions, as Redacting
// does for a Reader: on a collection with redacted paths, a find or count
// is explained as the pipeline the redacting reader runs ($unset of the
// paths first), a pipeline gets the $unset as its first stage, and a join
// of a collection with redactions is refused. Statistics pass through:
// they hold sizes and counts, never a value.
func RedactingInspector(in Inspector, paths func(coll string) []string) Inspector {
	return &redactingInspector{Inspector: in, rd: &redacting{paths: paths}}
}

type redactingInspector struct {
	Inspector
	rd *redacting
}

func (ri *redactingInspector) Explain(ctx context.Context, coll string, q *ExplainQuery) (value.Value, error) {
	if err := q.Check(); err != nil {
		return value.Value{}, err
	}
	unset := ri.rd.unset(coll)
	if !q.Pipeline.IsMissing() {
		if err := ri.rd.checkJoins(q.Pipeline); err != nil {
			return value.Value{}, err
		}
	}
	if unset == nil {
		return ri.Inspector.Explain(ctx, coll, q)
	}
	var stages []value.Value
	switch {
	case !q.Pipeline.IsMissing():
		stages = append(unset, q.Pipeline.Array()...)
	case q.Count:
		stages = append(unset, matchStage(q.Find.Filter), stage("$count", value.StringValue("n")))
	default:
		stages = findStages(unset, &q.Find)
	}
	return ri.Inspector.Explain(ctx, coll, &ExplainQuery{Pipeline: value.ArrayValue(stages), Execute: q.Execute, Collation: q.Collation})
}

// checkJoins refuses a pipeline that joins a collection with redactions.
func (rd *redacting) checkJoins(pipeline value.Value) error {
	for _, name := range Joins(pipeline) {
		if len(rd.paths(name)) > 0 {
			return errs.Errorf(errs.Denied, "the pipeline joins `%s`, which has redacted fields", name).
				WithHint("a $lookup, $graphLookup or $unionWith may read only collections without redacted fields; query `%s` on its own", name)
		}
	}
	return nil
}
