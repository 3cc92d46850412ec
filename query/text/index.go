package text

import (
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Limits and defaults of a text index, MongoDB's.
const (
	MaxWeight               = 100000     // weights lie in the open interval (0, MaxWeight)
	DefaultLanguageOverride = "language" // the field that names a document's language
	Wildcard                = "$**"      // the key that indexes every string field
)

// Spec defines a text index: its fields with their weights, whether it
// indexes every string ("$**"), the default language and the field that
// overrides it in a document (or in an embedded document).
type Spec struct {
	Weights          map[string]float64 `json:"weights"` // dotted path -> weight, "$**" excluded
	Wildcard         bool               `json:"wildcard,omitempty"`
	DefaultLanguage  string             `json:"default_language"`
	LanguageOverride string             `json:"language_override"`
	keys             []string           // Weights' keys, sorted
	lang             *Language
}

// NewSpec builds and checks a spec from the fields of a key pattern
// whose value is "text", the weights option (missing, an object or "$**"), the
// default language ("" for english) and the language override field (""
// for "language"). MongoDB's rules: weights are numbers in (0, 100000);
// a field named only in weights is indexed too; the weight of "$**" has
// no effect.
func NewSpec(fields []string, weights value.Value, defaultLanguage, override string) (*Spec, error) {
	s := &Spec{Weights: map[string]float64{}, DefaultLanguage: defaultLanguage, LanguageOverride: override}
	for _, f := range fields {
		s.add(f, 1)
	}
	switch weights.Kind() {
	case value.Missing, value.Null:
	case value.String: // weights: "$**", MongoDB's shorthand for {"$**": 1}
		if weights.Str() != Wildcard {
			return nil, errs.Errorf(errs.Invalid, "text index weights must be an object or \"$**\", got the string %q", weights.Str()).
				WithHint(`write weights as {"title":10,"body":1}`)
		}
		s.add(Wildcard, 1)
	case value.Object:
		for _, f := range weights.Fields() {
			if !f.Value.IsNumber() {
				return nil, errs.Errorf(errs.Invalid, "weight for text index needs numeric type: `%s` is %s", f.Key, f.Value.TypeName()).
					WithHint(`write weights as {"title":10,"body":1}`)
			}
			s.add(f.Key, f.Value.Float())
		}
	default:
		return nil, errs.Errorf(errs.Invalid, "text index weights must be an object, got %s", weights.TypeName()).
			WithHint(`write weights as {"title":10,"body":1}`)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Spec) add(path string, w float64) {
	if path == Wildcard {
		s.Wildcard = true
		return
	}
	s.Weights[path] = w
}

// Check validates a spec (one read back from a file, say) and prepares
// it for use; it fills in the default language and override field.
func (s *Spec) Check() error {
	if s.DefaultLanguage == "" {
		s.DefaultLanguage = "english"
	}
	if s.LanguageOverride == "" {
		s.LanguageOverride = DefaultLanguageOverride
	}
	l, err := LookupLanguage(s.DefaultLanguage)
	if err != nil {
		return errs.Errorf(errs.Invalid, "default_language: %s", err.Error()).WithHint("%s", errs.HintOf(err))
	}
	s.lang, s.DefaultLanguage = l, l.Name
	if strings.HasPrefix(s.LanguageOverride, "$") || strings.Contains(s.LanguageOverride, ".") {
		return errs.Errorf(errs.Invalid, "language_override `%s` must be a plain field name", s.LanguageOverride).
			WithHint(`the default is "language"`)
	}
	if len(s.Weights) == 0 && !s.Wildcard {
		return errs.Errorf(errs.Invalid, "a text index needs at least one field").WithHint(`write {"title":"text"}`)
	}
	s.keys = s.keys[:0]
	for k, w := range s.Weights {
		if err := checkPath(k); err != nil {
			return err
		}
		if !(w > 0 && w < MaxWeight) {
			return errs.Errorf(errs.Invalid, "text index weight must be in the exclusive interval (0,%d) but found: %v for `%s`", MaxWeight, w, k).
				WithHint("use a weight such as 1 or 10")
		}
		s.keys = append(s.keys, k)
	}
	sort.Strings(s.keys)
	return nil
}

func checkPath(p string) error {
	for _, part := range strings.Split(p, ".") {
		if part == "" || strings.HasPrefix(part, "$") {
			return errs.Errorf(errs.Invalid, "text index field `%s` is not a valid field path", p).
				WithHint(`name fields as in {"title":"text","meta.notes":"text"}, or use "$**" for every string`)
		}
	}
	return nil
}

// Fields returns the weighted fields, sorted, with "$**" first when the
// index has it.
func (s *Spec) Fields() []string {
	out := append([]string(nil), s.keys...)
	if s.Wildcard {
		out = append([]string{Wildcard}, out...)
	}
	return out
}

// A text is one string the index reads, with its weight and language.
type textValue struct {
	s      string
	weight float64
	lang   *Language
}

// texts returns the strings of doc the index reads, in document order.
func (s *Spec) texts(doc value.Value) ([]textValue, error) {
	lang, err := s.language(doc, s.lang)
	if err != nil {
		return nil, err
	}
	var out []textValue
	return out, s.walk(doc, lang, "", false, &out)
}

// language returns the language an object names in the override field,
// or parent when it names none.
func (s *Spec) language(obj value.Value, parent *Language) (*Language, error) {
	v := obj.Get(s.LanguageOverride)
	switch v.Kind() {
	case value.Missing:
		return parent, nil
	case value.String:
		l, err := LookupLanguage(v.Str())
		if err != nil {
			return nil, errs.Errorf(errs.Invalid, "language override unsupported: field `%s` is %q", s.LanguageOverride, v.Str()).
				WithHint("name one of %s or \"none\" in `%s`", strings.Join(LanguageNames(), ", "), s.LanguageOverride)
		}
		return l, nil
	}
	return nil, errs.Errorf(errs.Invalid, "language override field `%s` must be a string, got %s", s.LanguageOverride, v.TypeName()).
		WithHint("name the document's language, such as \"english\", or rename the field")
}

// walk follows MongoDB's traversal of a document for a text index: a
// string is read when its dotted path (array positions left out) is a
// weighted field, or always with "$**"; objects are entered on the way to
// a weighted field; arrays are entered from outside an array (any array
// with "$**"). Embedded documents may name their own language.
func (s *Spec) walk(obj value.Value, lang *Language, parent string, inArray bool, out *[]textValue) error {
	var elems []value.Field
	if obj.Kind() == value.Array {
		for _, e := range obj.Array() {
			elems = append(elems, value.Field{Value: e})
		}
	} else {
		elems = obj.Fields()
	}
	for _, f := range elems {
		if s.Wildcard && !inArray && f.Key == s.LanguageOverride {
			continue
		}
		path := f.Key
		switch {
		case inArray:
			path = parent
		case parent != "":
			path = parent + "." + f.Key
		}
		probe := path
		if f.Value.Kind() == value.Object {
			probe += "."
		}
		i := sort.SearchStrings(s.keys, probe)
		possible := i < len(s.keys)
		if !s.Wildcard && (!possible || !(s.keys[i] == path || strings.HasPrefix(s.keys[i], path+"."))) {
			continue
		}
		exact := possible && s.keys[i] == path
		weight := 1.0
		if exact {
			weight = s.Weights[path] // "$**" gives the others 1 (SERVER-45363)
		}
		switch f.Value.Kind() {
		case value.String:
			if exact || s.Wildcard {
				*out = append(*out, textValue{f.Value.Str(), weight, lang})
			}
		case value.Object:
			if !exact || s.Wildcard {
				l, err := s.language(f.Value, lang)
				if err != nil {
					return err
				}
				if err := s.walk(f.Value, l, path, false, out); err != nil {
					return err
				}
			}
		case value.Array:
			if !inArray || s.Wildcard {
				if err := s.walk(f.Value, lang, path, true, out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Scores returns the document's score for each term the index holds for
// it, MongoDB's way (see the package comment). A document whose language
// override names no supported language is an error.
func (s *Spec) Scores(doc value.Value) (map[string]float64, error) {
	texts, err := s.texts(doc)
	if err != nil {
		return nil, err
	}
	scores := map[string]float64{}
	for _, t := range texts {
		scoreString(t, scores)
	}
	return scores, nil
}

func scoreString(t textValue, scores map[string]float64) {
	tokens := t.lang.Tokens(t.s, Options{})
	if len(tokens) == 0 {
		return
	}
	counts := map[string]int{}
	for _, tok := range tokens {
		counts[tok]++
	}
	n := float64(len(tokens))
	for term, c := range counts {
		freq := 2 - 2/float64(uint64(1)<<uint(min(c, 62))) // 1 + 1/2 + … + 1/2^(c-1)
		coeff := 0.5*float64(c)/n + 0.5
		adjust := 1.0
		if len(t.s) == len(term) && asciiEqualFold(t.s, term) {
			adjust = 1.1
		}
		scores[term] += t.weight * freq * coeff * adjust
	}
}

// asciiEqualFold compares a and b, of the same length, ignoring ASCII case.
func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
