package query

import (
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/text"
	"github.com/omgdb/omgdb/query/value"
)

// TextScoreField is the field a $text query's stream adds to each
// document for {"$meta":"textScore"} to read: it starts with '$', so no
// stored document can carry it, and the store removes it from every
// document it returns.
const TextScoreField = value.TextScoreField

// TextSearch is the $text condition of a filter, as written.
type TextSearch struct {
	Search             string
	Language           string // "" for the index's default language
	CaseSensitive      bool
	DiacriticSensitive bool
}

// textNode is a $text condition. It matches only once the filter is
// bound to the collection's text index (Filter.BindText); unbound, it
// reports ErrTextIndexRequired through MatchErr and MatchContext.
type textNode struct {
	search TextSearch
	spec   *text.Spec
	q      *text.Query
}

// ErrTextIndexRequired is the error of a $text query on a collection
// without a text index.
var ErrTextIndexRequired = errs.Errorf(errs.Invalid, "text index required for $text query").
	WithHint(`create one with omgdb create-index <store> <coll> '{"title":"text"}' (in omgdb shell: db.<coll>.createIndex({title: 'text'}))`)

func (n *textNode) match(doc value.Value, c *matchCtx) bool {
	if n.spec == nil {
		if c != nil && c.err == nil {
			c.err = ErrTextIndexRequired
		}
		return false
	}
	ok, _, err := n.spec.Match(n.q, doc)
	if err != nil && c != nil && c.err == nil {
		c.err = err
	}
	return ok
}

// text compiles $text: {$search, $language, $caseSensitive,
// $diacriticSensitive}, allowed once, at the top level of a filter or in
// a top-level $and (at any depth of $and), never under $or, $nor or
// $elemMatch: the text index's candidates hold every document such a
// filter can match.
func (c *compiler) text(arg value.Value, top bool) ([]Predicate, error) {
	if !top || c.nested > 0 {
		return nil, malformed("$text can only be applied to the top-level document or a top-level $and, not inside $elemMatch, $or or $nor").
			WithHint("move $text to the top level of the filter: {\"$text\":{\"$search\":…},…}")
	}
	if c.textCond != nil {
		return nil, malformed("too many text expressions: a filter takes one $text").
			WithHint("put all the words in one $search string")
	}
	if arg.Kind() != value.Object {
		return nil, malformed("$text needs an object, got %s", arg.TypeName()).
			WithHint(`write {"$text":{"$search":"coffee shop"}}`)
	}
	var s TextSearch
	hasSearch := false
	for _, f := range arg.Fields() {
		switch f.Key {
		case "$search":
			if f.Value.Kind() != value.String {
				return nil, malformed("$search needs a string, got %s", f.Value.TypeName()).
					WithHint(`write {"$text":{"$search":"coffee shop"}}`)
			}
			s.Search, hasSearch = f.Value.Str(), true
		case "$language":
			if f.Value.Kind() != value.String {
				return nil, malformed("$language needs a string, got %s", f.Value.TypeName()).
					WithHint(`write {"$language":"spanish"}`)
			}
			if _, err := text.LookupLanguage(f.Value.Str()); err != nil {
				return nil, err
			}
			s.Language = f.Value.Str()
		case "$caseSensitive", "$diacriticSensitive":
			if f.Value.Kind() != value.Bool {
				return nil, malformed("%s needs a boolean, got %s", f.Key, f.Value.TypeName()).
					WithHint(`write {"%s":true}`, f.Key)
			}
			if f.Key == "$caseSensitive" {
				s.CaseSensitive = f.Value.Bool()
			} else {
				s.DiacriticSensitive = f.Value.Bool()
			}
		default:
			return nil, malformed("unknown field in $text: %s%s", f.Key,
				errs.DidYouMean(f.Key, []string{"$search", "$language", "$caseSensitive", "$diacriticSensitive"})).
				WithHint("$text takes $search, $language, $caseSensitive and $diacriticSensitive")
		}
	}
	if !hasSearch {
		return nil, malformed("$text needs $search").WithHint(`write {"$text":{"$search":"coffee shop"}}`)
	}
	n := &textNode{search: s}
	c.textCond = n
	c.hasExpr = true // reads the text index's fields: MatchJSON parses whole documents
	return []Predicate{{Op: "$text", Operand: arg, n: n}}, nil
}

// Text returns the filter's $text condition, or nil when it has none.
func (f *Filter) Text() *TextSearch {
	if f == nil || f.text == nil {
		return nil
	}
	s := f.text.search
	return &s
}

// BindText returns the filter with its $text condition bound to the
// collection's text index spec: the search is read in $language, or the
// index's default language, and matched as MongoDB does. It returns f
// itself when f has no $text.
func (f *Filter) BindText(spec *text.Spec) (*Filter, error) {
	if f == nil || f.text == nil {
		return f, nil
	}
	langName := f.text.search.Language
	if langName == "" {
		langName = spec.DefaultLanguage
	}
	lang, err := text.LookupLanguage(langName)
	if err != nil {
		return nil, err
	}
	s := f.text.search
	bound := &textNode{search: s, spec: spec, q: text.ParseQuery(s.Search, lang, s.CaseSensitive, s.DiacriticSensitive)}
	g := *f
	g.text = bound
	g.root = make(andNode, len(f.root))
	g.preds = make([]Predicate, len(f.preds))
	for i, p := range f.preds {
		p.n = rebindText(p.n, f.text, bound)
		g.preds[i] = p
		g.root[i] = p.n
	}
	return &g, nil
}

// rebindText returns n with the $text node old replaced by bound, copying
// the $and nodes on the way to it ($text sits at the top level or under
// $and only); the filter n belongs to is left as it was.
func rebindText(n node, old, bound *textNode) node {
	switch t := n.(type) {
	case *textNode:
		if t == old {
			return bound
		}
	case andNode:
		out := make(andNode, len(t))
		for i, k := range t {
			out[i] = rebindText(k, old, bound)
		}
		return out
	}
	return n
}

// TextTerms returns the index terms a bound $text searches for (a
// document must hold one), or nil.
func (f *Filter) TextTerms() []string {
	if f == nil || f.text == nil || f.text.q == nil {
		return nil
	}
	return f.text.q.Terms
}

// TextScore returns doc's textScore under the bound $text condition, and
// whether doc matches that condition.
func (f *Filter) TextScore(doc value.Value) (float64, bool, error) {
	if f == nil || f.text == nil {
		return 0, false, nil
	}
	if f.text.spec == nil {
		return 0, false, ErrTextIndexRequired
	}
	ok, score, err := f.text.spec.Match(f.text.q, doc)
	return score, ok, err
}

// meta parses {"<name>":{"$meta":"textScore"}}, which neither includes
// nor excludes.
func (p *projParser) meta(name string, arg value.Value) error {
	if arg.Kind() != value.String || arg.Str() != "textScore" {
		return projError("unsupported $meta value %s for field `%s`: omgdb knows only \"textScore\"", arg, name).
			WithHint(`write {"%s":{"$meta":"textScore"}} with a $text query`, name)
	}
	for _, part := range strings.Split(name, ".") {
		if part == "" || strings.HasPrefix(part, "$") {
			return projError("invalid field path `%s` for $meta: field names may not be empty or start with '$'", name).
				WithHint(`write {"score":{"$meta":"textScore"}}`)
		}
	}
	p.metas = append(p.metas, name)
	return nil
}

// NeedsTextScore reports whether the projection reads the textScore.
func (p *Projection) NeedsTextScore() bool { return p != nil && len(p.metas) > 0 }

// errNoTextScore is MongoDB's error for a textScore asked of a query
// without $text.
func errNoTextScore() *errs.Error {
	return errs.Errorf(errs.Invalid, "query requires text score metadata, but it is not available").
		WithHint(`{"$meta":"textScore"} needs a $text query: add {"$text":{"$search":…}} to the filter (in a pipeline, a first $match)`)
}

// ErrNoTextScore returns the error of a projection or sort that reads
// the textScore of documents that have none.
func ErrNoTextScore() error { return errNoTextScore() }

// applyMeta sets the projection's textScore fields on out from doc's
// hidden score, and removes the hidden score.
func (p *Projection) applyMeta(doc, out value.Value) (value.Value, error) {
	score := doc.Get(TextScoreField)
	if len(p.metas) > 0 && score.IsMissing() {
		return value.Value{}, errNoTextScore()
	}
	if out.Kind() == value.Object && out.Has(TextScoreField) {
		out = out.Without(TextScoreField)
	}
	for _, m := range p.metas {
		out = value.SetPath(out, strings.Split(m, "."), score)
	}
	return out, nil
}
