package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func suggest(t *testing.T, db *store.DB, filter, sort string) *store.Suggestions {
	t.Helper()
	q := store.Query{Filter: mustFilter(t, filter)}
	if sort != "" {
		var err error
		if q.Sort, err = query.CompileSort(value.MustParse(sort)); err != nil {
			t.Fatal(err)
		}
	}
	var s *store.Suggestions
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("users")
		var err error
		s, err = c.SuggestIndexes(context.Background(), q)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSuggestIndexes_ESR(t *testing.T) {
	db := storetest.MustOpen(t)
	var docs []string
	for i := 0; i < 300; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"city":"c%d","kind":"k%d","age":%d,"name":"n%03d"}`, i, i%5, i%30, i%60, i))
	}
	storetest.Insert(t, db, "users", docs...)
	s := suggest(t, db, `{"age":{"$gte":30},"city":"c1","kind":"k1","name":{"$ne":"x"}}`, `{"name":-1}`)
	if s.Current.Plan != "COLLSCAN" || s.Current.DocsExamined != 300 || !s.Current.SortInMemory {
		t.Errorf("current = %+v", s.Current)
	}
	if len(s.Suggestions) != 2 {
		t.Fatalf("suggestions = %+v", s.Suggestions)
	}
	first := s.Suggestions[0]
	// Equality (the most selective first), then sort, then range.
	if string(first.Key) != `{"kind":1,"city":1,"name":-1,"age":1}` || first.Command != "omgdb create-index "+db.Path()+" users kind,city,name:-1,age" {
		t.Errorf("first suggestion = %s %s", first.Key, first.Command)
	}
	// kind k1 is i%30==1, whose city is always c1 and age 1 or 31: 5 of the 10 have age >= 30.
	if first.DocsExamined != 5 || first.SortInMemory || !strings.Contains(first.Gain, "instead of 300, and avoids the in-memory sort") {
		t.Errorf("first estimate = %+v", first)
	}
	if !strings.HasPrefix(first.Reason, "ESR (equality, sort, range): equality on `kind` (matches 10 alone), then equality on `city` (matches 60 alone), then the sort on `name` (descending), then range on `age`") {
		t.Errorf("reason = %s", first.Reason)
	}
	if alt := s.Suggestions[1]; string(alt.Key) != `{"kind":1}` || alt.DocsExamined != 10 || !alt.SortInMemory {
		t.Errorf("alternative = %+v", alt)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "$ne") {
		t.Errorf("notes = %v", s.Notes)
	}
	// Once created, the index is named as serving the query, and the plan uses it.
	if err := createIndex(t, db, "users", store.BTreeSpec{Fields: []store.IndexField{{Path: "kind"}, {Path: "city"}, {Path: "name", Desc: true}, {Path: "age"}}}); err != nil {
		t.Fatal(err)
	}
	s = suggest(t, db, `{"age":{"$gte":30},"city":"c1","kind":"k1","name":{"$ne":"x"}}`, `{"name":-1}`)
	if s.Current.Plan != "IXSCAN kind_1_city_1_name_-1_age_1" || s.Current.DocsExamined != 5 || s.Current.SortInMemory || s.Suggestions[0].Existing != "kind_1_city_1_name_-1_age_1" {
		t.Errorf("after creating it: current %+v, first %+v", s.Current, s.Suggestions[0])
	}
	// Nothing indexable.
	s = suggest(t, db, `{"$or":[{"age":1},{"city":"c2"}]}`, ``)
	if len(s.Suggestions) != 0 || len(s.Notes) != 2 {
		t.Errorf("$or: %+v", s)
	}
}
