package vector

import (
	"bytes"
	"container/heap"
	"sort"

	"github.com/omgdb/omgdb/query/value"
)

// topK keeps the k best (score, key) pairs: higher scores first, and for
// equal scores the smaller key of _id (that is, _id order), so results are
// deterministic.
type topK struct {
	k     int
	items []topItem // a heap whose root is the worst item kept
}

type topItem struct {
	score float64
	ord   int
	key   []byte // key of _id
	id    []byte // canonical JSON of _id
}

func newTopK(k int) *topK { return &topK{k: k} }

// better reports whether a ranks before b.
func better(a, b *topItem) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return bytes.Compare(a.key, b.key) < 0
}

func (t *topK) Len() int           { return len(t.items) }
func (t *topK) Less(i, j int) bool { return better(&t.items[j], &t.items[i]) }
func (t *topK) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topK) Push(x any)         { t.items = append(t.items, x.(topItem)) }
func (t *topK) Pop() any {
	x := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return x
}

// admits reports whether a score could enter: a quick test before push.
func (t *topK) admits(score float64) bool {
	return len(t.items) < t.k || score >= t.items[0].score
}

// push offers an item; key and id must stay valid while t is used.
func (t *topK) push(score float64, ord int, key, id []byte) {
	it := topItem{score: score, ord: ord, key: key, id: id}
	if len(t.items) < t.k {
		heap.Push(t, it)
		return
	}
	if better(&it, &t.items[0]) {
		t.items[0] = it
		heap.Fix(t, 0)
	}
}

// add offers the key and _id JSON of a document; key is copied.
func (t *topK) add(score float64, key, rec []byte) {
	if t.admits(score) {
		t.push(score, 0, append([]byte(nil), key...), rec)
	}
}

// sorted returns the items kept, best first.
func (t *topK) sorted() []topItem {
	out := append([]topItem(nil), t.items...)
	sort.Slice(out, func(i, j int) bool { return better(&out[i], &out[j]) })
	return out
}

// hits returns the kept items as hits, best first, keeping those whose
// score passes keep. Scores are float32 dot products, rounded for print.
func (t *topK) hits(keep func(float64) bool) []Hit {
	var hits []Hit
	for _, it := range t.sorted() {
		s := roundScore(float32(it.score))
		if !keep(s) {
			continue
		}
		hits = append(hits, Hit{ID: idFromJSON(it.id), Score: s, key: it.key})
	}
	return hits
}

// idFromJSON parses the canonical JSON of an _id.
func idFromJSON(js []byte) value.Value {
	v, _ := value.Parse(js)
	return v
}
