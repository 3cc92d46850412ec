package changes_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mergeCase is a plan-aggregate whose $merge has a whenMatched pipeline:
// the source and target documents, the target's unique index (if any),
// the pipeline, and the target afterwards (sorted; without _id when
// noID) or the error the plan or its apply gives.
type mergeCase struct {
	from         string // jstests file
	src, dst     []string
	unique       string // comma-separated fields of a unique index on the target
	pipeline     string
	want         []string
	noID         bool
	err          string
	targetAbsent bool
}

// TestPlanAggregate_MergePipeline: $merge with whenMatched as a pipeline,
// with and without let, under each whenNotMatched, ported from
// jstests/aggregation/sources/merge/mode_pipeline_{insert,discard,fail}.js.
// MongoDB writes as it goes and stops at an error; a plan writes nothing
// when it fails, and its apply is all or nothing.
func TestPlanAggregate_MergePipeline(t *testing.T) {
	const ins, dis, fail = "mode_pipeline_insert.js", "mode_pipeline_discard.js", "mode_pipeline_fail.js"
	two := []string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":2,"b":2}`}
	c1 := []string{`{"_id":1,"c":1}`}
	m := func(whenNotMatched, wm string, extra string) string {
		return `[{"$merge":{"into":"dst","whenMatched":` + wm + `,"whenNotMatched":"` + whenNotMatched + `"` + extra + `}}]`
	}
	cases := []mergeCase{
		{from: ins, src: []string{`{"_id":1,"a":1,"b":"a"}`}, targetAbsent: true, pipeline: m("insert", `[{"$addFields":{"x":1}}]`, ""),
			want: []string{`{"_id":1,"x":1}`}},
		{from: ins, src: []string{`{"_id":1,"a":1,"b":"a"}`}, dst: []string{`{"_id":9}`}, pipeline: m("insert", `[{"$addFields":{"x":1,"y":2}}]`, ""),
			want: []string{`{"_id":1,"x":1,"y":2}`, `{"_id":9}`}},
		{from: ins, src: []string{`{"_id":1,"a":1,"b":"a"}`}, dst: []string{`{"_id":1,"x":1,"y":2}`},
			pipeline: m("insert", `[{"$project":{"x":{"$add":["$x",1]},"y":{"$add":["$y",2]}}}]`, ""), want: []string{`{"_id":1,"x":2,"y":4}`}},
		{from: ins, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`}, dst: []string{`{"_id":1,"b":1}`},
			pipeline: m("insert", `[{"$addFields":{"x":{"$add":["$b",1]}}}]`, ""), want: []string{`{"_id":1,"b":1,"x":2}`, `{"_id":2,"x":null}`}},
		{from: ins, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`}, dst: []string{`{"_id":1,"b":1}`},
			pipeline: m("insert", `[{"$project":{"x":{"$add":["$b",1]}}}]`, ""), want: []string{`{"_id":1,"x":2}`, `{"_id":2,"x":null}`}},
		{from: ins, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`}, dst: []string{`{"_id":1,"b":1,"c":{"x":{"y":1}}}`, `{"_id":2,"b":2,"c":{"x":{"y":2}}}`},
			pipeline: m("insert", `[{"$replaceWith":"$c"}]`, ""), want: []string{`{"_id":1,"x":{"y":1}}`, `{"_id":2,"x":{"y":2}}`}},
		{from: ins, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`}, dst: []string{`{"_id":1,"b":1,"c":{"x":{"y":1}}}`, `{"_id":2,"b":2,"c":{"x":{"y":2}}}`},
			pipeline: m("insert", `[{"$replaceRoot":{"newRoot":"$c"}}]`, ""), want: []string{`{"_id":1,"x":{"y":1}}`, `{"_id":2,"x":{"y":2}}`}},
		{from: ins, src: []string{`{"_id":1,"a":1}`}, dst: []string{`{"_id":2,"a":2}`},
			pipeline: m("insert", `[{"$addFields":{"x":1}}]`, ""), want: []string{`{"_id":1,"x":1}`, `{"_id":2,"a":2}`}},
		{from: ins, src: []string{`{"_id":4,"a":2}`}, dst: []string{`{"_id":1,"x":1}`, `{"_id":2,"a":2}`}, unique: "a",
			pipeline: m("insert", `[{"$project":{"x":1,"a":1}}]`, ""), err: "duplicate key"},
		{from: ins, src: []string{`{"_id":1,"a":1}`}, dst: c1,
			pipeline: `[{"$merge":{"into":"dst","on":"nonexistent","whenMatched":[{"$project":{"x":1,"a":1}}],"whenNotMatched":"insert"}}]`, err: "cannot find a unique index"},
		{from: ins, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`, `{"_id":3,"a":30}`}, dst: []string{`{"_id":1,"a":1,"b":1}`, `{"_id":4,"a":30,"b":2}`, `{"_id":5,"a":40,"b":3}`}, unique: "a",
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":"a","whenMatched":[{"$addFields":{"z":1}}],"whenNotMatched":"insert"}}]`,
			want:     []string{`{"a":1,"b":1,"z":1}`, `{"a":2,"z":1}`, `{"a":30,"b":2,"z":1}`, `{"a":40,"b":3}`}, noID: true},
		{from: ins, src: []string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":2,"b":4}`, `{"_id":3,"a":30,"b":2}`}, dst: []string{`{"_id":1,"a":1,"b":1}`, `{"_id":4,"a":30,"b":2}`, `{"_id":5,"a":40,"b":3}`}, unique: "a,b",
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":["a","b"],"whenMatched":[{"$addFields":{"z":1}}],"whenNotMatched":"insert"}}]`,
			want:     []string{`{"a":1,"b":1,"z":1}`, `{"a":2,"b":4,"z":1}`, `{"a":30,"b":2,"z":1}`, `{"a":40,"b":3}`}, noID: true},
		{from: ins, src: []string{`{"_id":1}`}, dst: c1, unique: "z",
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":"z","whenMatched":[{"$addFields":{"z":1}}],"whenNotMatched":"insert"}}]`, err: "cannot be missing, null or an array"},
		{from: ins, src: []string{`{"_id":1,"z":null}`}, dst: c1, unique: "z",
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":"z","whenMatched":[{"$addFields":{"z":1}}],"whenNotMatched":"insert"}}]`, err: "cannot be missing, null or an array"},
		{from: ins, src: []string{`{"_id":1,"z":[1,2]}`}, dst: c1, unique: "z",
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":"z","whenMatched":[{"$addFields":{"z":1}}],"whenNotMatched":"insert"}}]`, err: "cannot be missing, null or an array"},
		{from: ins, src: []string{`{"_id":1,"a":1,"b":"a"}`, `{"_id":2,"a":2,"b":"b"}`}, dst: []string{`{"_id":1,"b":"c"}`},
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","whenMatched":[{"$addFields":{"z":1}}],"whenNotMatched":"insert"}}]`,
			want:     []string{`{"b":"c"}`, `{"z":1}`, `{"z":1}`}, noID: true},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$set":{"x":{"$add":["$$new.a","$$new.b"]}}}]`, ""),
			want: []string{`{"_id":1,"c":1,"x":2}`, `{"_id":2,"x":4}`}},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$project":{"x":"$$new.a","y":"$$new.b"}}]`, `,"let":{"foo":"bar"}`), err: "undefined variable: new"},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$set":{"x":"foo"}}]`, `,"let":{}`),
			want: []string{`{"_id":1,"c":1,"x":"foo"}`, `{"_id":2,"x":"foo"}`}},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$project":{"x":"$$new.a","y":"$$new.b"}}]`, `,"let":{}`), err: "undefined variable: new"},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$project":{"x":"$$new.a","y":"$$new.b"}}]`, `,"let":null`),
			want: []string{`{"_id":1,"x":1,"y":1}`, `{"_id":2,"x":2,"y":2}`}},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$set":{"x":"$$a","y":"$$b","z":"$$c"}}]`, `,"let":{"a":1,"b":"foo","c":true}`),
			want: []string{`{"_id":1,"c":1,"x":1,"y":"foo","z":true}`, `{"_id":2,"x":1,"y":"foo","z":true}`}},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$set":{"x":{"$arrayElemAt":["$$a",1]}}}]`, `,"let":{"a":[1,2,3]}`),
			want: []string{`{"_id":1,"c":1,"x":2}`, `{"_id":2,"x":2}`}},
		{from: ins, src: two, dst: c1, pipeline: m("insert", `[{"$set":{"z":{"$add":["$$x","$$y"]}}}]`, `,"let":{"x":"$a","y":"$b"}`),
			want: []string{`{"_id":1,"c":1,"z":2}`, `{"_id":2,"z":4}`}},
		{from: ins, src: []string{`{"_id":1,"a":[1,2,3]}`, `{"_id":2,"a":[4,5,6]}`}, dst: c1, pipeline: m("insert", `[{"$set":{"z":{"$arrayElemAt":["$$x",1]}}}]`, `,"let":{"x":"$a"}`),
			want: []string{`{"_id":1,"c":1,"z":2}`, `{"_id":2,"z":5}`}},
		{from: ins, src: []string{`{"_id":1,"a":[1,2,3]}`, `{"_id":2,"a":[4,5,6]}`}, dst: c1, pipeline: m("insert", `[{"$set":{"z":"$$x"}}]`, `,"let":{"x":{"$arrayElemAt":["$a",2]}}`),
			want: []string{`{"_id":1,"c":1,"z":3}`, `{"_id":2,"z":6}`}},
		{from: ins, src: []string{`{"_id":1,"a":{"b":{"c":2}}}`, `{"_id":2,"a":{"b":{"c":3}}}`}, dst: c1, pipeline: m("insert", `[{"$set":{"z":{"$pow":["$$x",2]}}}]`, `,"let":{"x":"$a.b.c"}`),
			want: []string{`{"_id":1,"c":1,"z":4}`, `{"_id":2,"z":9}`}},
		{from: ins, src: []string{`{"_id":1,"a":1,"b":1}`, `{"_id":2,"a":1,"b":2}`, `{"_id":3,"a":2,"b":3}`}, dst: c1,
			pipeline: `[{"$group":{"_id":"$a","a":{"$sum":"$b"}}},{"$merge":{"into":"dst","whenMatched":[{"$set":{"z":"$$new"}}],"whenNotMatched":"insert"}}]`,
			want:     []string{`{"_id":1,"c":1,"z":{"_id":1,"a":3}}`, `{"_id":2,"z":{"_id":2,"a":3}}`}},
		{from: ins, src: []string{`{"_id":1,"a":1,"b":5}`, `{"_id":2,"a":1,"b":2}`, `{"_id":3,"a":2,"b":3}`}, dst: c1,
			pipeline: `[{"$group":{"_id":"$a","a":{"$sum":"$b"}}},{"$merge":{"into":"dst","let":{"x":{"$pow":["$a",2]}},"whenMatched":[{"$set":{"z":"$$x"}}],"whenNotMatched":"insert"}}]`,
			want:     []string{`{"_id":1,"c":1,"z":49}`, `{"_id":2,"z":9}`}},
		{from: fail, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`, `{"_id":3,"a":3}`}, dst: []string{`{"_id":1,"b":1}`, `{"_id":3,"b":3}`},
			pipeline: m("fail", `[{"$addFields":{"x":2}}]`, ""), err: "whenNotMatched is \"fail\""},
		{from: fail, src: []string{`{"_id":3,"a":3}`}, dst: []string{`{"_id":1,"b":1}`, `{"_id":3,"b":3}`},
			pipeline: m("fail", `[{"$addFields":{"x":2}}]`, ""), want: []string{`{"_id":1,"b":1}`, `{"_id":3,"b":3,"x":2}`}},
		{from: fail, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`}, dst: []string{`{"_id":1,"b":1}`, `{"_id":2,"b":2}`, `{"_id":3,"b":3}`},
			pipeline: m("fail", `[{"$addFields":{"x":2}}]`, ""), want: []string{`{"_id":1,"b":1,"x":2}`, `{"_id":2,"b":2,"x":2}`, `{"_id":3,"b":3}`}},
		{from: dis, src: []string{`{"_id":1,"a":1}`, `{"_id":2,"a":2}`, `{"_id":3,"a":3}`}, dst: []string{`{"_id":1,"b":1}`, `{"_id":3,"b":3}`},
			pipeline: m("discard", `[{"$set":{"x":1,"y":2}}]`, ""), want: []string{`{"_id":1,"b":1,"x":1,"y":2}`, `{"_id":3,"b":3,"x":1,"y":2}`}},
		{from: dis, src: []string{`{"_id":1,"a":1,"b":"a"}`, `{"_id":2,"a":2,"b":"b"}`, `{"_id":3,"a":30,"b":"c"}`}, dst: []string{`{"_id":1,"a":1,"c":"x"}`, `{"_id":4,"a":30,"c":"y"}`, `{"_id":5,"a":40,"c":"z"}`}, unique: "a",
			pipeline: `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":"a","whenMatched":[{"$set":{"x":1,"y":2}}],"whenNotMatched":"discard"}}]`,
			want:     []string{`{"_id":1,"a":1,"c":"x","x":1,"y":2}`, `{"_id":4,"a":30,"c":"y","x":1,"y":2}`, `{"_id":5,"a":40,"c":"z"}`}},
		{from: dis, src: two, dst: c1, pipeline: m("discard", `[{"$set":{"z":{"$add":["$$x","$$y"]}}}]`, `,"let":{"x":"$a","y":"$b"}`),
			want: []string{`{"_id":1,"c":1,"z":2}`}},
		{from: "omgdb", src: two, dst: c1, pipeline: m("insert", `[{"$set":{"_id":5}}]`, ""), err: "_id is immutable"},
		{from: "omgdb", src: two, dst: c1, pipeline: `[{"$merge":{"into":"dst","whenMatched":"merge","let":{"x":1}}}]`, err: "'let' serves a whenMatched pipeline"},
		{from: "omgdb", src: two, dst: c1, pipeline: m("insert", `[{"$group":{"_id":null}}]`, ""), err: "$group is not allowed to be used within an update"},
		// null and missing: a let variable bound to a null field is null; one
		// bound to a missing field is missing, so $set adds nothing.
		{from: "omgdb", src: []string{`{"_id":1,"a":null}`}, dst: c1, pipeline: m("discard", `[{"$set":{"n":"$$x","m":"$$y","k":{"$type":"$$y"}}}]`, `,"let":{"x":"$a","y":"$nope"}`),
			want: []string{`{"_id":1,"c":1,"n":null,"k":"missing"}`}},
		// mixed numeric types: the on field matches across int32, long,
		// double and decimal128, and arithmetic keeps MongoDB's widening.
		{from: "omgdb", src: []string{`{"_id":{"$numberInt":"1"},"a":{"$numberInt":"2"}}`, `{"_id":{"$numberLong":"2"},"a":2.5}`, `{"_id":{"$numberDecimal":"3"},"a":{"$numberDecimal":"1.5"}}`},
			dst:      []string{`{"_id":1.0,"b":{"$numberLong":"10"}}`, `{"_id":2.0,"b":{"$numberInt":"1"}}`, `{"_id":{"$numberLong":"3"},"b":1}`},
			pipeline: m("fail", `[{"$set":{"s":{"$add":["$b","$$new.a"]},"t":{"$type":{"$add":["$b","$$new.a"]}}}}]`, ""),
			want:     []string{`{"_id":1.0,"b":10,"s":12,"t":"long"}`, `{"_id":2.0,"b":{"$numberInt":"1"},"s":3.5,"t":"double"}`, `{"_id":3,"b":1,"s":{"$numberDecimal":"2.5"},"t":"decimal"}`}},
		// arrays: $$new's array is kept whole, and an "on" field that is an
		// array is refused, as MongoDB refuses it.
		{from: "omgdb", src: []string{`{"_id":1,"a":[1,[2,null]]}`}, dst: c1, pipeline: m("discard", `[{"$set":{"a":"$$new.a","n":{"$size":"$$new.a"}}}]`, ""),
			want: []string{`{"_id":1,"c":1,"a":[1,[2,null]],"n":2}`}},
		{from: "omgdb", src: []string{`{"_id":1,"k":[1]}`}, dst: []string{`{"_id":1,"k":1}`}, unique: "k",
			pipeline: `[{"$merge":{"into":"dst","on":"k","whenMatched":[{"$set":{"x":1}}]}}]`, err: "cannot be missing, null or an array"},
	}
	for i, c := range cases {
		t.Run(c.from+"/"+string(rune('a'+i%26))+strings.Repeat("'", i/26), func(t *testing.T) { runMergeCase(t, c) })
	}
}

func runMergeCase(t *testing.T, c mergeCase) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "src", c.src...)
	if !c.targetAbsent {
		err := db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
			coll, err := tx.CreateCollection("dst")
			if err != nil {
				return err
			}
			for _, d := range c.dst {
				if _, err := coll.Insert(value.MustParse(d)); err != nil {
					return err
				}
			}
			if c.unique == "" {
				return nil
			}
			var fields []store.IndexField
			for _, f := range strings.Split(c.unique, ",") {
				fields = append(fields, store.IndexField{Path: f})
			}
			_, err = coll.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: fields, Unique: true}))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	before := dump(t, db)
	res, err := changes.PlanAggregate(ctx, db, "src", value.MustParse(c.pipeline), nil)
	if err == nil {
		_, err = changes.Apply(ctx, db, res.Token, nil)
	}
	if c.err != "" {
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Fatalf("%s: want error containing %q, got %v", c.pipeline, c.err, err)
		}
		if after := dump(t, db); !sameDocs(before, after) {
			t.Fatalf("%s: a refused plan or apply changed the store", c.pipeline)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", c.pipeline, err)
	}
	got := targetDocs(t, db, c.noID)
	want := append([]string(nil), c.want...)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got  %v\n want %v", c.pipeline, got, want)
	}
}

// sameDocs compares two dumps on their documents (a plan leaves a record
// of itself).
func sameDocs(a, b string) bool {
	docs := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, `"_id"`) {
				out = append(out, l)
			}
		}
		return out
	}
	return slices.Equal(docs(a), docs(b))
}

func targetDocs(t *testing.T, db *store.DB, noID bool) []string {
	t.Helper()
	var out []string
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("dst")
		if err != nil {
			return err
		}
		cur := c.Scan()
		for cur.Next() {
			d := cur.Doc()
			if noID {
				d = d.Without("_id")
			}
			out = append(out, string(value.JSON(d)))
		}
		return cur.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
