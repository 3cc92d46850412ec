package query_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

func TestUpdate_Paths(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		filters []string
		want    []string
	}{
		{`{"$set":{"a":1,"b.c":2}}`, nil, []string{"a", "b.c"}},
		{`{"$inc":{"grades.$.score":1}}`, nil, []string{"grades"}},
		{`{"$set":{"a.$[x].b":1}}`, []string{`{"x.b":{"$gt":0}}`}, []string{"a"}},
		{`{"$set":{"a.$[].b":1}}`, nil, []string{"a"}},
		{`{"$set":{"a.0.b":1,"c.d.12":2}}`, nil, []string{"a", "c.d"}},
		{`{"$rename":{"a":"b.c"}}`, nil, []string{"b.c", "a"}},
		{`{"$unset":{"x":""},"$push":{"tags":"t"},"$currentDate":{"at":true}}`, nil, []string{"x", "tags", "at"}},
		{`{"a":1}`, nil, nil},
	} {
		var filters []value.Value
		for _, f := range tc.filters {
			filters = append(filters, value.MustParse(f))
		}
		u, err := query.CompileUpdate(value.MustParse(tc.spec), &query.UpdateOptions{ArrayFilters: filters})
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		got := u.Paths()
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: Paths() = %q, want %q", tc.spec, got, want)
		}
	}
}

func TestPathsOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a", "a", true}, {"a", "a.b", true}, {"a.b", "a", true}, {"a.b", "a.c", false},
		{"a", "ab", false}, {"ab.c", "a", false}, {"a.b.c", "a.b", true}, {"", "x", true},
		{"score", "email", false}, {"address.zip", "address.city", false},
	} {
		if got := query.PathsOverlap([]string{tc.a}, []string{tc.b}); got != tc.want {
			t.Errorf("PathsOverlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestUpdate_PathsCoverApply: on random documents and updates, every path
// that overlaps none of the update's Paths finds the same values
// (query.Lookup, as indexes read them) before and after the update. Apply
// skips index maintenance on that promise (store.ReplaceJSONAt).
func TestUpdate_PathsCoverApply(t *testing.T) {
	r := rand.New(rand.NewPCG(20261122, 3))
	probes := []string{"a", "b", "c", "a.a", "a.b", "a.c", "b.a", "b.b", "c.c", "a.b.c", "a.a.a", "b.c.a", "a.0", "a.1.b", "b.0.c", "_id"}
	applied, checked := 0, 0
	for i := 0; i < 30000; i++ {
		doc := value.MustParse(strings.TrimSuffix(fmt.Sprintf(`{"_id":%d,%s`, i, randomFields(r, 3)), ",") + "}")
		spec := randomOperators(r)
		v, err := value.Parse([]byte(spec))
		if err != nil { // the same path twice in one operator
			continue
		}
		u, err := query.CompileUpdate(v, nil)
		if err != nil {
			continue
		}
		after, _, err := u.Apply(doc, query.ApplyContext{Now: time.UnixMilli(1700000000000)})
		if err != nil {
			continue
		}
		applied++
		paths := u.Paths()
		for _, p := range probes {
			if query.PathsOverlap(paths, []string{p}) {
				continue
			}
			checked++
			if b, a := lookupJSON(doc, p), lookupJSON(after, p); b != a {
				t.Fatalf("update %s of %s changed %s (%s -> %s), which none of its paths %q overlaps", spec, value.JSON(doc), p, b, a, paths)
			}
		}
	}
	if applied < 5000 || checked < 20000 {
		t.Fatalf("%d updates applied, %d paths checked: the generator misses", applied, checked)
	}
}

func lookupJSON(doc value.Value, path string) string {
	var b strings.Builder
	for _, v := range query.Lookup(doc, path) {
		b.WriteString(string(value.JSON(v)) + ";")
	}
	return b.String()
}

// randomFields returns the fields of a random object over the names a, b
// and c: numbers, strings, objects and arrays of both.
func randomFields(r *rand.Rand, depth int) string {
	var parts []string
	for _, name := range []string{"a", "b", "c"} {
		if r.IntN(4) > 0 {
			parts = append(parts, fmt.Sprintf(`"%s":%s`, name, randomValue(r, depth)))
		}
	}
	return strings.Join(parts, ",")
}

func randomValue(r *rand.Rand, depth int) string {
	switch k := r.IntN(6); {
	case depth > 0 && k == 0:
		return "{" + randomFields(r, depth-1) + "}"
	case depth > 0 && k == 1:
		n := r.IntN(3)
		var elems []string
		for range n {
			elems = append(elems, randomValue(r, depth-1))
		}
		return "[" + strings.Join(elems, ",") + "]"
	case k == 2:
		return fmt.Sprintf(`"s%d"`, r.IntN(3))
	default:
		return fmt.Sprint(r.IntN(5))
	}
}

// randomOperators returns an update of one to three operators on random
// paths over a, b, c, array indexes and $[].
func randomOperators(r *rand.Rand) string {
	path := func() string {
		comps := []string{"a", "b", "c", "0", "1", "$[]"}
		n := 1 + r.IntN(3)
		p := []string{[]string{"a", "b", "c"}[r.IntN(3)]}
		for len(p) < n {
			p = append(p, comps[r.IntN(len(comps))])
		}
		return strings.Join(p, ".")
	}
	ops := map[string][]string{}
	for range 1 + r.IntN(3) {
		var op, arg string
		switch r.IntN(12) {
		case 0:
			op, arg = "$set", randomValue(r, 1)
		case 1:
			op, arg = "$unset", `""`
		case 2:
			op, arg = "$inc", fmt.Sprint(1+r.IntN(3))
		case 3:
			op, arg = "$mul", "2"
		case 4:
			op, arg = "$min", fmt.Sprint(r.IntN(5))
		case 5:
			op, arg = "$max", fmt.Sprint(r.IntN(5))
		case 6:
			op, arg = "$push", randomValue(r, 1)
		case 7:
			op, arg = "$addToSet", randomValue(r, 0)
		case 8:
			op, arg = "$pull", randomValue(r, 0)
		case 9:
			op, arg = "$pop", []string{"1", "-1"}[r.IntN(2)]
		case 10:
			op, arg = "$currentDate", "true"
		case 11:
			op = "$rename"
			arg = fmt.Sprintf(`"%s"`, []string{"a", "b", "c", "a.b", "b.c"}[r.IntN(5)])
			ops[op] = append(ops[op], fmt.Sprintf(`"%s":%s`, []string{"a", "b", "c", "a.a", "c.b"}[r.IntN(5)], arg))
			continue
		}
		ops[op] = append(ops[op], fmt.Sprintf(`"%s":%s`, path(), arg))
	}
	var parts []string
	for op, fields := range ops {
		parts = append(parts, fmt.Sprintf(`"%s":{%s}`, op, strings.Join(fields, ",")))
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}
