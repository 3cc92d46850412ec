package vector

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Analyzers a search index can use: bleve's (analyze.go).
var analyzerNames = []string{analyzerStandard, analyzerEN}

// DefaultAnalyzer is the analyzer of a search index by default.
const DefaultAnalyzer = analyzerStandard

// allField is the pseudo-field of an index over several fields that holds
// all their words, as bleve's _all: unscoped query terms search it.
const allField = "_all"

// fieldGap separates the positions of two fields (or array elements) in
// the _all field, so that a phrase never spans them.
const fieldGap = 100

// SearchSpec is the Spec of a search index definition.
type SearchSpec struct {
	Fields   []string `json:"fields"`   // dotted paths of text fields
	Analyzer string   `json:"analyzer"` // "standard" (default) or "en"
}

// NewSearchIndexDef returns the definition of a search index over fields,
// named name (default "search_<field>_<field>…").
func NewSearchIndexDef(name string, fields []string, analyzer string) store.IndexDef {
	if name == "" {
		name = "search_" + strings.Join(fields, "_")
	}
	spec, _ := json.Marshal(SearchSpec{Fields: fields, Analyzer: analyzer})
	return store.IndexDef{Name: name, Kind: KindSearch, Spec: spec}
}

// A search index keeps its data through store.TextIndex: per indexed field
// (and _all), each term's postings (the field's length in the document and
// the term's positions) and document frequency; per document, its fields'
// lengths and its _id; per field, the statistics BM25 needs.

type searchKind struct{}

// Prepare checks a search index definition.
func (searchKind) Prepare(def store.IndexDef) (store.IndexDef, error) {
	var spec SearchSpec
	if err := json.Unmarshal(def.Spec, &spec); err != nil {
		return def, errs.Errorf(errs.Invalid, "search index spec: %v", err)
	}
	if len(spec.Fields) == 0 {
		return def, errs.Errorf(errs.Invalid, "a search index needs at least one field")
	}
	seen := map[string]bool{}
	for _, f := range spec.Fields {
		if err := checkFieldPath(f); err != nil {
			return def, err
		}
		if f == allField || seen[f] {
			return def, errs.Errorf(errs.Invalid, "field %q is listed twice or reserved", f)
		}
		seen[f] = true
	}
	if spec.Analyzer == "" {
		spec.Analyzer = DefaultAnalyzer
	}
	if _, err := analyzer(spec.Analyzer); err != nil {
		return def, err
	}
	def.Spec, _ = json.Marshal(spec)
	return def, nil
}

// analyzer returns an analyzer by name.
func analyzer(name string) (*textAnalyzer, error) {
	ok := false
	for _, n := range analyzerNames {
		ok = ok || n == name
	}
	if !ok {
		return nil, errs.Errorf(errs.Invalid, "unknown analyzer %q%s", name, errs.DidYouMean(name, analyzerNames)).
			WithHint("use --analyzer %s", strings.Join(analyzerNames, " or "))
	}
	return &textAnalyzer{en: name == analyzerEN}, nil
}

// ftsIndex is an opened search index.
type ftsIndex struct {
	spec   SearchSpec
	an     *textAnalyzer
	fields []string // the fields with postings: spec.Fields, plus _all when several
}

var ftsCache sync.Map // string(Spec) -> *ftsIndex

func openFTS(ix *store.Index) (*ftsIndex, error) {
	if v, ok := ftsCache.Load(string(ix.Def.Spec)); ok {
		return v.(*ftsIndex), nil
	}
	var spec SearchSpec
	if err := json.Unmarshal(ix.Def.Spec, &spec); err != nil {
		return nil, errs.Errorf(errs.IO, "search index %s: unreadable spec: %v", ix.Def.Name, err)
	}
	an, err := analyzer(spec.Analyzer)
	if err != nil {
		return nil, err
	}
	fi := &ftsIndex{spec: spec, an: an, fields: spec.Fields}
	if len(spec.Fields) > 1 {
		fi.fields = append(append([]string(nil), spec.Fields...), allField)
	}
	ftsCache.Store(string(ix.Def.Spec), fi)
	return fi, nil
}

// termPositions is the analysis of one document: per field, each term's
// positions.
type termPositions map[string][]uint32

// analyze returns the terms of each indexed field of doc, and the number of
// tokens of each field; ok is false when no field has text.
func (fi *ftsIndex) analyze(doc value.Value) (fields []termPositions, lengths []uint64, ok bool) {
	fields = make([]termPositions, len(fi.fields))
	lengths = make([]uint64, len(fi.fields))
	var all termPositions
	allPos := uint32(0)
	if len(fi.fields) > len(fi.spec.Fields) {
		all = termPositions{}
		fields[len(fields)-1] = all
	}
	for i, f := range fi.spec.Fields {
		tp := termPositions{}
		fields[i] = tp
		var parts []string
		collectStrings(doc, strings.Split(f, "."), &parts)
		base := uint32(0)
		for _, text := range parts {
			ok = true
			last := uint32(0)
			for _, tok := range fi.an.Analyze([]byte(text)) {
				p := base + uint32(tok.Position)
				term := string(tok.Term)
				tp[term] = append(tp[term], p)
				lengths[i]++
				if all != nil {
					all[term] = append(all[term], allPos+p)
					lengths[len(lengths)-1]++
				}
				last = p
			}
			base = last + fieldGap
		}
		allPos += base + fieldGap
	}
	return fields, lengths, ok
}

// ftsState is a search index's state during a write transaction: its
// statistics and changes of document frequencies. The store buffers the
// postings and lengths written meanwhile.
type ftsState struct {
	st []store.FieldStats
	df map[string]int64 // termRef -> change of document frequency
}

func ftsStateOf(ix *store.Index, fi *ftsIndex) *ftsState {
	if st, ok := ix.State.(*ftsState); ok {
		return st
	}
	st := &ftsState{st: ix.Text().Stats(len(fi.fields)), df: map[string]int64{}}
	ix.State = st
	return st
}

// Update removes the postings of before and adds those of after; the
// writes are buffered until Flush.
func (searchKind) Update(ix *store.Index, before, after value.Value) error {
	fi, err := openFTS(ix)
	if err != nil {
		return err
	}
	st := ftsStateOf(ix, fi)
	if !before.IsMissing() {
		fi.remove(ix.Text(), st, before)
	}
	if !after.IsMissing() {
		fi.add(ix.Text(), st, after)
	}
	return nil
}

// Flush writes the transaction's document frequencies and statistics; the
// store then writes the buffered postings and lengths in key order.
func (searchKind) Flush(ix *store.Index) error {
	fs, ok := ix.State.(*ftsState)
	if !ok {
		return nil
	}
	ix.State = nil
	fi, err := openFTS(ix)
	if err != nil {
		return err
	}
	t := ix.Text()
	terms := make([]string, 0, len(fs.df))
	for t, d := range fs.df {
		if d != 0 {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	for _, tr := range terms {
		if err := addDF(t, fs.st, fi, tr, fs.df[tr]); err != nil {
			return err
		}
	}
	return t.SetStats(fs.st)
}

// fieldOfTerm returns the index in fi.fields of a termRef's field.
func (fi *ftsIndex) fieldOfTerm(tr string) int {
	f, _, _ := strings.Cut(tr, "\x00")
	for i, g := range fi.fields {
		if g == f {
			return i
		}
	}
	return 0
}

// Build indexes every document: it collects the whole index in memory
// (store.TextBuild) and has the store write it in key order.
func (searchKind) Build(ix *store.Index, docs *store.Cursor) error {
	fi, err := openFTS(ix)
	if err != nil {
		return err
	}
	b := &store.TextBuild{}
	if err := fi.entries(docs, b); err != nil {
		return err
	}
	return ix.Text().Write(b)
}

// entries adds to b what the index over docs holds.
func (fi *ftsIndex) entries(docs *store.Cursor, b *store.TextBuild) error {
	st := newStats(len(fi.fields))
	df := map[string]uint64{}
	for docs.Next() {
		doc := docs.Doc()
		if err := docs.Err(); err != nil {
			return err
		}
		fields, lengths, ok := fi.analyze(doc)
		if !ok {
			continue
		}
		key := docKey(doc)
		for i, f := range fi.fields {
			if lengths[i] > 0 {
				st[i].Docs++
				st[i].Tokens += lengths[i]
			}
			for term, pos := range fields[i] {
				b.AddPosting(f, term, key, lengths[i], pos)
				tr := termRef(f, term)
				if df[tr] == 0 {
					st[i].Terms++
				}
				df[tr]++
			}
		}
		b.AddDoc(key, lengths, value.AppendJSON(nil, doc.Get("_id")))
	}
	if err := docs.Err(); err != nil {
		return err
	}
	for tr, n := range df {
		f, t, _ := strings.Cut(tr, "\x00")
		b.AddDocFreq(f, t, n)
	}
	b.SetStats(st)
	return nil
}

// add indexes doc.
func (fi *ftsIndex) add(t store.TextIndex, fs *ftsState, doc value.Value) {
	fields, lengths, ok := fi.analyze(doc)
	if !ok {
		return
	}
	key := docKey(doc)
	for i, f := range fi.fields {
		if lengths[i] > 0 {
			fs.st[i].Docs++
			fs.st[i].Tokens += lengths[i]
		}
		for term, pos := range fields[i] {
			t.PutPosting(f, term, key, lengths[i], pos)
			fs.df[termRef(f, term)]++
		}
	}
	t.PutDoc(key, lengths, value.AppendJSON(nil, doc.Get("_id")))
}

// remove drops the postings of doc.
func (fi *ftsIndex) remove(t store.TextIndex, fs *ftsState, doc value.Value) {
	key := docKey(doc)
	if !t.HasDoc(key) {
		return
	}
	fields, lengths, _ := fi.analyze(doc)
	for i, f := range fi.fields {
		if lengths[i] > 0 {
			fs.st[i].Docs--
			fs.st[i].Tokens -= lengths[i]
		}
		for term := range fields[i] {
			t.DeletePosting(f, term, key)
			fs.df[termRef(f, term)]--
		}
	}
	t.DeleteDoc(key)
}

// addDF adds d to the document frequency of a term (a termRef), keeping
// its field's count of distinct terms.
func addDF(t store.TextIndex, st []store.FieldStats, fi *ftsIndex, tr string, d int64) error {
	i := fi.fieldOfTerm(tr)
	f, term, _ := strings.Cut(tr, "\x00")
	n := t.DocFreq(f, term)
	if n == 0 {
		st[i].Terms++
	}
	n = uint64(int64(n) + d)
	if n == 0 {
		st[i].Terms--
	}
	return t.SetDocFreq(f, term, n)
}

// Check re-analyzes every document and compares with the stored postings,
// lengths, frequencies and statistics.
func (searchKind) Check(ix *store.Index) []string {
	fi, err := openFTS(ix)
	if err != nil {
		return []string{err.Error()}
	}
	// Rebuild the expected index in memory and have the store compare it
	// with what it holds, entry by entry.
	want := &store.TextBuild{}
	if err := fi.entries(ix.Collection().Scan(), want); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	ix.Text().Compare(want, func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	})
	return problems
}
