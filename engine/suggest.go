package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// SuggestIndexes proposes indexes for a find of q on coll as
// store.SuggestIndexes does on a file (ESR, with the documents each index
// would read), over a server: today's plan and what it reads come from
// in's explain of q (executed), the existing indexes from r, and each
// estimate is a count asked of r among the first limit documents in _id
// order (DefaultDiagnoseBound when limit <= 0). Through Redacting and
// RedactingInspector the counts see the redacted documents. compiled is
// q compiled (filter and sort). command names the command that creates an
// index (MongoshCreateIndex when nil).
func SuggestIndexes(ctx context.Context, r Reader, in Inspector, coll string, q *Find, compiled store.Query, limit int64, command func([]store.IndexField) string) (*store.Suggestions, error) {
	if limit <= 0 {
		limit = DefaultDiagnoseBound
	}
	if command == nil {
		command = func(fields []store.IndexField) string { return MongoshCreateIndex(coll, fields) }
	}
	eq := &ExplainQuery{Find: Find{Filter: q.Filter, Sort: q.Sort}, Execute: true}
	raw, err := in.Explain(ctx, coll, eq)
	if err != nil {
		return nil, err
	}
	n, err := r.Count(ctx, coll, value.MissingValue)
	if err != nil {
		return nil, err
	}
	current, note := currentPlan(ServerPlan(coll, eq, raw), n)
	ixs, err := r.Indexes(ctx, coll)
	if err != nil {
		return nil, err
	}
	named := make([]store.NamedIndex, len(ixs))
	for i, ix := range ixs {
		named[i] = store.NamedIndex{Name: ix.Name, Key: ix.Key}
	}
	s, err := store.SuggestIndexesSourced(ctx, coll, &readerSource{r: r, coll: coll}, compiled,
		&store.SuggestOptions{Limit: limit, Current: current, Indexes: named, Command: command})
	if err != nil {
		return nil, err
	}
	s.Notes = append(s.Notes, "current is the server's plan (its explain); "+note)
	if s.Documents > limit {
		s.Notes = append(s.Notes, fmt.Sprintf("the estimates count among the first %d of %d documents in _id order", limit, s.Documents))
	}
	return s, nil
}

// currentPlan reads today's plan from a mapped server plan: its leaf
// stage, the documents its executionStats say it examined (or, without
// them, every document for a collection scan), and whether it sorts in
// memory.
func currentPlan(plan value.Value, documents int64) (store.CurrentPlan, string) {
	leaf := plan.Get("winningPlan")
	for leaf.Get("inputStage").IsObject() {
		leaf = leaf.Get("inputStage")
	}
	cp := store.CurrentPlan{Plan: leaf.Get("stage").Str(), SortInMemory: plan.Get("sortBy").Str() == "memory"}
	if name := leaf.Get("indexName"); cp.Plan == "IXSCAN" && !name.IsMissing() {
		cp.Plan += " " + name.Str()
	}
	if st := plan.Get("executionStats").Get("totalDocsExamined"); !st.IsMissing() {
		cp.DocsExamined = StatNumber(st)
		return cp, "docs_examined is its executionStats' totalDocsExamined"
	}
	cp.DocsExamined = documents
	return cp, "the server gave no execution statistics: docs_examined is the collection's count"
}

// MongoshCreateIndex is the mongosh statement that creates an index on
// fields of coll (omgdb create-index creates the same index as a
// journaled change).
func MongoshCreateIndex(coll string, fields []store.IndexField) string {
	spec := &store.BTreeSpec{Fields: fields}
	key := spec.KeyPattern()
	name := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(coll)
	return fmt.Sprintf(`db.getCollection("%s").createIndex(%s)`, name, value.AppendEJSON(nil, key, value.EJSONRelaxed))
}
