package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestText_RedactBeforeSearch: on a collection whose text index covers a
// field a Redact hook removes (an MCP policy's redacted field), $text
// matches and scores the redacted documents: a search for the removed
// value finds nothing in find, count, distinct or a pipeline, the scores
// are those of the documents without it, and explain names no document
// value.
func TestText_RedactBeforeSearch(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c",
		`{"_id":1,"name":"ada lovelace","ssn":"zebracode ada"}`,
		`{"_id":2,"name":"ada","ssn":"zebracode"}`,
		`{"_id":3,"name":"bob"}`)
	err := db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		return createTextIndex(c, `{"$**":"text"}`)
	})
	if err != nil {
		t.Fatal(err)
	}
	noSSN := func(v value.Value) value.Value { return v.Without("ssn") }
	secret := mustFilter(t, `{"$text":{"$search":"zebracode"}}`)
	ada := mustFilter(t, `{"$text":{"$search":"ada"}}`)
	scored := mustProjection(t, `{"ssn":0,"s":{"$meta":"textScore"}}`)

	if got := findAll(t, db, store.Query{Filter: secret}); len(got) != 2 {
		t.Fatalf("unredacted, the search finds %v; want both documents holding it", got)
	}
	if got := findAll(t, db, store.Query{Filter: secret, Redact: noSSN}); len(got) != 0 {
		t.Errorf("redacted find of the removed value: %v", got)
	}
	// Without ssn, document 1 is "ada lovelace" (0.75) and document 2 "ada"
	// (1.1, a whole-field match); with it, document 1 would score 1.5.
	want := `{"_id":1,"name":"ada lovelace","s":0.75} {"_id":2,"name":"ada","s":1.1}`
	if got := strings.Join(findAll(t, db, store.Query{Filter: ada, Projection: scored, Redact: noSSN}), " "); got != want {
		t.Errorf("redacted scores: %s, want %s", got, want)
	}
	err = db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		ctx := context.Background()
		if n, err := c.CountQuery(ctx, store.Query{Filter: secret, Redact: noSSN}); err != nil || n != 0 {
			t.Errorf("redacted count: %d, %v", n, err)
		}
		if vals, err := c.Distinct(ctx, "_id", store.Query{Filter: secret, Redact: noSSN}, 0); err != nil || len(vals) != 0 {
			t.Errorf("redacted distinct: %v, %v", vals, err)
		}
		p, err := agg.CompilePipeline(value.MustParse(`[{"$match":{"$text":{"$search":"zebracode ada"}}},{"$project":{"s":{"$meta":"textScore"}}}]`), nil)
		if err != nil {
			return err
		}
		got, err := drainText(c.Aggregate(ctx, p, &store.AggregateOptions{Redact: noSSN}))
		if err != nil {
			return err
		}
		if g := strings.Join(got, " "); g != `{"_id":1,"s":0.75} {"_id":2,"s":1.1}` {
			t.Errorf("redacted pipeline: %s", g)
		}
		plan, err := c.Explain(ctx, store.Query{Filter: secret, Redact: noSSN}, nil)
		if err != nil {
			return err
		}
		if s := plan.String(); strings.Contains(s, "lovelace") || !strings.Contains(s, "COLLSCAN") {
			t.Errorf("redacted explain: %s", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
