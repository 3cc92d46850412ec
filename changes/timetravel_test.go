package changes_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func TestAggregateAt_LookupReadsTheSameRevision(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users", `{"_id":1,"name":"ada"}`)
	storetest.Insert(t, db, "orders", `{"_id":10,"user":1}`)
	if _, err := changes.CreateSnapshot(ctx, db, "then", nil); err != nil {
		t.Fatal(err)
	}
	replace(t, db, "users", "1", `{"name":"bob"}`)
	p, err := agg.CompilePipeline(value.MustParse(
		`[{"$lookup":{"from":"users","localField":"user","foreignField":"_id","as":"u"}},{"$project":{"name":{"$first":"$u.name"}}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{"then": `{"_id":10,"name":"ada"}`, "now": `{"_id":10,"name":"bob"}`} {
		var got []string
		err := db.View(func(tx *store.Tx) error {
			rev, err := changes.ResolveRevision(tx, spec)
			if err != nil {
				return err
			}
			src, err := changes.AggregateAt(ctx, tx, "orders", rev, p)
			if err != nil {
				return err
			}
			defer src.Close()
			for src.Next() {
				got = append(got, src.Doc().String())
			}
			return src.Err()
		})
		if err != nil || strings.Join(got, "\n") != want {
			t.Errorf("at %s: %v, %v; want %s", spec, got, err, want)
		}
	}
}

func TestFindAt_SortsAndProjectsAsNow(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":1,"n":3,"x":"a"}`, `{"_id":2,"n":1,"x":"b"}`, `{"_id":3,"n":2,"x":"c"}`)
	write(t, db, func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		return c.Delete(value.LongValue(2))
	})
	sort, _ := query.CompileSort(value.MustParse(`{"n":1}`))
	proj, _ := query.CompileProjection(value.MustParse(`{"x":1,"_id":0}`))
	var got []string
	db.View(func(tx *store.Tx) error {
		src, err := changes.FindAt(ctx, tx, "c", changes.Revision{LSN: 1}, store.Query{Sort: sort, Projection: proj, Skip: 1, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		for src.Next() {
			got = append(got, src.Doc().String())
		}
		return src.Err()
	})
	if strings.Join(got, ",") != `{"x":"c"}` {
		t.Errorf("find at 1 sorted by n, skip 1, limit 1 = %v", got)
	}
}
