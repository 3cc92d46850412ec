package agg_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
)

// TestGroupScan_EqualsRun is the property that a GroupScan, fed batches
// of stored JSON, returns exactly what Run returns on the parsed
// documents (values, numeric types, group order, errors), for random
// documents and random $match + $group pipelines: group keys that are
// missing, null, 1 and 1.0, arrays, objects; sums that overflow a long or
// mix longs and doubles; accumulators that keep their arguments.
func TestGroupScan_EqualsRun(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	iterations := 1500
	if testing.Short() {
		iterations = 200
	}
	ran, grouped, failed := 0, 0, 0
	for it := 0; it < iterations; it++ {
		docs := groupDocs(r)
		var paths []string
		var vals []value.Value
		for _, d := range docs {
			testgen.Collect(d, "", &paths, &vals)
		}
		paths = append(paths, "g", "v", "w", "g.x", "nope")
		spec := randGroupPipeline(r, paths, vals)
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			continue
		}
		g, ok := p.GroupScan()
		if !ok {
			continue
		}
		ran++
		want, wantErr := runAll(p.Run(context.Background(), agg.SliceSource(docs), nil))
		got, gotErr := groupScanAll(r, g, docs)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got != want {
			t.Fatalf("pipeline %s\non %d documents:\nGroupScan = %s (error %v)\nRun       = %s (error %v)", spec, len(docs), got, gotErr, want, wantErr)
		}
		if wantErr != nil {
			failed++
		} else if strings.Count(want, "\n") > 1 {
			grouped++
		}
	}
	t.Logf("%d of %d pipelines ran, %d with several groups, %d failed", ran, iterations, grouped, failed)
	if ran < iterations/2 || grouped < ran/3 || failed == 0 {
		t.Fatalf("weak test: %d of %d pipelines ran, %d with several groups, %d failed", ran, iterations, grouped, failed)
	}
}

// TestGroupScan_Direct: a $group whose key and arguments are fields
// reads them straight from the stored JSON when it can, and decodes the
// document when the walk meets what it leaves to the decoder (an array on
// a path, a space, an escaped key, an Extended JSON wrapper): either way
// the result is Run's.
func TestGroupScan_Direct(t *testing.T) {
	for spec, want := range map[string]bool{
		`[{"$group":{"_id":"$address.city","n":{"$sum":1},"avg":{"$avg":"$score"}}}]`:              true,
		`[{"$group":{"_id":"$a.b","x":{"$max":"$a.c.d"},"y":{"$push":"$a.b"},"z":{"$count":{}}}}]`: true,
		`[{"$group":{"_id":null,"x":{"$sum":"$a.0"}}}]`:                                            true,
		`[{"$group":{"_id":"$a","x":{"$sum":"$a.b"}}}]`:                                            false, // a prefix of another path
		`[{"$group":{"_id":"$a.b","x":{"$sum":"$a"}}}]`:                                            false,
		`[{"$match":{"a":1}},{"$group":{"_id":"$a"}}]`:                                             false,
		`[{"$group":{"_id":{"k":"$a"}}}]`:                                                          false,
		`[{"$group":{"_id":"$a","x":{"$sum":{"$add":["$b",1]}}}}]`:                                 false,
	} {
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		g, ok := p.GroupScan()
		if !ok || agg.GroupScanDirect(g) != want {
			t.Errorf("%s: GroupScan %v, direct %v, want %v", spec, ok, ok && agg.GroupScanDirect(g), want)
		}
	}

	spec := `[{"$group":{"_id":"$a.b","x":{"$push":"$a.c.d"},"y":{"$push":"$e"},"n":{"$sum":1}}}]`
	p, err := agg.CompilePipeline(value.MustParse(spec), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := p.GroupScan()
	for _, c := range []struct {
		doc    string
		direct bool
	}{
		{`{"_id":1,"a":{"b":"k","c":{"d":[1,{"x":2}]}},"e":{"f":{"$date":5}}}`, true},
		{`{"_id":2,"a":{"c":{"z":1,"d":null},"b":2},"e":3}`, true},
		{`{"_id":3,"a":{"b":1.5,"c":7},"e":"x"}`, true}, // a scalar on the way: missing
		{`{"_id":4,"a":null,"e":[1,2]}`, true},
		{`{"_id":5,"z":{"b":1},"e":{"$oid":"0123456789abcdef01234567"}}`, true},
		{`{"_id":6,"a":{"b":"k","c":{"d":1234567890123456789}},"e":-0.0}`, true},
		{`{"_id":7,"a":{"b":"k\"q","c":{"d":"é"}},"e":true}`, true},
		{`{"_id":8,"a":{}}`, true},
		{`{"_id":9,"a":[{"b":1},{"b":2,"c":{"d":3}}],"e":1}`, false}, // an array on the way
		{`{"_id":10,"a":{"b":1,"c":[{"d":1},{"d":[2]}]}}`, false},
		{`{"_id":11, "a":{"b":1}}`, false}, // a space
		{`{"_id":12,"\u0061":{"b":1}}`, false},
		{`{"_id":13,"a":{"$date":5}}`, false}, // an Extended JSON wrapper where a path goes on
	} {
		if _, ok := agg.PathValues(g, []byte(c.doc)); ok != c.direct {
			t.Errorf("%s: direct walk %v, want %v", c.doc, ok, c.direct)
		}
		want, wantErr := runAll(p.Run(context.Background(), agg.SliceSource([]value.Value{value.MustParse(c.doc)}), nil))
		run := g.Start(context.Background(), nil)
		b := run.NewBatch()
		if _, err := b.Extract([]byte(c.doc)); err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		if err := run.Add(b); err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		got, gotErr := runAll(run.Source())
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: GroupScan = %s (%v), Run = %s (%v)", c.doc, got, gotErr, want, wantErr)
		}
	}
}

// TestPipeline_GroupScan_Refused: pipelines a GroupScan cannot run as Run
// would are left to Run.
func TestPipeline_GroupScan_Refused(t *testing.T) {
	for _, spec := range []string{
		`[{"$match":{"$expr":{"$gt":["$a",1]}}},{"$group":{"_id":"$a"}}]`,
		`[{"$group":{"_id":"$$ROOT"}}]`,
		`[{"$group":{"_id":"$a","t":{"$top":{"sortBy":{"b":1},"output":"$c"}}}}]`,
		`[{"$group":{"_id":"$a","f":{"$firstN":{"input":"$b","n":2}}}}]`,
		`[{"$sortByCount":"$a"}]`,
		`[{"$unwind":"$a"},{"$group":{"_id":"$a"}}]`,
		`[{"$match":{"a":1}}]`,
		`[{"$project":{"a":1}},{"$group":{"_id":"$a"}}]`,
	} {
		p, err := agg.CompilePipeline(value.MustParse(spec), nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, ok := p.GroupScan(); ok {
			t.Errorf("GroupScan accepted %s", spec)
		}
	}
	p, err := agg.CompilePipeline(value.MustParse(`[{"$match":{"a":1}},{"$group":{"_id":"$b","n":{"$sum":1}}},{"$sort":{"n":-1}}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := p.GroupScan(); !ok || g.Filter() == nil {
		t.Errorf("GroupScan refused a $match + $group, or lost its filter")
	}
}

// groupDocs returns random documents, half of them with fields g, v and w
// from small sets of values that collide under $group's rules.
func groupDocs(r *rand.Rand) []value.Value {
	keys := []string{`1`, `1.0`, `null`, ``, `"a"`, `[1]`, `[1,2]`, `{"x":1}`, `{"x":1.0}`, `2.5`, `true`, `{"$date":5}`}
	nums := []string{`1`, `2.5`, `-3`, `"s"`, `null`, ``, `9223372036854775807`, `-9223372036854775807`, `1e300`, `0.1`, `[1,2]`, `{"y":"z"}`, `true`}
	n := 1 + r.IntN(40)
	docs := make([]value.Value, n)
	for i := range docs {
		if r.IntN(2) == 0 {
			docs[i] = testgen.Document(r)
			continue
		}
		var fields []string
		if k := keys[r.IntN(len(keys))]; k != "" {
			fields = append(fields, `"g":`+k)
		}
		for _, name := range []string{"v", "w"} {
			if v := nums[r.IntN(len(nums))]; v != "" {
				fields = append(fields, `"`+name+`":`+v)
			}
		}
		fields = append([]string{`"_id":` + fmt.Sprint(i)}, fields...)
		docs[i] = value.MustParse("{" + strings.Join(fields, ",") + "}")
	}
	return docs
}

// randGroupPipeline returns a random [$match?, $group, …] over the paths.
func randGroupPipeline(r *rand.Rand, paths []string, vals []value.Value) string {
	path := func() string { return "$" + paths[r.IntN(len(paths))] }
	var stages []string
	if r.IntN(3) == 0 {
		stages = append(stages, `{"$match":`+string(value.JSON(testgen.Filter(r, paths, vals, 1)))+`}`)
	}
	var id string
	switch r.IntN(8) {
	case 0:
		id = `null`
	case 1:
		id = `"const"`
	case 2:
		id = fmt.Sprintf(`{"a":%q,"b":%q}`, path(), path())
	case 3:
		id = fmt.Sprintf(`{"$add":[%q,1]}`, path()) // fails on strings
	default:
		id = fmt.Sprintf("%q", path())
	}
	ops := []string{"$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$addToSet", "$count", "$stdDevPop", "$stdDevSamp", "$mergeObjects"}
	var accs []string
	for i, n := 0, r.IntN(4); i < n; i++ {
		op := ops[r.IntN(len(ops))]
		arg := fmt.Sprintf("%q", path())
		switch {
		case op == "$count":
			arg = `{}`
		case r.IntN(4) == 0:
			arg = `1`
		}
		accs = append(accs, fmt.Sprintf(`,"f%d":{%q:%s}`, i, op, arg))
	}
	stages = append(stages, `{"$group":{"_id":`+id+strings.Join(accs, "")+`}}`)
	if r.IntN(3) == 0 {
		stages = append(stages, `{"$sort":{"_id":-1}}`)
	}
	return "[" + strings.Join(stages, ",") + "]"
}

// groupScanAll runs g over docs as stored JSON, in batches of random
// sizes, each batch extracted before the previous one is added. The text
// of a batch is overwritten once it is added: nothing may keep it.
func groupScanAll(r *rand.Rand, g *agg.GroupScan, docs []value.Value) (string, error) {
	run := g.Start(context.Background(), nil)
	type batch struct {
		b     *agg.GroupBatch
		texts [][]byte
	}
	add := func(p *batch) error {
		err := run.Add(p.b)
		for _, t := range p.texts {
			for i := range t {
				t[i] = 'x'
			}
		}
		return err
	}
	var pending, spare *batch
	for i := 0; i < len(docs); {
		b := spare
		if b == nil {
			b = &batch{b: run.NewBatch()}
		}
		b.b.Reset()
		b.texts = b.texts[:0]
		for n := 1 + r.IntN(7); n > 0 && i < len(docs); n, i = n-1, i+1 {
			text := value.JSON(docs[i])
			b.texts = append(b.texts, text)
			more, err := b.b.Extract(text)
			if err != nil {
				return "", err
			}
			if !more {
				i = len(docs)
				break
			}
		}
		if pending != nil {
			if err := add(pending); err != nil {
				return "", err
			}
		}
		spare, pending = pending, b
	}
	if pending != nil {
		if err := add(pending); err != nil {
			return "", err
		}
	}
	return runAll(run.Source())
}

// runAll renders a Source's documents as canonical JSON, one a line.
func runAll(src agg.Source) (string, error) {
	defer src.Close()
	var b strings.Builder
	for src.Next() {
		b.Write(value.JSON(src.Doc()))
		b.WriteByte('\n')
	}
	return b.String(), src.Err()
}
