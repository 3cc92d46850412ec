package vector

import (
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Highlighting defaults.
const (
	fragmentBytes = 160 // context around a match
	maxFragments  = 3   // per field
	markOpen      = "<mark>"
	markClose     = "</mark>"
)

// highlight returns, per indexed field of doc, up to maxFragments
// fragments of its text with the matched terms wrapped in <mark>…</mark>.
func (fi *ftsIndex) highlight(doc value.Value, terms map[string]map[string]bool) value.Value {
	var out []value.Field
	for _, f := range fi.spec.Fields {
		text, ok := FieldText(doc, f)
		if !ok {
			continue
		}
		var spans [][2]int
		for _, tok := range fi.an.Analyze([]byte(text)) {
			t := string(tok.Term)
			if terms[f][t] || terms[allField][t] {
				spans = append(spans, [2]int{tok.Start, tok.End})
			}
		}
		if len(spans) == 0 {
			continue
		}
		frags := fragments(text, spans)
		vals := make([]value.Value, len(frags))
		for i, fr := range frags {
			vals[i] = value.StringValue(fr)
		}
		out = append(out, value.Field{Key: f, Value: value.ArrayValue(vals)})
	}
	return value.ObjectValue(out)
}

// fragments cuts windows of text around the spans (sorted by offset),
// merging windows that overlap, and marks the spans.
func fragments(text string, spans [][2]int) []string {
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	type window struct {
		s, e  int
		spans [][2]int
	}
	var ws []*window
	for _, sp := range spans {
		s, e := wordStart(text, max(0, sp[0]-fragmentBytes/2)), wordEnd(text, min(len(text), sp[1]+fragmentBytes/2))
		if n := len(ws); n > 0 && s <= ws[n-1].e {
			ws[n-1].e = max(ws[n-1].e, e)
			ws[n-1].spans = append(ws[n-1].spans, sp)
			continue
		}
		if len(ws) == maxFragments {
			break
		}
		ws = append(ws, &window{s, e, [][2]int{sp}})
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		var b strings.Builder
		if w.s > 0 {
			b.WriteString("…")
		}
		at := w.s
		for _, sp := range w.spans {
			if sp[0] < at || sp[1] > w.e {
				continue
			}
			b.WriteString(text[at:sp[0]])
			b.WriteString(markOpen + text[sp[0]:sp[1]] + markClose)
			at = sp[1]
		}
		b.WriteString(text[at:w.e])
		if w.e < len(text) {
			b.WriteString("…")
		}
		out[i] = strings.Join(strings.Fields(b.String()), " ")
	}
	return out
}

// wordStart moves i back to the start of the word it is in.
func wordStart(text string, i int) int {
	for i > 0 && text[i-1] != ' ' && text[i-1] != '\n' {
		i--
	}
	return i
}

// wordEnd moves i forward to the end of the word it is in.
func wordEnd(text string, i int) int {
	for i < len(text) && text[i] != ' ' && text[i] != '\n' {
		i++
	}
	return i
}
