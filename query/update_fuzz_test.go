package query_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// FuzzUpdate compiles random updates and applies them to random
// documents (or to the upsert seed of a random filter). It checks that
// nothing panics, that errors are *errs.Error values, that the input is
// left as it was, that results re-parse from their canonical JSON to the
// same bytes, that _id never changes, and that "changed" means the bytes
// changed. The seed corpus is in testdata/fuzz/FuzzUpdate.
func FuzzUpdate(f *testing.F) {
	f.Add(`{"_id":1,"a":[1,{"b":2}]}`, `{"$set":{"a.1.b":3},"$push":{"c":{"$each":[1],"$sort":-1}}}`, `{"a.b":2}`, `[]`, false)
	f.Fuzz(func(t *testing.T, docJSON, updateJSON, queryJSON, filtersJSON string, insert bool) {
		spec, err := value.ParseString(updateJSON)
		if err != nil || hugeIndex(spec) {
			return
		}
		filters, _ := value.ParseString(filtersJSON)
		u, err := query.CompileUpdate(spec, &query.UpdateOptions{ArrayFilters: filters.Array()})
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		q, _ := value.ParseString(queryJSON)
		doc, err := fuzzDoc(docJSON, q, insert)
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		before := value.JSON(doc)
		out, changed, err := u.Apply(doc, query.ApplyContext{Now: goldenNow, Query: q, Insert: insert})
		if !bytes.Equal(value.JSON(doc), before) {
			t.Fatalf("Apply changed its input from %s to %s", before, value.JSON(doc))
		}
		if err != nil {
			checkFuzzError(t, err)
			return
		}
		checkFuzzResult(t, doc, out, changed)
	})
}

// fuzzDoc returns the document to update: the upsert seed of q when
// inserting, else docJSON when it is an object.
func fuzzDoc(docJSON string, q value.Value, insert bool) (value.Value, error) {
	if insert {
		return query.UpsertSeed(q)
	}
	doc, err := value.ParseString(docJSON)
	if err != nil || doc.Kind() != value.Object {
		return value.ParseString(`{}`)
	}
	return doc, nil
}

func checkFuzzError(t *testing.T, err error) {
	var e *errs.Error
	if !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("error %v (%T) is not an *errs.Error with a message", err, err)
	}
}

func checkFuzzResult(t *testing.T, doc, out value.Value, changed bool) {
	before, enc := value.JSON(doc), value.JSON(out)
	back, err := value.Parse(enc)
	if err != nil {
		t.Fatalf("result %s does not parse: %v", enc, err)
	}
	if again := value.JSON(back); !bytes.Equal(again, enc) {
		t.Fatalf("result %s re-encodes as %s", enc, again)
	}
	if id := doc.Get("_id"); !id.IsMissing() && !bytes.Equal(value.JSON(id), value.JSON(out.Get("_id"))) {
		t.Fatalf("_id changed from %s to %s", value.JSON(id), value.JSON(out.Get("_id")))
	}
	if changed == bytes.Equal(before, enc) {
		t.Fatalf("changed = %v for %s -> %s", changed, before, enc)
	}
}

// hugeIndex reports whether an update names an array index of five or
// more digits: legal (MongoDB pads up to 1,500,000 nulls) but too slow
// and large for fuzzing.
func hugeIndex(spec value.Value) bool {
	for _, op := range spec.Fields() {
		for _, f := range op.Value.Fields() {
			for _, p := range []string{f.Key, f.Value.Str()} {
				for _, comp := range strings.Split(p, ".") {
					if len(comp) >= 5 && strings.Trim(comp, "0123456789") == "" {
						return true
					}
				}
			}
		}
	}
	return false
}
