package vector

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/viterin/vek/vek32"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Context-pack defaults and limits.
const (
	DefaultBudget = 2000 // tokens
	MaxBudget     = 1 << 20
	ChunkTokens   = 300 // the largest chunk, in estimated tokens
	packDocs      = 20  // documents ranked for a pack
	minPartial    = 48  // the smallest remainder worth a cut chunk
	dupCosine     = 0.95
	cutMarker     = " […]"
)

// EstimateTokens estimates the tokens of text for a language model: one
// per four characters (runes), rounded up. It is an estimate, not a
// tokenizer: English prose with common BPE vocabularies averages about
// four characters per token.
func EstimateTokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// PackOptions configures Pack.
type PackOptions struct {
	Budget int           // tokens; DefaultBudget when 0
	Filter *query.Filter // documents considered
	Hybrid bool          // rank documents by BM25 and vectors fused
	// Note replaces the ranking's note in the pack, when not empty.
	Note string
	// Extra fields are added to the pack after its note; they count in
	// the budget like the rest of the pack.
	Extra []value.Field
}

// chunk is a piece of a document's field text.
type chunk struct {
	id      value.Value
	key     []byte
	docRank int
	seq     int // position within the document
	text    string
	heading string // heading path, "A > B"; empty outside headings
	start   int    // byte offsets in the field text
	end     int
	vec     []float32
	score   float64
	tokens  int
	cut     bool
}

// Pack builds a context pack for an agent: the documents of c ranked for
// text (by the field's vector index, or hybrid), split into chunks, the
// best chunks packed until the token budget is reached. The result is a
// document:
//
//	{"query","budget","used_tokens","chunks":[{"ref","_id","score","tokens","text","source"}],
//	 "citations":["[1] <_id> § <heading path>"…],"omitted":[{"_id","score","tokens","source","reason"}…]}
//
// The budget holds the whole pack as printed, not only its chunks' text
// (see pack.go); it is the same for the same store and query.
func Pack(ctx context.Context, c *store.Collection, field, text string, opts *PackOptions) (value.Value, error) {
	if opts == nil {
		opts = &PackOptions{}
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if budget > MaxBudget {
		return value.Value{}, errs.Errorf(errs.Limit, "--budget %d is over the limit of %d tokens", budget, MaxBudget)
	}
	sopts := &SearchOptions{K: packDocs, Filter: opts.Filter}
	var res *Result
	var err error
	if opts.Hybrid {
		res, err = HybridSearch(ctx, c, field, text, sopts)
	} else {
		res, err = VectorSearch(ctx, c, field, text, sopts)
	}
	if err != nil {
		return value.Value{}, err
	}
	emb := NewEmbedder(0)
	if res.Model != "" {
		if e, err := ParseModelID(res.Model); err == nil {
			emb = e
		}
	}
	q := emb.Embed(text)
	var chunks []*chunk
	for rank, h := range res.Hits {
		t, ok := FieldText(h.Doc, field)
		if !ok {
			continue
		}
		for _, ch := range splitChunks(t) {
			ch.id, ch.key, ch.docRank = h.ID, h.key, rank
			ch.vec = emb.Embed(ch.text)
			cos := float64(vek32.Dot(q, ch.vec))
			if cos <= 0 {
				continue // shares no word or trigram with the query
			}
			docPart := h.Score / math.Max(res.Hits[0].Score, 1e-9)
			ch.score = math.Round((0.5*docPart+0.5*cos)*1e6) / 1e6
			ch.tokens = EstimateTokens(ch.text)
			chunks = append(chunks, ch)
		}
	}
	sort.SliceStable(chunks, func(i, j int) bool {
		a, b := chunks[i], chunks[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.docRank != b.docRank {
			return a.docRank < b.docRank
		}
		return a.seq < b.seq
	})
	if opts.Note != "" {
		res.Note = opts.Note
	}
	return packChunks(text, budget, chunks, res, opts.Extra)
}

func duplicateOf(ch *chunk, taken []*chunk) *chunk {
	for _, t := range taken {
		if t.text == ch.text || (len(ch.vec) > 0 && vek32.Dot(t.vec, ch.vec) >= dupCosine) {
			return t
		}
	}
	return nil
}

// cutChunk returns the longest prefix of ch ending at a sentence end that
// fits in left tokens with the cut marker, or false.
func cutChunk(ch *chunk, left int) (*chunk, bool) {
	if left < minPartial {
		return nil, false
	}
	best := -1
	for _, end := range sentenceEnds(ch.text) {
		if EstimateTokens(ch.text[:end]+cutMarker) <= left {
			best = end
		}
	}
	if best <= 0 {
		return nil, false
	}
	cut := *ch
	cut.text = strings.TrimSuffix(ch.text[:best], cutMarker) + cutMarker
	cut.end = ch.start + best
	cut.tokens = EstimateTokens(cut.text)
	cut.cut = true
	return &cut, true
}

// source describes where a chunk came from: its heading path, when it is
// under one, and its byte offsets in the field's text.
func (ch *chunk) source() value.Value {
	var f []value.Field
	if ch.heading != "" {
		f = append(f, value.Field{Key: "heading", Value: value.StringValue(ch.heading)})
	}
	f = append(f, value.Field{Key: "offsets", Value: value.ArrayValue([]value.Value{value.LongValue(int64(ch.start)), value.LongValue(int64(ch.end))})})
	return value.ObjectValue(f)
}

func citeLabel(ch *chunk) string {
	id := ch.id.Str()
	if ch.id.Kind() != value.String {
		id = ch.id.String()
	}
	if ch.heading != "" {
		return id + " § " + ch.heading
	}
	return fmt.Sprintf("%s @%d-%d", id, ch.start, ch.end)
}

// splitChunks splits a text by Markdown headings, then paragraphs, then
// sentences, into chunks of at most ChunkTokens; a sentence longer than
// that is cut (and marked) at a word boundary.
func splitChunks(text string) []*chunk {
	type part struct {
		heading    string
		start, end int
	}
	var parts []part
	secs := Sections(text)
	if len(secs) == 0 || secs[0].Start > 0 {
		end := len(text)
		if len(secs) > 0 {
			end = secs[0].Start
		}
		parts = append(parts, part{"", 0, end})
	}
	var path []Section
	for i, s := range secs {
		for len(path) > 0 && path[len(path)-1].Level >= s.Level {
			path = path[:len(path)-1]
		}
		path = append(path, s)
		names := make([]string, len(path))
		for j, p := range path {
			names[j] = p.Heading
		}
		end := len(text)
		if i+1 < len(secs) {
			end = secs[i+1].Start
		}
		parts = append(parts, part{strings.Join(names, " > "), s.Start, end})
	}
	var out []*chunk
	for _, p := range parts {
		for _, piece := range packPieces(text, pieces(text, p.start, p.end)) {
			if _, _, ok := atxHeading(piece.text); ok && !strings.Contains(piece.text, "\n") {
				continue // a heading with nothing under it says nothing
			}
			piece.heading, piece.seq = p.heading, len(out)
			out = append(out, piece)
		}
	}
	return out
}

// piece is a range of a text; a piece cut inside a sentence says at which
// ends.
type piece struct {
	s, e             int
	cutHead, cutTail bool
}

// pieces returns the paragraphs of text[start:end] as offset ranges,
// splitting paragraphs over ChunkTokens into sentences (or lines, for
// tables, lists and code) and those over it at word boundaries.
func pieces(text string, start, end int) []piece {
	var out []piece
	for _, para := range paragraphs(text, start, end) {
		if EstimateTokens(text[para[0]:para[1]]) <= ChunkTokens {
			out = append(out, piece{s: para[0], e: para[1]})
			continue
		}
		s := para[0]
		ends := sentenceEnds(text[para[0]:para[1]])
		if lineBlock(text[para[0]:para[1]]) {
			ends = lineEnds(text[para[0]:para[1]])
		}
		for _, e := range ends {
			out = append(out, hardSplit(text, s, para[0]+e)...)
			s = para[0] + e
		}
		if s < para[1] {
			out = append(out, hardSplit(text, s, para[1])...)
		}
	}
	return out
}

// lineBlock reports whether a paragraph is made of lines that stand alone:
// a table, a list, indented code. Those split at line ends, prose at
// sentence ends.
func lineBlock(para string) bool {
	for _, line := range strings.Split(para, "\n") {
		l := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(line, "    "), strings.HasPrefix(l, "|"),
			strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "+ "):
		case len(l) > 2 && l[0] >= '0' && l[0] <= '9' && strings.Contains(l[:min(len(l), 4)], ". "):
		default:
			return false
		}
	}
	return true
}

// lineEnds returns the offsets just after each line of text.
func lineEnds(text string) []int {
	var out []int
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			out = append(out, i+1)
		}
	}
	return append(out, len(text))
}

// paragraphs returns the non-blank runs of lines of text[start:end].
func paragraphs(text string, start, end int) [][2]int {
	var out [][2]int
	ps := -1
	off := start
	for _, line := range strings.SplitAfter(text[start:end], "\n") {
		blank := strings.TrimSpace(line) == ""
		switch {
		case !blank && ps < 0:
			ps = off
		case blank && ps >= 0:
			out = append(out, trimRange(text, ps, off))
			ps = -1
		}
		off += len(line)
	}
	if ps >= 0 {
		out = append(out, trimRange(text, ps, end))
	}
	return out
}

func trimRange(text string, s, e int) [2]int {
	for s < e && strings.ContainsRune(" \t\n", rune(text[s])) {
		s++
	}
	for e > s && strings.ContainsRune(" \t\n", rune(text[e-1])) {
		e--
	}
	return [2]int{s, e}
}

// sentenceEnds returns the offsets just after each sentence of text: after
// '.', '!' or '?' followed by white space, and at the end.
func sentenceEnds(text string) []int {
	var out []int
	for i := 0; i+1 < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (text[i+1] == ' ' || text[i+1] == '\n') {
			out = append(out, i+1)
		}
	}
	return append(out, len(text))
}

// hardSplit splits text[s:e] into pieces of at most ChunkTokens, at word
// boundaries where possible, marking where they were cut.
func hardSplit(text string, s, e int) []piece {
	r := trimRange(text, s, e)
	s, e = r[0], r[1]
	if s >= e {
		return nil
	}
	if EstimateTokens(text[s:e]) <= ChunkTokens {
		return []piece{{s: s, e: e}}
	}
	var out []piece
	maxBytes := ChunkTokens * 4
	for s < e {
		cut := min(e, s+maxBytes)
		for cut < e && !utf8.RuneStart(text[cut]) {
			cut--
		}
		if cut < e {
			if sp := strings.LastIndexAny(text[s:cut], " \n\t"); sp > maxBytes/2 {
				cut = s + sp
			}
		}
		out = append(out, piece{s: s, e: cut, cutHead: len(out) > 0, cutTail: true})
		r := trimRange(text, cut, e)
		s = r[0]
	}
	out[len(out)-1].cutTail = false
	return out
}

// packPieces groups consecutive pieces into chunks of at most ChunkTokens.
// A piece cut inside a sentence is a chunk of its own, marked "[…]" where
// it was cut.
func packPieces(text string, ps []piece) []*chunk {
	var out []*chunk
	var cur *chunk
	for _, p := range ps {
		if p.cutHead || p.cutTail {
			cur = nil
			t := text[p.s:p.e]
			if p.cutHead {
				t = strings.TrimPrefix(cutMarker, " ") + " " + t
			}
			if p.cutTail {
				t += cutMarker
			}
			out = append(out, &chunk{text: t, start: p.s, end: p.e, cut: true})
			continue
		}
		if cur != nil && EstimateTokens(text[cur.start:p.e]) <= ChunkTokens {
			cur.end = p.e
			cur.text = text[cur.start:cur.end]
			continue
		}
		cur = &chunk{text: text[p.s:p.e], start: p.s, end: p.e}
		out = append(out, cur)
	}
	return out
}
