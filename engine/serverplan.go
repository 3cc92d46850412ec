package engine

import (
	"strings"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/value"
)

// PlannedByServer is the "planner" of a plan the server made: omgdb
// checked the query, the server planned and ran it.
const PlannedByServer = "server"

// ServerPlan maps a server's explain of q on coll to the shape `omgdb
// explain` prints for a store file:
//
//	{"collection","filter","sort","skip","limit","count","pipeline",
//	 "planner":"server","winningPlan":{stage tree},"sortBy":"index"|"memory",
//	 "rejectedPlans":[{"stage","indexName","keyPattern"}],
//	 "executionStats":{"nReturned","totalKeysExamined","totalDocsExamined","executionTimeMillis"},
//	 "notes":[…],"serverExplain":{…}}
//
// The stage tree is MongoDB's own (its queryPlan under the slot-based
// engine, the first $cursor stage's for a pipeline). What has no
// counterpart is left out, never made up: the file's estimatedKeys,
// estimatedCost, reason and unusableIndexes; executionStats when the
// server gave none. A server that plans in another form (FerretDB gives
// SQLite's plan lines) is mapped as far as its lines say, with a note.
// serverExplain is the server's answer without serverInfo, command and
// the reply's bookkeeping fields.
func ServerPlan(coll string, q *ExplainQuery, raw value.Value) value.Value {
	m := &planMap{}
	fields := queryFields(coll, q)
	fields = append(fields, value.Field{Key: "planner", Value: value.StringValue(PlannedByServer)})
	planner := queryPlanner(raw)
	tree := m.winningPlan(planner, raw)
	fields = append(fields, value.Field{Key: "winningPlan", Value: tree})
	sorted := q.Pipeline.IsMissing() && !q.Count && !empty(q.Find.Sort)
	if sorted {
		fields = append(fields, value.Field{Key: "sortBy", Value: value.StringValue(m.sortBy(tree, raw))})
	}
	fields = append(fields, value.Field{Key: "rejectedPlans", Value: rejected(planner)})
	if q.Execute {
		if st, ok := executionStats(raw); ok {
			fields = append(fields, value.Field{Key: "executionStats", Value: st})
		} else {
			m.note("the server gave no execution statistics (executionStats): nothing was counted")
		}
	}
	if len(m.notes) > 0 {
		fields = append(fields, value.Field{Key: "notes", Value: value.ArrayValue(m.notes)})
	}
	return value.ObjectValue(append(fields, value.Field{Key: "serverExplain", Value: serverExplain(raw)}))
}

type planMap struct{ notes []value.Value }

func (m *planMap) note(s string) { m.notes = append(m.notes, value.StringValue(s)) }

// queryFields are the plan's first fields: the query as the user gave it.
func queryFields(coll string, q *ExplainQuery) []value.Field {
	fields := []value.Field{{Key: "collection", Value: value.StringValue(coll)}}
	// The collation as omgdb's parser read it (its defaults explicit),
	// where a file's plan puts it: after the filter or the pipeline.
	var collated []value.Field
	if c, err := collation.Parse(q.Collation); err == nil && c != nil {
		collated = []value.Field{{Key: "collation", Value: c.Value()}}
	}
	if !q.Pipeline.IsMissing() {
		return append(append(fields, value.Field{Key: "pipeline", Value: q.Pipeline}), collated...)
	}
	filter := q.Find.Filter
	if filter.IsMissing() {
		filter = value.ObjectValue(nil)
	}
	fields = append(append(fields, value.Field{Key: "filter", Value: filter}), collated...)
	if q.Count {
		return append(fields, value.Field{Key: "count", Value: value.BoolValue(true)})
	}
	if !empty(q.Find.Sort) {
		fields = append(fields, value.Field{Key: "sort", Value: q.Find.Sort})
	}
	if q.Find.Skip > 0 {
		fields = append(fields, value.Field{Key: "skip", Value: value.LongValue(q.Find.Skip)})
	}
	if q.Find.Limit > 0 {
		fields = append(fields, value.Field{Key: "limit", Value: value.LongValue(q.Find.Limit)})
	}
	return fields
}

// queryPlanner finds the queryPlanner section: at the top, or in the
// first stage ($cursor) of an aggregate's explain.
func queryPlanner(raw value.Value) value.Value {
	if qp := raw.Get("queryPlanner"); qp.IsObject() {
		return qp
	}
	if stages := raw.Get("stages"); stages.Kind() == value.Array && stages.Len() > 0 {
		return stages.Index(0).Get("$cursor").Get("queryPlanner")
	}
	return value.MissingValue
}

// winningPlan is the server's winning stage tree, or one read from
// FerretDB's SQLite plan lines.
func (m *planMap) winningPlan(planner, raw value.Value) value.Value {
	wp := planner.Get("winningPlan")
	if qp := wp.Get("queryPlan"); qp.IsObject() {
		wp = qp // the slot-based engine's form
	}
	if wp.IsObject() {
		return wp
	}
	if lines := planner.Get("Plan"); lines.Kind() == value.Array {
		m.note("the server planned in SQLite (FerretDB): the stage is read from its plan lines, kept in serverExplain")
		return sqlitePlan(lines, raw)
	}
	m.note("the server's explain has no winning plan omgdb can read; see serverExplain")
	return value.ObjectValue([]value.Field{{Key: "stage", Value: value.StringValue("UNKNOWN")}})
}

// sqlitePlan maps SQLite's query plan lines ("SCAN t", "SEARCH t USING
// INDEX i (…)"): an index search is an IXSCAN, else a collection scan;
// what FerretDB did not push down to SQLite (filter, sort, limit) it ran
// in memory.
func sqlitePlan(lines, raw value.Value) value.Value {
	tree := value.ObjectValue([]value.Field{{Key: "stage", Value: value.StringValue("COLLSCAN")}, {Key: "direction", Value: value.StringValue("forward")}})
	for _, l := range lines.Array() {
		s := l.Str()
		if i := strings.Index(s, "USING INDEX "); i >= 0 && strings.Contains(s, "SEARCH ") {
			name, _, _ := strings.Cut(s[i+len("USING INDEX "):], " ")
			tree = value.ObjectValue([]value.Field{{Key: "stage", Value: value.StringValue("IXSCAN")}, {Key: "indexName", Value: value.StringValue(name)}})
		}
		if strings.Contains(s, "USING PRIMARY KEY") || strings.Contains(s, "USING INTEGER PRIMARY KEY") {
			tree = value.ObjectValue([]value.Field{{Key: "stage", Value: value.StringValue("IXSCAN")}, {Key: "indexName", Value: value.StringValue("_id_")}})
		}
	}
	return tree
}

// sortBy says where the sort is done: in memory when the tree has a SORT
// stage (or, on FerretDB, when the sort was not pushed down).
func (m *planMap) sortBy(tree, raw value.Value) string {
	if pd := raw.Get("sortPushdown"); pd.Kind() == value.Bool {
		if pd.Bool() {
			return "index"
		}
		return "memory"
	}
	if hasStage(tree, "SORT") {
		return "memory"
	}
	return "index"
}

// hasStage reports whether the tree has a stage named name (or starting
// with it: SORT_KEY_GENERATOR is not SORT).
func hasStage(tree value.Value, name string) bool {
	if !tree.IsObject() {
		return false
	}
	if tree.Get("stage").Str() == name {
		return true
	}
	if hasStage(tree.Get("inputStage"), name) || hasStage(tree.Get("queryPlan"), name) {
		return true
	}
	if in := tree.Get("inputStages"); in.Kind() == value.Array {
		for _, s := range in.Array() {
			if hasStage(s, name) {
				return true
			}
		}
	}
	return false
}

// rejected lists the rejected plans as the file does: each one's stage
// and, for an index scan, its index and key pattern (its leaf).
func rejected(planner value.Value) value.Value {
	out := []value.Value{}
	rp := planner.Get("rejectedPlans")
	if rp.Kind() != value.Array {
		return value.ArrayValue(out)
	}
	for _, p := range rp.Array() {
		if qp := p.Get("queryPlan"); qp.IsObject() {
			p = qp
		}
		leaf := p
		for leaf.Get("inputStage").IsObject() {
			leaf = leaf.Get("inputStage")
		}
		f := []value.Field{{Key: "stage", Value: leaf.Get("stage")}}
		if name := leaf.Get("indexName"); !name.IsMissing() {
			f = append(f, value.Field{Key: "indexName", Value: name}, value.Field{Key: "keyPattern", Value: leaf.Get("keyPattern")})
		}
		out = append(out, value.ObjectValue(f))
	}
	return value.ArrayValue(out)
}

// executionStats takes the file's four figures from the server's
// executionStats (at the top, or in an aggregate's $cursor stage).
func executionStats(raw value.Value) (value.Value, bool) {
	st := raw.Get("executionStats")
	if !st.IsObject() {
		if stages := raw.Get("stages"); stages.Kind() == value.Array && stages.Len() > 0 {
			st = stages.Index(0).Get("$cursor").Get("executionStats")
		}
	}
	if !st.IsObject() {
		return value.MissingValue, false
	}
	var fields []value.Field
	for _, k := range []string{"nReturned", "totalKeysExamined", "totalDocsExamined", "executionTimeMillis"} {
		if v := st.Get(k); v.IsNumber() {
			fields = append(fields, value.Field{Key: k, Value: v})
		}
	}
	return value.ObjectValue(fields), true
}

// serverExplain is the server's answer without what describes the server
// or echoes the command.
func serverExplain(raw value.Value) value.Value {
	for _, k := range []string{"serverInfo", "serverParameters", "command", "ok", "$clusterTime", "operationTime"} {
		raw = raw.Without(k)
	}
	return raw
}
