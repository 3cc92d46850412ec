package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// recorder is an Inspector that keeps the last query it was asked to
// explain.
type recorder struct {
	coll string
	q    *engine.ExplainQuery
}

func (r *recorder) Explain(_ context.Context, coll string, q *engine.ExplainQuery) (value.Value, error) {
	r.coll, r.q = coll, q
	return value.MustParse(`{"ok":1}`), nil
}
func (r *recorder) CollStats(context.Context, string) (value.Value, error) { return value.Value{}, nil }
func (r *recorder) DBStats(context.Context) (value.Value, error)           { return value.Value{}, nil }

// TestRedactingInspector_Explain: on a collection with redactions, what
// the server explains starts with the $unset of the redacted paths (as
// the read it explains does); joins of such a collection and bad queries
// are refused before the server is asked; other collections pass as
// they are.
func TestRedactingInspector_Explain(t *testing.T) {
	rec := &recorder{}
	in := engine.RedactingInspector(rec, func(coll string) []string {
		if coll == "users" {
			return []string{"ssn", "card.number"}
		}
		return nil
	})
	ctx := context.Background()
	find := engine.Find{Filter: value.MustParse(`{"age":{"$gte":30}}`), Sort: value.MustParse(`{"name":-1}`), Skip: 2, Limit: 5, Projection: value.MustParse(`{"name":1}`)}
	cases := []struct {
		name, coll string
		q          engine.ExplainQuery
		want       string // the query the server got, as JSON: its pipeline, or its filter
	}{
		{"find", "users", engine.ExplainQuery{Find: find, Execute: true},
			`[{"$unset":["ssn","card.number"]},{"$match":{"age":{"$gte":30}}},{"$sort":{"name":-1,"_id":1}},{"$skip":2},{"$limit":5},{"$project":{"name":1}}]`},
		{"count", "users", engine.ExplainQuery{Find: engine.Find{Filter: value.MustParse(`{"ssn":null}`)}, Count: true},
			`[{"$unset":["ssn","card.number"]},{"$match":{"ssn":null}},{"$count":"n"}]`},
		{"pipeline", "users", engine.ExplainQuery{Pipeline: value.MustParse(`[{"$group":{"_id":"$ssn"}}]`)},
			`[{"$unset":["ssn","card.number"]},{"$group":{"_id":"$ssn"}}]`},
		{"no_redactions", "visits", engine.ExplainQuery{Find: find}, `{"age":{"$gte":30}}`},
	}
	for _, c := range cases {
		rec.q = nil
		if _, err := in.Explain(ctx, c.coll, &c.q); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := rec.q.Pipeline
		if got.IsMissing() {
			got = rec.q.Find.Filter
		}
		if js := string(value.AppendEJSON(nil, got, value.EJSONRelaxed)); js != c.want {
			t.Errorf("%s: the server explains %s, want %s", c.name, js, c.want)
		}
		if rec.q.Execute != c.q.Execute {
			t.Errorf("%s: Execute %v, want %v", c.name, rec.q.Execute, c.q.Execute)
		}
	}
	for _, q := range []engine.ExplainQuery{
		{Pipeline: value.MustParse(`[{"$lookup":{"from":"users","localField":"u","foreignField":"_id","as":"u"}}]`)},
		{Pipeline: value.MustParse(`[{"$unionWith":{"coll":"visits","pipeline":[{"$unionWith":"users"}]}}]`)},
		{Find: engine.Find{Filter: value.MustParse(`{"age":{"$gtt":1}}`)}},
		{Pipeline: value.MustParse(`[{"$out":"x"}]`)},
	} {
		rec.q = nil
		_, err := in.Explain(ctx, "visits", &q)
		if err == nil || rec.q != nil {
			t.Errorf("%v: err %v, sent %v; want a refusal before anything is sent", q, err, rec.q)
		}
	}
	_, err := in.Explain(ctx, "visits", &engine.ExplainQuery{Pipeline: value.MustParse(`[{"$lookup":{"from":"users","localField":"u","foreignField":"_id","as":"u"}}]`)})
	var e *errs.Error
	if !errors.As(err, &e) || e.Kind != errs.Denied {
		t.Errorf("a join of a redacted collection: %v, want Denied", err)
	}
}
