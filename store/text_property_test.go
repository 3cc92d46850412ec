package store_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestText_IndexSameAsScan is a differential property test: for random
// documents (strings, arrays, embedded documents, null, numbers, a few
// languages) and random searches (words in any case and with or without
// diacritics, stop words, phrases, negations, $language, the sensitive
// options), a $text query that reads the text index's candidates returns
// the same documents with the same scores as one that reads every
// document (the path a redacting query takes). A term the index misses
// would make the first lose a document.
func TestText_IndexSameAsScan(t *testing.T) {
	words := []string{"Café", "cafe", "CAFÉS", "running", "runs", "run", "the", "and", "über", "uber",
		"niño", "nino", "blog", "blogging", "Blogs", "x", "don't", "pre-market", "naïve", "İstanbul", "corriendo"}
	langs := []string{"", "english", "spanish", "german", "none", "turkish"}
	r := rand.New(rand.NewPCG(18, 8))
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, []string{" ", ", ", ". ", " - "}[r.IntN(4)])
	}
	field := func() string {
		switch r.IntN(8) {
		case 0:
			return "null"
		case 1:
			return strconv.Itoa(r.IntN(9))
		case 2:
			return `["` + sentence(1+r.IntN(3)) + `",5,null,"` + sentence(1+r.IntN(2)) + `"]`
		case 3:
			return `{"t":"` + sentence(1+r.IntN(4)) + `"}`
		case 4:
			return `[{"t":"` + sentence(2) + `"},{"t":"` + sentence(1) + `"}]`
		}
		return `"` + sentence(1+r.IntN(6)) + `"`
	}
	found := 0 // searches that find something: the test is not vacuous
	for round := range 6 {
		db := storetest.MustOpen(t)
		var docs []string
		for i := range 40 {
			d := `{"_id":` + strconv.Itoa(i) + `,"a":` + field() + `,"b":` + field()
			if l := langs[r.IntN(len(langs))]; l != "" {
				d += `,"language":"` + l + `"`
			}
			docs = append(docs, d+`}`)
		}
		storetest.Insert(t, db, "c", docs...)
		pattern := []string{`{"a":"text","b":"text"} {"weights":{"a":3,"b.t":2}}`, `{"$**":"text"}`, `{"a":"text","a.t":"text"} {"default_language":"spanish"}`}[round%3]
		err := db.Update(store.Change{Kind: "test"}, func(tx *store.Tx) error {
			c, err := tx.Collection("c")
			if err != nil {
				return err
			}
			return createTextIndex(c, pattern)
		})
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			search := sentence(1 + r.IntN(3))
			switch r.IntN(4) {
			case 0:
				search += ` "` + sentence(2) + `"`
			case 1:
				search += " -" + words[r.IntN(len(words))]
			}
			spec := `{"$search":` + value.StringValue(search).String()
			if l := langs[r.IntN(len(langs))]; l != "" {
				spec += `,"$language":"` + l + `"`
			}
			if r.IntN(4) == 0 {
				spec += `,"$caseSensitive":true`
			}
			if r.IntN(4) == 0 {
				spec += `,"$diacriticSensitive":true`
			}
			f := mustFilter(t, `{"$text":`+spec+`}}`)
			proj := mustProjection(t, `{"_id":1,"s":{"$meta":"textScore"}}`)
			viaIndex := findAll(t, db, store.Query{Filter: f, Projection: proj})
			viaScan := findAll(t, db, store.Query{Filter: f, Projection: proj, Redact: func(v value.Value) value.Value { return v }})
			if strings.Join(viaIndex, " ") != strings.Join(viaScan, " ") {
				t.Fatalf("index %s, search %s}:\n index %v\n scan  %v", pattern, spec, viaIndex, viaScan)
			}
			if len(viaScan) > 0 {
				found++
			}
		}
		storetest.MustVerify(t, db)
	}
	if found < 120 {
		t.Errorf("only %d of 360 searches found a document", found)
	}
	t.Logf("%d of 360 searches found documents", found)
}
