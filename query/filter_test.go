package query_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

func mustFilter(t *testing.T, spec string) *query.Filter {
	t.Helper()
	f, err := query.CompileFilter(value.MustParse(spec))
	if err != nil {
		t.Fatalf("CompileFilter(%s): %v", spec, err)
	}
	return f
}

func TestFilter_Predicates(t *testing.T) {
	f := mustFilter(t, `{"age":{"$gte":30,"$lt":40},"name":"ana","$or":[{"a":1},{"b":2}],`+
		`"tags":{"$options":"i","$regex":"^x"},"$comment":"ignored","n":{"$not":{"$size":2}}}`)
	want := []string{
		`{"age":{"$gte":30}}`,
		`{"age":{"$lt":40}}`,
		`{"name":{"$eq":"ana"}}`,
		`{"$or":[{"a":1},{"b":2}]}`,
		`{"tags":{"$regex":"^x","$options":"i"}}`,
		`{"n":{"$not":{"$size":2}}}`,
	}
	preds := f.Predicates()
	if len(preds) != len(want) {
		t.Fatalf("got %d predicates, want %d: %v", len(preds), len(want), preds)
	}
	for i, p := range preds {
		if p.String() != want[i] {
			t.Errorf("predicate %d = %s, want %s", i, p, want[i])
		}
	}
	if preds[0].Path != "age" || preds[0].Op != "$gte" || preds[0].Operand.String() != "30" {
		t.Errorf("predicate 0 fields = %q %q %s", preds[0].Path, preds[0].Op, preds[0].Operand)
	}
	if preds[3].Path != "" || preds[3].Op != "$or" {
		t.Errorf("predicate 3 fields = %q %q", preds[3].Path, preds[3].Op)
	}

	doc := value.MustParse(`{"age":45,"name":"ana","b":2,"tags":["X1"],"n":[1]}`)
	wantMatch := []bool{true, false, true, true, true, true}
	for i, p := range preds {
		if got := p.Match(doc); got != wantMatch[i] {
			t.Errorf("%s.Match = %v, want %v", p, got, wantMatch[i])
		}
	}
	if f.Match(doc) {
		t.Errorf("filter matched although predicate %s does not", preds[1])
	}
	if !f.Match(value.MustParse(`{"age":35,"name":"ana","a":1,"tags":"xy","n":5}`)) {
		t.Errorf("filter did not match a document every predicate matches")
	}
}

func TestFilter_Fields(t *testing.T) {
	f := mustFilter(t, `{"a.b":1,"$or":[{"c":1},{"d":{"$elemMatch":{"e":1,"f.g":{"$gt":2}}}}],`+
		`"h":{"$not":{"$gt":1}},"c":{"$exists":true},"$nor":[{"i":{"$elemMatch":{"$gt":1}}}]}`)
	want := "a.b c d d.e d.f.g h i"
	if got := strings.Join(f.Fields(), " "); got != want {
		t.Errorf("Fields() = %s, want %s", got, want)
	}
}

func TestFilter_EmptySpecMatchesAll(t *testing.T) {
	for _, spec := range []value.Value{value.MissingValue, value.NullValue(), value.MustParse(`{}`)} {
		f, err := query.CompileFilter(spec)
		if err != nil {
			t.Fatalf("CompileFilter(%v): %v", spec, err)
		}
		if !f.Match(value.MustParse(`{"a":1}`)) || len(f.Predicates()) != 0 {
			t.Errorf("CompileFilter(%v) is not the empty filter", spec)
		}
	}
}

func TestLookup(t *testing.T) {
	doc := value.MustParse(`{"a":[{"b":1},{"b":[2,3]},{"c":1},5],"x":{"y":null},"z":{"0":"zero"}}`)
	cases := []struct{ path, want string }{
		{"a.b", `1 [2,3]`},
		{"a.1.b", `[2,3]`},
		{"a.3", `5`},
		{"a.c", `1`},
		{"x.y", `null`},
		{"z.0", `"zero"`},
		{"a", `[{"b":1},{"b":[2,3]},{"c":1},5]`},
		{"nope", ``},
		{"x.y.z", ``},
	}
	for _, c := range cases {
		var got []string
		for _, v := range query.Lookup(doc, c.path) {
			got = append(got, v.String())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("Lookup(%q) = %s, want %s", c.path, strings.Join(got, " "), c.want)
		}
	}
}

func TestCompileFilter_InLimit(t *testing.T) {
	in := func(n int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = "1"
		}
		return `{"a":{"$in":[` + strings.Join(vals, ",") + `]}}`
	}
	if _, err := query.CompileFilter(value.MustParse(in(query.MaxInValues))); err != nil {
		t.Fatalf("$in with %d values: %v", query.MaxInValues, err)
	}
	_, err := query.CompileFilter(value.MustParse(in(query.MaxInValues + 1)))
	if err == nil || errs.KindOf(err) != errs.Limit || !strings.Contains(err.Error(), "over the limit of 10000") {
		t.Fatalf("$in with %d values: got %v (kind %v), want a Limit error naming 10000", query.MaxInValues+1, err, errs.KindOf(err))
	}
}

func TestCompileFilter_RegexLimit(t *testing.T) {
	spec := func(n int) value.Value {
		return value.ObjectValue([]value.Field{{Key: "a", Value: value.ObjectValue([]value.Field{
			{Key: "$regex", Value: value.StringValue(strings.Repeat("a", n))}})}})
	}
	if _, err := query.CompileFilter(spec(query.MaxRegexLength)); err != nil {
		t.Fatalf("regex of %d bytes: %v", query.MaxRegexLength, err)
	}
	_, err := query.CompileFilter(spec(query.MaxRegexLength + 1))
	if err == nil || errs.KindOf(err) != errs.Limit || !strings.Contains(err.Error(), "over the limit of 1024") {
		t.Fatalf("regex of %d bytes: got %v, want a Limit error naming 1024", query.MaxRegexLength+1, err)
	}
}

// TestCompileFilter_ExprErrorsPropagate checks that $expr and projection
// expressions are compiled by expr.Compile and that its errors reach the
// caller unchanged.
func TestCompileFilter_ExprErrorsPropagate(t *testing.T) {
	for _, spec := range []string{`{"$eq":["$a",1]}`, `{"$nosuchoperator":1}`, `"$a"`, `true`} {
		v := value.MustParse(spec)
		_, exprErr := expr.Compile(v)
		_, filterErr := query.CompileFilter(value.ObjectValue([]value.Field{{Key: "$expr", Value: v}}))
		checkSameError(t, "$expr "+spec, exprErr, filterErr)
	}
	for _, spec := range []string{`{"$add":[1,2]}`, `{"$nosuchoperator":1}`, `"$a.b"`, `["$a",1]`} {
		v := value.MustParse(spec)
		_, exprErr := expr.Compile(v)
		_, projErr := query.CompileProjection(value.ObjectValue([]value.Field{{Key: "x", Value: v}}))
		checkSameError(t, "projection "+spec, exprErr, projErr)
	}
}

func checkSameError(t *testing.T, what string, want, got error) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s: expr.Compile succeeds but got %v", what, got)
	case want != nil && got == nil:
		t.Errorf("%s: expr.Compile fails (%v) but no error was returned", what, want)
	case want != nil && got.Error() != want.Error():
		t.Errorf("%s: got error %q, want expr.Compile's %q", what, got, want)
	}
}

func TestCompileFilter_ErrorsAreTyped(t *testing.T) {
	for _, spec := range []string{`{"a":{"$gtee":1}}`, `{"a":{"$type":"symbol"}}`, `{"$where":"1"}`, `[]`, `{"a":{"$regex":"("}}`} {
		_, err := query.CompileFilter(value.MustParse(spec))
		var qe *errs.Error
		if !errors.As(err, &qe) || qe.Kind != errs.Invalid {
			t.Errorf("CompileFilter(%s) error = %#v, want an *Error of kind Invalid", spec, err)
		}
	}
}

func TestFilter_ConcurrentMatch(t *testing.T) {
	f := mustFilter(t, `{"a":{"$in":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18]},"s":{"$regex":"^x"},"e":{"$elemMatch":{"b":1}}}`)
	doc := value.MustParse(`{"a":[0,18],"s":"xy","e":[{"b":2},{"b":1}]}`)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if !f.Match(doc) {
					t.Error("concurrent Match returned false")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestProjection_PositionalNeedsFilter(t *testing.T) {
	p, err := query.CompileProjection(value.MustParse(`{"grades.$":1}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Apply(value.MustParse(`{"_id":1,"grades":[1,2]}`))
	if err == nil || !strings.Contains(err.Error(), "needs the query filter") {
		t.Errorf("Apply without a filter: got %v, want an error saying the filter is needed", err)
	}
	f := mustFilter(t, `{"grades":{"$gt":1}}`)
	got, err := p.ApplyWithFilter(value.MustParse(`{"_id":1,"grades":[1,2]}`), f)
	if err != nil || got.String() != `{"_id":1,"grades":[2]}` {
		t.Errorf("ApplyWithFilter = %v, %v; want {\"_id\":1,\"grades\":[2]}", got, err)
	}
	_, err = p.ApplyWithFilter(value.MustParse(`{"_id":2,"grades":[0,1]}`), f)
	if err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("ApplyWithFilter on a document the filter rejects: got %v, want an error", err)
	}
}

func TestProjection_IDFirst(t *testing.T) {
	p, err := query.CompileProjection(value.MustParse(`{"b":1,"_id":1}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Apply(value.MustParse(`{"a":1,"b":2,"_id":3}`))
	if err != nil || got.String() != `{"_id":3,"b":2}` {
		t.Errorf("Apply = %v, %v; want {\"_id\":3,\"b\":2}", got, err)
	}
}

func TestSort_Keys(t *testing.T) {
	s, err := query.CompileSort(value.MustParse(`{"a":1,"b.c":-1.0}`))
	if err != nil {
		t.Fatal(err)
	}
	keys := s.Keys()
	if len(keys) != 2 || keys[0] != (query.SortKey{Path: "a"}) || keys[1] != (query.SortKey{Path: "b.c", Desc: true}) {
		t.Fatalf("Keys() = %+v", keys)
	}
	keys[0].Path = "changed"
	if s.Keys()[0].Path != "a" {
		t.Errorf("Keys() returned the Sort's own slice")
	}
	for _, spec := range []value.Value{value.MissingValue, value.NullValue(), value.MustParse(`{}`)} {
		s, err := query.CompileSort(spec)
		if err != nil || len(s.Keys()) != 0 {
			t.Errorf("CompileSort(%v) = %v, %v; want the natural order", spec, s, err)
		}
		if c := s.Compare(value.MustParse(`{"_id":2}`), value.MustParse(`{"_id":1}`)); c != 0 {
			t.Errorf("natural order Compare = %d, want 0", c)
		}
	}
}
