package query_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

func mustCompileUpdate(t *testing.T, spec string, filters ...string) *query.Update {
	t.Helper()
	opts := &query.UpdateOptions{}
	for _, f := range filters {
		opts.ArrayFilters = append(opts.ArrayFilters, value.MustParse(f))
	}
	u, err := query.CompileUpdate(value.MustParse(spec), opts)
	if err != nil {
		t.Fatalf("CompileUpdate(%s): %v", spec, err)
	}
	return u
}

func TestCompileUpdate_NilOptions(t *testing.T) {
	u, err := query.CompileUpdate(value.MustParse(`{"$set":{"a":1}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := u.Apply(value.MustParse(`{"_id":1}`), query.ApplyContext{})
	if err != nil || string(value.JSON(got)) != `{"_id":1,"a":1}` {
		t.Errorf("Apply = %s, %v", value.JSON(got), err)
	}
}

func TestCompileUpdate_ErrorKinds(t *testing.T) {
	cases := []struct {
		spec string
		kind errs.Kind
	}{
		{`{"$sett":{"a":1}}`, errs.Invalid},
		{`{}`, errs.Invalid},
		{`{"$set":{"a":1,"a.b":1}}`, errs.Invalid},
		{`{"$inc":{"a":"x"}}`, errs.Invalid},
		{`{"$set":{"a.$[x]":1}}`, errs.Invalid},
		{`{"$set":{"` + longPath(100) + `":1}}`, errs.Limit},
	}
	for _, c := range cases {
		_, err := query.CompileUpdate(value.MustParse(c.spec), nil)
		var e *errs.Error
		if !errors.As(err, &e) || e.Kind != c.kind {
			t.Errorf("CompileUpdate(%.40s) = %v, want an *Error of kind %v", c.spec, err, c.kind)
		}
	}
}

func longPath(n int) string {
	s := "a"
	for i := 1; i < n; i++ {
		s += ".a"
	}
	return s
}

func TestCompileUpdate_DidYouMean(t *testing.T) {
	cases := map[string]string{
		"$incc":        "$inc",
		"$pushh":       "$push",
		"$addtoset":    "$addToSet",
		"$setOnInsrt":  "$setOnInsert",
		"$currentdate": "$currentDate",
		"$unst":        "$unset",
		"$pul":         "$pull",
	}
	for typo, want := range cases {
		_, err := query.CompileUpdate(value.MustParse(`{"`+typo+`":{"a":1}}`), nil)
		wantMsg := "unknown update operator: " + typo + " (did you mean `" + want + "`?)"
		if err == nil || err.Error() != wantMsg {
			t.Errorf("%s: got %v, want %s", typo, err, wantMsg)
		}
	}
}

func TestUpdate_IsReplacement(t *testing.T) {
	if mustCompileUpdate(t, `{"$set":{"a":1}}`).IsReplacement() {
		t.Error("an operator update reports IsReplacement")
	}
	if !mustCompileUpdate(t, `{"a":1}`).IsReplacement() {
		t.Error("a replacement does not report IsReplacement")
	}
}

func TestUpdate_Apply_SharesAndKeepsInput(t *testing.T) {
	doc := value.MustParse(`{"_id":1,"a":{"b":[1,2,{"c":3}]},"d":{"e":1}}`)
	before := string(value.JSON(doc))
	u := mustCompileUpdate(t, `{"$set":{"a.b.2.c":4},"$unset":{"d.e":1},"$push":{"d.f":5}}`)
	got, changed, err := u.Apply(doc, query.ApplyContext{})
	if err != nil || !changed {
		t.Fatalf("Apply: %v, changed %v", err, changed)
	}
	if s := string(value.JSON(doc)); s != before {
		t.Errorf("input changed: %s, was %s", s, before)
	}
	if s := string(value.JSON(got)); s != `{"_id":1,"a":{"b":[1,2,{"c":4}]},"d":{"f":[5]}}` {
		t.Errorf("got %s", s)
	}
}

func TestUpdate_Apply_NotADocument(t *testing.T) {
	u := mustCompileUpdate(t, `{"$set":{"a":1}}`)
	if _, _, err := u.Apply(value.MustParse(`[1]`), query.ApplyContext{}); err == nil {
		t.Error("Apply on an array succeeded")
	}
}

func TestUpdate_Apply_NowDefaultsToTheClock(t *testing.T) {
	u := mustCompileUpdate(t, `{"$currentDate":{"d":true}}`)
	before := time.Now().UnixMilli()
	got, _, err := u.Apply(value.MustParse(`{"_id":1}`), query.ApplyContext{})
	after := time.Now().UnixMilli()
	if err != nil {
		t.Fatal(err)
	}
	d := got.Get("d")
	if d.Kind() != value.Date || d.Date() < before || d.Date() > after {
		t.Errorf("d = %s, want a date in [%d, %d]", value.JSON(d), before, after)
	}
}

// TestUpdate_Apply_Concurrent runs one compiled update from several
// goroutines (run with -race).
func TestUpdate_Apply_Concurrent(t *testing.T) {
	u := mustCompileUpdate(t, `{"$set":{"a.$[x].v":0},"$pull":{"b":{"k":1}},"$inc":{"n":1}}`, `{"x.k":2}`)
	doc := value.MustParse(`{"_id":1,"a":[{"k":1,"v":1},{"k":2,"v":2}],"b":[{"k":1},{"k":3}],"n":1}`)
	want := `{"_id":1,"a":[{"k":1,"v":1},{"k":2,"v":0}],"b":[{"k":3}],"n":2}`
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, _, err := u.Apply(doc, query.ApplyContext{})
				if err != nil || string(value.JSON(got)) != want {
					t.Errorf("Apply = %s, %v", value.JSON(got), err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestUpsertSeed(t *testing.T) {
	cases := []struct{ filter, want string }{
		{`{}`, `{}`},
		{`{"a":1,"b":"x"}`, `{"a":1,"b":"x"}`},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{`{"a":null}`, `{"a":null}`},
		{`{"a":{"b":1}}`, `{"a":{"b":1}}`},
		{`{"a.b":1,"a.c":2}`, `{"a":{"b":1,"c":2}}`},
		{`{"a.0":1}`, `{"a":{"0":1}}`},
		{`{"a":{"$eq":{"b":1}}}`, `{"a":{"b":1}}`},
		{`{"a":{"$in":[1,2]}}`, `{}`},
		{`{"a":{"$in":[[1]]}}`, `{"a":[1]}`},
		{`{"a":{"$all":[3]}}`, `{"a":3}`},
		{`{"a":{"$gte":1,"$eq":2}}`, `{"a":2}`},
		{`{"$or":[{"a":1},{"b":2}]}`, `{}`},
		{`{"$and":[{"$and":[{"a":1}]},{"b.c":2}]}`, `{"a":1,"b":{"c":2}}`},
		{`{"x":1,"_id":{"$oid":"507f1f77bcf86cd799439011"}}`, `{"_id":{"$oid":"507f1f77bcf86cd799439011"},"x":1}`},
		{`{"$expr":{"$eq":["$a",1]},"$comment":"c"}`, `{}`},
	}
	for _, c := range cases {
		got, err := query.UpsertSeed(value.MustParse(c.filter))
		if err != nil || string(value.JSON(got)) != c.want {
			t.Errorf("UpsertSeed(%s) = %s, %v; want %s", c.filter, value.JSON(got), err, c.want)
		}
	}
}

func TestUpsertSeed_Errors(t *testing.T) {
	cases := []struct{ filter, want string }{
		{`[1]`, "malformed query: filter must be an object, got array"},
		{`{"_id":[1,2]}`, "The '_id' value cannot be of type array"},
		{`{"a":1,"$and":[{"a":1}]}`, "cannot infer query fields to set, path 'a' is matched twice"},
		{`{"a.b.c":1,"a.b":{"c":1}}`, "cannot infer query fields to set, both paths 'a.b.c' and 'a.b' are matched"},
		{`{"a":{"$eq":{"$x":1}}}`, "The dollar ($) prefixed field '$x' in 'a.$x' is not valid for storage."},
	}
	for _, c := range cases {
		_, err := query.UpsertSeed(value.MustParse(c.filter))
		if err == nil || err.Error() != c.want {
			t.Errorf("UpsertSeed(%s) = %v, want %s", c.filter, err, c.want)
		}
	}
}

func TestUpsertSeed_Missing(t *testing.T) {
	got, err := query.UpsertSeed(value.Value{})
	if err != nil || string(value.JSON(got)) != `{}` {
		t.Errorf("UpsertSeed(missing) = %s, %v", value.JSON(got), err)
	}
}
