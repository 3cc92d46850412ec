package vector

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// A pack keeps its budget as a whole: the pack as printed (compact JSON)
// is at most budget tokens, estimated as characters/4 like the chunks'
// text. Chunks are charged for their text and for their entry and
// citation; what is left out is listed while it fits, and then counted
// in a last {"more": N} entry. The accounting is in characters of the
// encoded JSON, so the estimate of the whole cannot exceed the budget.

// packer builds a pack within a budget of characters.
type packer struct {
	query string
	note  string
	extra []value.Field // added after the note
	limit int           // characters: 4 per token of the budget
	used  int           // characters charged so far

	taken   []*chunk
	omitted []*chunk
	reasons map[*chunk]string
}

// runes is the number of characters of v's JSON.
func runes(v value.Value) int { return utf8.RuneCount(value.AppendJSON(nil, v)) }

// packChunks takes chunks best first while they fit, cutting one at a
// sentence end when a useful remainder is left, skipping near-duplicates.
// A budget too small for the pack's frame is an error.
func packChunks(text string, budget int, chunks []*chunk, res *Result, extra []value.Field) (value.Value, error) {
	p := &packer{query: text, note: res.Note, extra: extra, limit: 4 * budget, reasons: map[*chunk]string{}}
	// The frame, and room for the {"more": N} entry, whatever is taken.
	p.used = runes(p.frame(budget, budget)) + runes(moreEntry(len(chunks))) + 1
	if p.used > p.limit {
		return value.Value{}, errs.Errorf(errs.Usage, "a budget of %d tokens cannot hold a pack: its frame alone (the query, the keys) takes %d",
			budget, (p.used+3)/4).WithHint("give a budget of a few hundred tokens")
	}
	for _, ch := range chunks {
		p.offer(ch)
	}
	return p.finish(budget), nil
}

// offer takes a chunk if it fits, or a cut of it, or omits it.
func (p *packer) offer(ch *chunk) {
	if dup := duplicateOf(ch, p.taken); dup != nil {
		p.omit(ch, "near-duplicate of "+citeLabel(dup))
		return
	}
	cost := p.cost(ch)
	left := p.limit - p.used
	if cost > left {
		overhead := cost - 4*ch.tokens // the entry and citation, and escapes
		cut, ok := cutChunk(ch, (left-overhead)/4)
		if !ok || p.cost(cut) > left {
			p.omit(ch, "over budget")
			return
		}
		p.omit(ch, "cut to fit the budget; the rest is omitted")
		ch, cost = cut, p.cost(cut)
	}
	p.taken = append(p.taken, ch)
	p.used += cost
}

func (p *packer) omit(ch *chunk, reason string) {
	p.omitted = append(p.omitted, ch)
	p.reasons[ch] = reason
}

// cost is what a chunk adds to the pack if taken next: its entry and its
// citation, each with a separating comma.
func (p *packer) cost(ch *chunk) int {
	ref := len(p.taken) + 1
	return runes(chunkEntry(ref, ch)) + runes(citation(ref, ch)) + 2
}

func chunkEntry(ref int, ch *chunk) value.Value {
	f := []value.Field{
		{Key: "ref", Value: value.LongValue(int64(ref))},
		{Key: "_id", Value: ch.id},
		{Key: "score", Value: value.DoubleValue(ch.score)},
		{Key: "tokens", Value: value.LongValue(int64(ch.tokens))},
		{Key: "text", Value: value.StringValue(ch.text)},
		{Key: "source", Value: ch.source()},
	}
	if ch.cut {
		f = append(f, value.Field{Key: "cut", Value: value.BoolValue(true)})
	}
	return value.ObjectValue(f)
}

func citation(ref int, ch *chunk) value.Value {
	return value.StringValue(fmt.Sprintf("[%d] %s", ref, citeLabel(ch)))
}

func omittedEntry(ch *chunk, reason string) value.Value {
	return value.ObjectValue([]value.Field{
		{Key: "_id", Value: ch.id},
		{Key: "score", Value: value.DoubleValue(ch.score)},
		{Key: "tokens", Value: value.LongValue(int64(ch.tokens))},
		{Key: "source", Value: ch.source()},
		{Key: "reason", Value: value.StringValue(reason)},
	})
}

func moreEntry(n int) value.Value {
	return value.ObjectValue([]value.Field{{Key: "more", Value: value.LongValue(int64(n))}})
}

// listOmitted lists the omitted chunks while they fit, keeping room for
// the {"more": N} entry that counts the rest.
func (p *packer) listOmitted() []value.Value {
	var out []value.Value
	for i, ch := range p.omitted {
		e := omittedEntry(ch, p.reasons[ch])
		cost := runes(e) + 1
		if p.used+cost > p.limit {
			return append(out, moreEntry(len(p.omitted)-i)) // packChunks kept room for it
		}
		out = append(out, e)
		p.used += cost
	}
	return out
}

// frame is the pack without chunks, citations or omissions.
func (p *packer) frame(budget, usedTokens int) value.Value {
	return p.pack(budget, usedTokens, nil, nil, nil)
}

func (p *packer) pack(budget, usedTokens int, chunks, cites, omits []value.Value) value.Value {
	fields := []value.Field{
		{Key: "query", Value: value.StringValue(p.query)},
		{Key: "budget", Value: value.LongValue(int64(budget))},
		{Key: "used_tokens", Value: value.LongValue(int64(usedTokens))},
		{Key: "chunks", Value: value.ArrayValue(chunks)},
		{Key: "citations", Value: value.ArrayValue(cites)},
		{Key: "omitted", Value: value.ArrayValue(omits)},
	}
	if p.note != "" {
		fields = append(fields, value.Field{Key: "note", Value: value.StringValue(p.note)})
	}
	return value.ObjectValue(append(fields, p.extra...))
}

// finish builds the pack. used_tokens is the estimate of the whole pack
// as printed, itself included.
func (p *packer) finish(budget int) value.Value {
	var chunks, cites []value.Value
	for i, ch := range p.taken {
		chunks = append(chunks, chunkEntry(i+1, ch))
		cites = append(cites, citation(i+1, ch))
	}
	omits := p.listOmitted()
	n := utf8.RuneCount(value.AppendJSON(nil, p.pack(budget, 0, chunks, cites, omits))) - 1 // without the 0
	used := 0
	for range 3 { // the digits of used_tokens count too
		used = (n + len(strconv.Itoa(used)) + 3) / 4
	}
	return p.pack(budget, used, chunks, cites, omits)
}
