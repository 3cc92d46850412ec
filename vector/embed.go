package vector

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// DefaultDim is the default number of dimensions of an embedding.
const DefaultDim = 256

// MaxDim bounds the dimension of an embedding.
const MaxDim = 8192

// Embedder turns text into a unit vector by feature hashing: deterministic,
// offline, the same on every machine. docs/retrieval.md gives the exact
// algorithm so that others can reproduce the vectors.
type Embedder struct {
	Dim     int  // dimensions; DefaultDim when 0
	Version int  // 1: OMGDB's baseline; 2 (the default when 0): omgdb's improved embedder
	cfg     feat // the weighting of Version 2; zero for the default
}

// feat holds the knobs of the version-2 embedder. The zero feat is the
// default; the benchmark varies them to choose the default by measurement.
type feat struct {
	noStop    bool    // keep stop words
	noStem    bool    // do not stem
	noSign    bool    // no sign bit
	rawTF     bool    // raw term frequency instead of 1+ln(tf)
	bigram    float64 // weight of word bigrams; -1 for none (0: default)
	trigram   float64 // weight of each character trigram; -1 for none (0: default)
	unstemmed bool    // also hash the unstemmed word when it differs from its stem
}

// Default weights of the version-2 features, chosen by measurement
// (docs/retrieval.md).
const (
	defaultBigram  = 0.25
	defaultTrigram = 0.5
)

// NewEmbedder returns the default (version 2) embedder of dimension dim.
func NewEmbedder(dim int) *Embedder { return &Embedder{Dim: dim, Version: 2} }

// ParseModelID returns the embedder a model id names, such as
// "hashing-fnv1a-v2-d256".
func ParseModelID(id string) (*Embedder, error) {
	var v, d int
	if _, err := fmt.Sscanf(id, "hashing-fnv1a-v%d-d%d", &v, &d); err != nil || (v != 1 && v != 2) || d < 1 || d > MaxDim {
		return nil, fmt.Errorf("unknown embedding model %q", id)
	}
	return &Embedder{Dim: d, Version: v}, nil
}

func (e *Embedder) dim() int {
	if e.Dim <= 0 {
		return DefaultDim
	}
	return e.Dim
}

func (e *Embedder) version() int {
	if e.Version == 0 {
		return 2
	}
	return e.Version
}

// ModelID names the embedder and its dimension, as recorded with an index:
// "hashing-fnv1a-v2-d256".
func (e *Embedder) ModelID() string {
	return fmt.Sprintf("hashing-fnv1a-v%d-d%d", e.version(), e.dim())
}

// Embed returns the unit vector of text. Text without a word gives the
// zero vector, which scores 0 against everything.
func (e *Embedder) Embed(text string) []float32 {
	return e.AppendEmbed(make([]float32, 0, e.dim()), text)
}

// AppendEmbed appends the vector of text to dst.
func (e *Embedder) AppendEmbed(dst []float32, text string) []float32 {
	n := len(dst)
	dst = append(dst, make([]float32, e.dim())...)
	v := dst[n:]
	if e.version() == 1 {
		e.baseline(v, text)
	} else {
		e.v2(v, text)
	}
	normalize(v)
	return dst
}

// baseline is OMGDB's embedder: each lowercased word adds 1 to the bucket
// FNV-1a(word) mod dim.
func (e *Embedder) baseline(v []float32, text string) {
	dim := uint64(len(v))
	forEachWord(text, func(w string) {
		v[fnv1a(fnvOffset, w)%dim]++
	})
}

// v2 hashes words (stop words dropped, Porter-stemmed), word bigrams and
// character trigrams with a sign bit, weighting each feature by its kind's
// weight times 1+ln(count).
func (e *Embedder) v2(v []float32, text string) {
	cfg := e.cfg
	counts := map[string]float64{}
	prev := ""
	stops := stopWords()
	wb, wc := weight(cfg.bigram, defaultBigram), weight(cfg.trigram, defaultTrigram)
	forEachWord(text, func(w string) {
		if !cfg.noStop {
			if _, stop := stops[w]; stop {
				prev = ""
				return
			}
		}
		s := w
		if !cfg.noStem {
			s = porterstemmer.StemString(w)
		}
		counts["w\x00"+s]++
		if cfg.unstemmed && s != w {
			counts["w\x00"+w]++
		}
		if wb > 0 && prev != "" {
			counts["b\x00"+prev+" "+s]++
		}
		if wc > 0 {
			addTrigrams(counts, w)
		}
		prev = s
	})
	// Sum in a fixed order (by hash, then feature), so that float rounding
	// is the same on every run.
	feats := make([]hashed, 0, len(counts))
	for f, c := range counts {
		feats = append(feats, hashed{fnv1a(fnvOffset, f), f, c})
	}
	sort.Slice(feats, func(i, j int) bool {
		if feats[i].h != feats[j].h {
			return feats[i].h < feats[j].h
		}
		return feats[i].f < feats[j].f
	})
	dim := uint64(len(v))
	for _, ft := range feats {
		tf := ft.c
		if !cfg.rawTF {
			tf = 1 + math.Log(ft.c)
		}
		switch ft.f[0] {
		case 'b':
			tf *= wb
		case 'c':
			tf *= wc
		}
		x := float32(tf)
		if !cfg.noSign && ft.h>>63 == 1 {
			x = -x
		}
		v[ft.h%dim] += x
	}
}

type hashed struct {
	h uint64
	f string
	c float64
}

func weight(knob, def float64) float64 {
	switch {
	case knob < 0:
		return 0
	case knob == 0:
		return def
	}
	return knob
}

// addTrigrams counts the character trigrams of "<" + w + ">". A word of
// one character gives one trigram.
func addTrigrams(counts map[string]float64, w string) {
	r := make([]rune, 0, len(w)+2)
	r = append(r, '<')
	r = append(r, []rune(w)...)
	r = append(r, '>')
	for i := 0; i+3 <= len(r); i++ {
		counts["c\x00"+string(r[i:i+3])]++
	}
}

// forEachWord calls fn with each maximal run of letters and digits of
// text, lowercased.
func forEachWord(text string, fn func(string)) {
	start := -1
	for i, r := range text {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case alnum && start < 0:
			start = i
		case !alnum && start >= 0:
			fn(strings.ToLower(text[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		fn(strings.ToLower(text[start:]))
	}
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a is 64-bit FNV-1a over the bytes of s.
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// normalize scales v to unit length; the zero vector stays zero.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// words returns the number of words of text, for token estimates.
func wordCount(text string) int {
	n := 0
	forEachWord(text, func(string) { n++ })
	return n
}
