package vector

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

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

// Keys of a search index's bucket:
//
//	"s"                                  statistics: per indexed field, documents and total tokens (uvarints)
//	"t" field 0 term                     document frequency (uvarint)
//	"p" field 0 term 0 key               posting: the field's tokens in the document, the term frequency, then position deltas (uvarints)
//	"l" key                              per indexed field, the document's tokens (uvarints); then _id as JSON
//
// where key is the key of the document's _id.
var (
	keyStats     = []byte("s")
	prefixTerm   = byte('t')
	prefixPost   = byte('p')
	prefixLength = byte('l')
)

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
// buffered writes, statistics and changes of document frequencies.
type ftsState struct {
	txWrites
	st *stats
	df map[string]int64 // term key -> change of document frequency
}

func ftsStateOf(ix *store.Index, fi *ftsIndex) *ftsState {
	if st, ok := ix.State.(*ftsState); ok {
		return st
	}
	st := &ftsState{txWrites: newTxWrites(), st: readStats(ix.Bucket(), len(fi.fields)), df: map[string]int64{}}
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
		fi.remove(ix.Bucket(), st, before)
	}
	if !after.IsMissing() {
		fi.add(st, after)
	}
	return nil
}

// Flush writes the transaction's buffered postings in key order, then the
// document frequencies and statistics.
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
	b := ix.Bucket()
	if err := fs.flush(b); err != nil {
		return err
	}
	terms := make([]string, 0, len(fs.df))
	for t, d := range fs.df {
		if d != 0 {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	for _, t := range terms {
		if err := addDF(b, fs.st, fi.fieldOfTermKey(t), []byte(t), fs.df[t]); err != nil {
			return err
		}
	}
	return b.Put(keyStats, fs.st.encode())
}

// fieldOfTermKey returns the index in fi.fields of a term key's field.
func (fi *ftsIndex) fieldOfTermKey(tk string) int {
	f, _, _ := strings.Cut(tk[1:], "\x00")
	for i, g := range fi.fields {
		if g == f {
			return i
		}
	}
	return 0
}

// Build indexes every document. It collects every entry in memory and
// writes them in key order: bbolt splits pages only at commit, so random
// inserts into a new bucket in one transaction cost quadratic time, while
// ordered inserts append. The entries are packed in one byte arena (about
// 60 bytes per posting) rather than a map.
func (searchKind) Build(ix *store.Index, docs *store.Cursor) error {
	fi, err := openFTS(ix)
	if err != nil {
		return err
	}
	b := ix.Bucket()
	if err := clearBucket(b); err != nil {
		return err
	}
	el, err := fi.entries(docs)
	if err != nil {
		return err
	}
	for i := range el.ents {
		if err := b.Put(el.key(i), el.val(i)); err != nil {
			return err
		}
	}
	return nil
}

// entryList is a list of bucket entries packed in one arena.
type entryList struct {
	arena []byte
	ents  []entryRef
}

type entryRef struct {
	off        int
	klen, vlen int32
}

func (el *entryList) add(k, v []byte) {
	el.ents = append(el.ents, entryRef{len(el.arena), int32(len(k)), int32(len(v))})
	el.arena = append(append(el.arena, k...), v...)
}

func (el *entryList) key(i int) []byte {
	e := el.ents[i]
	return el.arena[e.off : e.off+int(e.klen)]
}

func (el *entryList) val(i int) []byte {
	e := el.ents[i]
	return el.arena[e.off+int(e.klen) : e.off+int(e.klen)+int(e.vlen)]
}

func (el *entryList) sort() {
	sort.Slice(el.ents, func(i, j int) bool {
		a, b := el.ents[i], el.ents[j]
		return bytes.Compare(el.arena[a.off:a.off+int(a.klen)], el.arena[b.off:b.off+int(b.klen)]) < 0
	})
}

// entries returns what the bucket of the index over docs holds, sorted by
// key.
func (fi *ftsIndex) entries(docs *store.Cursor) (*entryList, error) {
	el := &entryList{}
	st := &stats{docs: make([]uint64, len(fi.fields)), tokens: make([]uint64, len(fi.fields)), terms: make([]uint64, len(fi.fields))}
	df := map[string]uint64{}
	for docs.Next() {
		doc := docs.Doc()
		if err := docs.Err(); err != nil {
			return nil, err
		}
		fields, lengths, ok := fi.analyze(doc)
		if !ok {
			continue
		}
		key := docKey(doc)
		var lens []byte
		for i, f := range fi.fields {
			lens = binary.AppendUvarint(lens, lengths[i])
			if lengths[i] > 0 {
				st.docs[i]++
				st.tokens[i] += lengths[i]
			}
			for term, pos := range fields[i] {
				el.add(postKey(f, term, key), encodePosting(lengths[i], pos))
				tk := string(termKey(f, term))
				if df[tk] == 0 {
					st.terms[i]++
				}
				df[tk]++
			}
		}
		el.add(append([]byte{prefixLength}, key...), value.AppendJSON(lens, doc.Get("_id")))
	}
	if err := docs.Err(); err != nil {
		return nil, err
	}
	for t, n := range df {
		el.add([]byte(t), binary.AppendUvarint(nil, n))
	}
	el.add(keyStats, st.encode())
	el.sort()
	return el, nil
}

// add indexes doc.
func (fi *ftsIndex) add(fs *ftsState, doc value.Value) {
	fields, lengths, ok := fi.analyze(doc)
	if !ok {
		return
	}
	key := docKey(doc)
	var lens []byte
	for i, f := range fi.fields {
		lens = binary.AppendUvarint(lens, lengths[i])
		if lengths[i] > 0 {
			fs.st.docs[i]++
			fs.st.tokens[i] += lengths[i]
		}
		for term, pos := range fields[i] {
			fs.put(postKey(f, term, key), encodePosting(lengths[i], pos))
			fs.df[string(termKey(f, term))]++
		}
	}
	fs.put(append([]byte{prefixLength}, key...), value.AppendJSON(lens, doc.Get("_id")))
}

// remove drops the postings of doc.
func (fi *ftsIndex) remove(b *bolt.Bucket, fs *ftsState, doc value.Value) {
	key := docKey(doc)
	lk := append([]byte{prefixLength}, key...)
	if fs.get(b, lk) == nil {
		return
	}
	fields, lengths, _ := fi.analyze(doc)
	for i, f := range fi.fields {
		if lengths[i] > 0 {
			fs.st.docs[i]--
			fs.st.tokens[i] -= lengths[i]
		}
		for term := range fields[i] {
			fs.del(postKey(f, term, key))
			fs.df[string(termKey(f, term))]--
		}
	}
	fs.del(lk)
}

// addDF adds d to the document frequency of a term of field i, keeping
// the field's count of distinct terms.
func addDF(b *bolt.Bucket, st *stats, i int, tk []byte, d int64) error {
	var n uint64
	if v := b.Get(tk); v != nil {
		n, _ = binary.Uvarint(v)
	}
	if n == 0 {
		st.terms[i]++
	}
	n = uint64(int64(n) + d)
	if n == 0 {
		st.terms[i]--
		return b.Delete(tk)
	}
	return b.Put(tk, binary.AppendUvarint(nil, n))
}

// Check re-analyzes every document and compares with the stored postings,
// lengths, frequencies and statistics.
func (searchKind) Check(ix *store.Index) []string {
	fi, err := openFTS(ix)
	if err != nil {
		return []string{err.Error()}
	}
	// Rebuild the expected bucket content in memory and compare key by key,
	// both in key order.
	want, err := fi.entries(ix.Collection().Scan())
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	add := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	i := 0
	c := ix.Bucket().Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		for i < len(want.ents) && bytes.Compare(want.key(i), k) < 0 {
			add("missing entry %q", want.key(i))
			i++
		}
		switch {
		case i == len(want.ents) || !bytes.Equal(want.key(i), k):
			add("unexpected entry %q", k)
			continue
		case !bytes.Equal(want.val(i), v):
			add("entry %q is %x, want %x", k, v, want.val(i))
		}
		i++
	}
	for ; i < len(want.ents); i++ {
		add("missing entry %q", want.key(i))
	}
	return problems
}
