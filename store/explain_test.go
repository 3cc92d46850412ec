package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// explainStore has 1,000 users with indexes on age, a compound index on
// city and age, a multikey index on tags, a unique index on email and a
// sparse index on nick.
func explainStore(t *testing.T) *store.DB {
	t.Helper()
	db := storetest.MustOpen(t)
	var docs []string
	cities := []string{"Paris", "Lima", "Osaka", "Lagos"}
	for i := 0; i < 1000; i++ {
		doc := fmt.Sprintf(`{"_id":%d,"name":"u%04d","email":"u%d@x","age":%d,"city":"%s","tags":["t%d","t%d"]`,
			i, i, i, 18+i%50, cities[i%4], i%10, i%7)
		if i%20 == 0 {
			doc += fmt.Sprintf(`,"nick":"n%d"`, i)
		}
		docs = append(docs, doc+"}")
	}
	storetest.Insert(t, db, "users", docs...)
	for _, spec := range []store.BTreeSpec{
		{Fields: []store.IndexField{{Path: "age"}}},
		{Fields: []store.IndexField{{Path: "city"}, {Path: "age", Desc: true}}},
		{Fields: []store.IndexField{{Path: "tags"}}},
		{Fields: []store.IndexField{{Path: "email"}}, Unique: true},
		{Fields: []store.IndexField{{Path: "nick"}}, Sparse: true},
	} {
		if err := createIndex(t, db, "users", spec); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

type explainCase struct {
	name, filter, sort string
	skip, limit        int64
	count              bool
	hint               string
	stage, index       string // expected winning scan, and its index
}

var explainCases = []explainCase{
	{name: "equality", filter: `{"age":30}`, stage: "IXSCAN", index: "age_1"},
	{name: "range", filter: `{"age":{"$gt":60,"$lte":65}}`, stage: "IXSCAN", index: "age_1"},
	{name: "in", filter: `{"age":{"$in":[20,40,30]}}`, stage: "IXSCAN", index: "age_1"},
	{name: "compound_prefix", filter: `{"city":"Lima"}`, stage: "IXSCAN", index: "city_1_age_-1"},
	{name: "compound_both", filter: `{"city":{"$in":["Lima","Paris"]},"age":{"$gte":60}}`, stage: "IXSCAN", index: "city_1_age_-1"},
	{name: "sort_only", filter: `{}`, sort: `{"age":1}`, limit: 5, stage: "IXSCAN", index: "age_1"},
	{name: "sort_backward", filter: `{"age":{"$gte":40}}`, sort: `{"age":-1}`, stage: "IXSCAN", index: "age_1"},
	{name: "filter_and_sort_same_index", filter: `{"city":"Osaka"}`, sort: `{"age":-1}`, limit: 3, stage: "IXSCAN", index: "city_1_age_-1"},
	{name: "sort_in_memory", filter: `{"age":{"$lt":20}}`, sort: `{"name":-1}`, stage: "IXSCAN", index: "age_1"},
	{name: "multikey", filter: `{"tags":"t3","age":{"$gt":50}}`, stage: "IXSCAN", index: "tags_1"},
	{name: "multikey_sort", filter: `{"tags":{"$in":["t1","t2"]}}`, sort: `{"tags":1}`, stage: "IXSCAN", index: "tags_1"},
	{name: "unique", filter: `{"email":"u7@x"}`, stage: "IXSCAN", index: "email_1"},
	{name: "sparse_usable", filter: `{"nick":{"$exists":true}}`, stage: "IXSCAN", index: "nick_1"},
	{name: "sparse_unusable", filter: `{"nick":null}`, stage: "COLLSCAN"},
	{name: "id", filter: `{"_id":{"$gte":10,"$lt":13}}`, stage: "IXSCAN", index: "_id_"},
	{name: "regex_prefix", filter: `{"email":{"$regex":"^u99"}}`, stage: "IXSCAN", index: "email_1"},
	{name: "no_index", filter: `{"name":"u0001"}`, stage: "COLLSCAN"},
	{name: "negation", filter: `{"age":{"$ne":30}}`, stage: "COLLSCAN"},
	{name: "count_covered", filter: `{"age":{"$gte":20,"$lt":25}}`, count: true, stage: "IXSCAN", index: "age_1"},
	{name: "count_fetch", filter: `{"age":30,"name":{"$gt":"u05"}}`, count: true, stage: "IXSCAN", index: "age_1"},
	{name: "hint_natural", filter: `{"age":30}`, hint: "$natural", stage: "COLLSCAN"},
	{name: "skip_limit", filter: `{"city":"Paris","age":{"$gte":60}}`, skip: 2, limit: 2, stage: "IXSCAN", index: "city_1_age_-1"},
	{name: "limit_broad", filter: `{"city":"Paris"}`, limit: 2, stage: "COLLSCAN"},
}

var timeRE = regexp.MustCompile(`"executionTimeMillis":[0-9.e+-]+`)

// TestExplain_Golden pins explain's JSON for each case, with execution
// statistics (time masked), and checks the winning plan.
func TestExplain_Golden(t *testing.T) {
	db := explainStore(t)
	for _, c := range explainCases {
		t.Run(c.name, func(t *testing.T) {
			q := store.Query{Filter: mustFilter(t, c.filter), Skip: c.skip, Limit: c.limit, Hint: c.hint}
			if c.sort != "" {
				var err error
				if q.Sort, err = query.CompileSort(value.MustParse(c.sort)); err != nil {
					t.Fatal(err)
				}
			}
			var plan value.Value
			err := db.View(func(tx *store.Tx) error {
				coll, _ := tx.Collection("users")
				var err error
				plan, err = coll.Explain(context.Background(), q, &store.ExplainOptions{Count: c.count, Execute: true})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			js := timeRE.ReplaceAll(value.JSON(plan), []byte(`"executionTimeMillis":0`))
			var pretty bytes.Buffer
			json.Indent(&pretty, js, "", "  ")
			pretty.WriteByte('\n')
			golden := filepath.Join("testdata", "explain", c.name+".json")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("explain differs from %s (run with -update and review the diff):\n%s", golden, pretty.Bytes())
			}
			stage, index := winningScan(plan.Get("winningPlan"))
			if stage != c.stage || index != c.index {
				t.Errorf("winning scan = %s %s, want %s %s", stage, index, c.stage, c.index)
			}
		})
	}
}

// winningScan finds the leaf stage of a plan tree.
func winningScan(v value.Value) (string, string) {
	for !v.Get("inputStage").IsMissing() {
		v = v.Get("inputStage")
	}
	stage := v.Get("stage").Str()
	if stage == "COUNT_SCAN" {
		stage = "IXSCAN"
	}
	return stage, v.Get("indexName").Str()
}
