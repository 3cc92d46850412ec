package vector

import (
	"bytes"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
	"github.com/blevesearch/segment"
)

// The analyzers of search indexes: bleve v2.6.1's "standard" and "en",
// assembled from bleve's parts (segment's Unicode word segmentation, its
// English stop list, the Porter stemmer) on terms kept in place, without
// the token objects bleve's analysis chain allocates per word.
// TestAnalyzer_EqualsBleve checks that the tokens are bleve's.
const (
	analyzerStandard = "standard"
	analyzerEN       = "en"
)

// token is one word of an analyzed text.
type token struct {
	Term     []byte
	Start    int // byte offsets of the word in the text
	End      int
	Position int // 1-based position of the word among the text's words
}

// textAnalyzer splits text into words (Unicode word segmentation), then
// for "en" strips English possessives, lowercases, drops English stop
// words and for "en" stems (Porter).
type textAnalyzer struct {
	en bool
}

// Analyze returns the tokens of input; it may overwrite input.
func (a *textAnalyzer) Analyze(input []byte) []token {
	var toks []token
	seg := segment.NewWordSegmenterDirect(input)
	start, pos := 0, 1
	for seg.Segment() {
		b := seg.Bytes()
		end := start + len(b)
		if seg.Type() != segment.None {
			toks = append(toks, token{Term: b, Start: start, End: end, Position: pos})
			pos++
		}
		start = end
	}
	stop := stopWords()
	j := 0
	for _, t := range toks {
		if a.en {
			t.Term = stripPossessive(t.Term)
		}
		t.Term = toLowerInPlace(t.Term)
		if _, ok := stop[string(t.Term)]; ok {
			continue
		}
		if a.en {
			t.Term = stemTerm(t.Term)
		}
		toks[j] = t
		j++
	}
	return toks[:j]
}

// stripPossessive removes a final 's (with ', ’ or ＇), as bleve's
// possessive_en.
func stripPossessive(term []byte) []byte {
	last, n := utf8.DecodeLastRune(term)
	if last == 's' || last == 'S' {
		prev, m := utf8.DecodeLastRune(term[:len(term)-n])
		if prev == '’' || prev == '\'' || prev == '＇' {
			return term[:len(term)-n-m]
		}
	}
	return term
}

// toLowerInPlace lowercases s as bleve's to_lower: in place when every
// lowercase rune is no wider, a final σ becoming ς.
func toLowerInPlace(s []byte) []byte {
	j := 0
	for i := 0; i < len(s); {
		wid := 1
		r := rune(s[i])
		if r >= utf8.RuneSelf {
			r, wid = utf8.DecodeRune(s[i:])
		}
		l := unicode.ToLower(r)
		if l == r {
			i += wid
			j += wid
			continue
		}
		if l == 'σ' && i+2 == len(s) {
			l = 'ς'
		}
		lwid := utf8.RuneLen(l)
		if lwid > wid {
			rest := bytes.ToLower(s[i:])
			rv := make([]byte, j+len(rest))
			copy(rv[:j], s[:j])
			copy(rv[j:], rest)
			return rv
		}
		utf8.EncodeRune(s[j:], l)
		i += wid
		j += lwid
	}
	return s[:j]
}

// stemTerm applies the Porter stemmer as bleve's stemmer_porter.
func stemTerm(term []byte) []byte {
	runes := porterstemmer.StemWithoutLowerCasing(bytes.Runes(term))
	out := make([]byte, 0, len(runes)*utf8.UTFMax)
	for _, r := range runes {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// stopWords returns bleve's English stop words (its stop_en list), used
// by both analyzers and by the embedding, loaded on first use.
var stopWords = sync.OnceValue(func() analysis.TokenMap {
	words := analysis.NewTokenMap()
	if err := words.LoadBytes(en.EnglishStopWords); err != nil {
		panic("vector: bleve's English stop words: " + err.Error())
	}
	return words
})
