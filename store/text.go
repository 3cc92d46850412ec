package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/text"
	"github.com/omgdb/omgdb/query/value"
)

// TextKind is the kind of MongoDB's text index, the one $text searches:
// created from a key pattern such as {"title":"text","body":"text"} with
// weights, default_language and language_override (text.Spec). A
// collection has at most one. Its bucket holds one entry per term and
// document, as MongoDB's index holds one key per term:
//
//	term 0x00 key      the document's score for the term (float64 bits)
//
// where key is the key of the document's _id. A query looks up its terms
// there, fetches each document found once, and checks the whole filter
// (phrases, negations, case and diacritic sensitivity included) and
// computes the score on the document, so the index only narrows the scan.
const TextKind = "text"

type textKind struct{}

func init() { RegisterIndexKind(TextKind, textKind{}) }

// ParseTextSpec reads the spec of a text index definition.
func ParseTextSpec(def IndexDef) (*text.Spec, error) {
	var s text.Spec
	if err := json.Unmarshal(def.Spec, &s); err != nil {
		return nil, errs.Errorf(errs.Invalid, "text index `%s`: bad spec: %v", def.Name, err)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (textKind) Prepare(def IndexDef) (IndexDef, error) {
	s, err := ParseTextSpec(def)
	if err != nil {
		return def, err
	}
	def.Spec, err = json.Marshal(s)
	return def, err
}

func textSpecOf(ix *Index) (*text.Spec, error) {
	if s, ok := ix.state.(*text.Spec); ok {
		return s, nil
	}
	s, err := ParseTextSpec(ix.Def)
	if err != nil {
		return nil, err
	}
	ix.state = s
	return s, nil
}

func (textKind) Update(ix *Index, before, after value.Value) error {
	s, err := textSpecOf(ix)
	if err != nil {
		return err
	}
	var entries map[string]float64
	if !after.IsMissing() {
		// Score first: a document whose language is refused changes nothing.
		if entries, err = s.Scores(after); err != nil {
			return err
		}
	}
	if !before.IsMissing() {
		terms, err := s.Terms(before)
		if err != nil {
			return err
		}
		key := value.AppendKey(nil, before.Get("_id"))
		for _, t := range terms {
			if err := ix.bucket.Delete(textEntryKey(t, key)); err != nil {
				return err
			}
		}
	}
	if after.IsMissing() {
		return nil
	}
	key := value.AppendKey(nil, after.Get("_id"))
	for t, score := range entries {
		if err := ix.bucket.Put(textEntryKey(t, key), binary.BigEndian.AppendUint64(nil, math.Float64bits(score))); err != nil {
			return err
		}
	}
	return nil
}

func textEntryKey(term string, docKey []byte) []byte {
	term = indexTerm(term)
	k := make([]byte, 0, len(term)+1+len(docKey))
	return append(append(append(k, term...), 0), docKey...)
}

// maxTermKey bounds the bytes of a term in an index key (a bbolt key is
// at most 32 KiB, and a word may be a megabyte long).
const maxTermKey = 128

// indexTerm is the form of a term in the index's keys: the term, or for a
// longer one its first bytes and a hash of the whole (as MongoDB hashes
// long terms). Two long terms may then share entries: harmless, since
// every document found is matched against the query on its own text.
func indexTerm(t string) string {
	if len(t) <= maxTermKey {
		return t
	}
	sum := sha256.Sum256([]byte(t))
	return t[:maxTermKey-33] + "\x01" + hex.EncodeToString(sum[:16])
}

// Check compares the index with the entries the documents give.
func (textKind) Check(ix *Index) []string {
	s, err := textSpecOf(ix)
	if err != nil {
		return []string{err.Error()}
	}
	want := map[string]bool{}
	var problems []string
	cur := ix.coll.Scan()
	for cur.Next() {
		doc := cur.Doc()
		if cur.Err() != nil {
			break
		}
		scores, err := s.Scores(doc)
		if err != nil {
			problems = append(problems, fmt.Sprintf("document %s: %v", doc.Get("_id"), err))
			continue
		}
		key := value.AppendKey(nil, doc.Get("_id"))
		for t, score := range scores {
			k := textEntryKey(t, key)
			want[string(k)] = true
			v := ix.bucket.Get(k)
			if len(v) != 8 || math.Float64frombits(binary.BigEndian.Uint64(v)) != score {
				problems = append(problems, fmt.Sprintf("document %s: term %q: entry missing or wrong", doc.Get("_id"), t))
			}
		}
	}
	if err := cur.Err(); err != nil {
		problems = append(problems, err.Error())
	}
	ix.bucket.ForEach(func(k, _ []byte) error {
		if !want[string(k)] {
			problems = append(problems, fmt.Sprintf("entry %q matches no document", k))
		}
		return nil
	})
	return problems
}

// textIndex returns the collection's text index definition, if any.
func (c *Collection) textIndex() (IndexDef, bool) {
	for _, d := range c.meta.Indexes {
		if d.Kind == TextKind {
			return d, true
		}
	}
	return IndexDef{}, false
}

// checkOneText refuses a second text index on a collection.
func (c *Collection) checkOneText(def IndexDef, pending []IndexDef) error {
	if def.Kind != TextKind {
		return nil
	}
	old, ok := c.textIndex()
	for _, d := range pending {
		if d.Kind == TextKind {
			old, ok = d, true
		}
	}
	if !ok {
		return nil
	}
	return wrap(errs.Conflict, nil, "collection `%s` already has a text index, `%s`: a collection has at most one", c.name, old.Name).
		WithHint("drop it first (omgdb drop-index), then create the new one with all the fields")
}

// planText plans a $text query: it binds the filter to the text index
// and scans the index's entries for the query's terms (a redacting query
// reads every document instead, as index entries would reveal what it
// hides).
func (c *Collection) planText(q Query) (*choice, error) {
	def, ok := c.textIndex()
	if !ok {
		return nil, query.ErrTextIndexRequired
	}
	if q.Hint != "" && q.Hint != def.Name {
		return nil, errs.Errorf(errs.Invalid, "hint: a $text query uses the text index `%s`, not `%s`", def.Name, q.Hint).
			WithHint("drop the hint")
	}
	ix, err := c.openIndex(def)
	if err != nil {
		return nil, err
	}
	spec, err := textSpecOf(ix)
	if err != nil {
		return nil, err
	}
	f, err := q.Filter.BindText(spec)
	if err != nil {
		return nil, err
	}
	p := &Plan{Stage: "TEXT", Index: def.Name, bucket: ix.bucket, textFilter: f, why: "a $text query uses the text index"}
	return &choice{plan: p}, nil
}

// checkTextScore refuses a textScore asked of a query without $text.
func checkTextScore(q Query) error {
	if q.Filter.Text() != nil {
		return nil
	}
	if q.Projection.NeedsTextScore() || (q.Sort != nil && q.Sort.NeedsTextScore()) {
		return query.ErrNoTextScore()
	}
	return nil
}

// textSource streams the documents a TEXT plan finds, each with its
// score in query.TextScoreField.
type textSource struct {
	ctx    context.Context
	c      *Collection
	f      *query.Filter
	keys   [][]byte // the candidates' keys, in _id order; nil: scan them all
	scan   *Cursor
	redact func(value.Value) value.Value
	i      int
	doc    value.Value
	err    error
}

func (c *Collection) textSource(ctx context.Context, q Query, p *Plan) agg.Source {
	s := &textSource{ctx: ctx, c: c, f: p.textFilter, redact: q.Redact}
	if q.Redact != nil {
		s.scan = c.Scan()
		return s
	}
	seen := map[string]bool{}
	for _, t := range p.textFilter.TextTerms() {
		prefix := append([]byte(indexTerm(t)), 0)
		cur := p.bucket.Cursor()
		for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
			if key := string(k[len(prefix):]); !seen[key] {
				seen[key] = true
				s.keys = append(s.keys, []byte(key))
			}
		}
	}
	sort.Slice(s.keys, func(i, j int) bool { return bytes.Compare(s.keys[i], s.keys[j]) < 0 })
	return s
}

func (s *textSource) next() (value.Value, bool) {
	if s.scan != nil {
		if !s.scan.Next() {
			s.err = s.scan.Err()
			return value.Value{}, false
		}
		doc := s.scan.Doc()
		s.err = s.scan.Err()
		return s.redact(doc), s.err == nil
	}
	for s.i < len(s.keys) {
		raw := s.c.docs.Get(s.keys[s.i])
		s.i++
		if raw == nil {
			continue // the index may name a document removed in this transaction
		}
		doc, err := decodeDoc(raw)
		s.err = err
		return doc, err == nil
	}
	return value.Value{}, false
}

func (s *textSource) Next() bool {
	for s.err == nil {
		if s.err = s.ctx.Err(); s.err != nil {
			return false
		}
		doc, ok := s.next()
		if !ok {
			return false
		}
		match, err := s.f.MatchContext(s.ctx, doc)
		if s.err = err; err != nil || !match {
			continue
		}
		score, _, err := s.f.TextScore(doc)
		if s.err = err; err != nil {
			return false
		}
		s.doc = doc.With(query.TextScoreField, value.DoubleValue(score))
		return true
	}
	return false
}

func (s *textSource) Doc() value.Value { return s.doc }
func (s *textSource) Err() error       { return s.err }
func (s *textSource) Close() error     { return nil }

// stripScore removes the textScore a TEXT plan's documents carry.
type stripScore struct{ agg.Source }

func (s stripScore) Doc() value.Value { return withoutScore(s.Source.Doc()) }

// withoutScore removes the textScore field from v at any depth: a
// pipeline or projection may have copied $$ROOT, score included, into a
// field or an array. It returns v itself when v holds none.
func withoutScore(v value.Value) value.Value {
	if !hasScore(v) {
		return v
	}
	switch v.Kind() {
	case value.Object:
		fields := make([]value.Field, 0, v.Len())
		for _, f := range v.Fields() {
			if f.Key != query.TextScoreField {
				fields = append(fields, value.Field{Key: f.Key, Value: withoutScore(f.Value)})
			}
		}
		return value.ObjectValue(fields)
	case value.Array:
		elems := make([]value.Value, len(v.Array()))
		for i, e := range v.Array() {
			elems[i] = withoutScore(e)
		}
		return value.ArrayValue(elems)
	}
	return v
}

func hasScore(v value.Value) bool {
	switch v.Kind() {
	case value.Object:
		for _, f := range v.Fields() {
			if f.Key == query.TextScoreField || hasScore(f.Value) {
				return true
			}
		}
	case value.Array:
		for _, e := range v.Array() {
			if hasScore(e) {
				return true
			}
		}
	}
	return false
}

// TextPattern reports whether a key pattern written as a JSON object
// ({"title":"text"}) asks for a text index: one of its values is "text".
func TextPattern(pattern string) (fields []string, ok bool, err error) {
	if !strings.HasPrefix(strings.TrimSpace(pattern), "{") {
		return nil, false, nil
	}
	doc, err := value.ParseString(pattern)
	if err != nil || doc.Kind() != value.Object {
		return nil, false, nil // ParseKeyPattern reports it
	}
	for _, f := range doc.Fields() {
		if f.Value.Kind() == value.String && f.Value.Str() == "text" {
			ok = true
		}
	}
	if !ok {
		return nil, false, nil
	}
	for _, f := range doc.Fields() {
		if f.Value.Kind() != value.String || f.Value.Str() != "text" {
			return nil, true, errs.Errorf(errs.Usage, "key pattern %s mixes text and other keys (`%s`): omgdb's text indexes have no compound keys", doc, f.Key).
				WithHint(`index the other fields in a B-tree index of their own: omgdb create-index <store> <coll> '{"%s":1}'`, f.Key)
		}
		fields = append(fields, f.Key)
	}
	return fields, true, nil
}

// TextIndexDef returns the definition of a text index on fields with the
// given weights (an object, or missing), default language and language
// override field ("" for the defaults), named as MongoDB names it
// (title_text_body_text) unless name is given.
func TextIndexDef(name string, fields []string, weights value.Value, defaultLanguage, override string) (IndexDef, error) {
	spec, err := text.NewSpec(fields, weights, defaultLanguage, override)
	if err != nil {
		return IndexDef{}, err
	}
	if name == "" {
		parts := make([]string, len(fields))
		for i, f := range fields {
			parts[i] = f + "_text"
		}
		name = strings.Join(parts, "_")
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return IndexDef{}, err
	}
	return IndexDef{Name: name, Kind: TextKind, Spec: raw}, nil
}

// textValue describes a TEXT plan for explain: MongoDB's TEXT_MATCH over
// the index's terms (a redacting query scans the collection instead).
func (p *Plan) textValue(filter value.Value, redacting bool) value.Value {
	terms := make([]value.Value, 0, len(p.textFilter.TextTerms()))
	for _, t := range p.textFilter.TextTerms() {
		terms = append(terms, str(t))
	}
	input := obj("stage", str("TEXT_OR"), "indexName", str(p.Index), "terms", value.ArrayValue(terms))
	if redacting {
		input = obj("stage", str("COLLSCAN"), "direction", str("forward"))
	}
	return obj("stage", str("TEXT_MATCH"), "filter", filter, "inputStage", input)
}

// BindText binds a filter's $text to the collection's text index, for
// the callers that match documents themselves (Diagnose, the planners of
// package changes): it returns f itself when f has no $text, and
// query.ErrTextIndexRequired when the collection has no text index.
func (c *Collection) BindText(f *query.Filter) (*query.Filter, error) {
	if f.Text() == nil {
		return f, nil
	}
	ch, err := c.planText(Query{Filter: f})
	if err != nil {
		return nil, err
	}
	return ch.plan.textFilter, nil
}
