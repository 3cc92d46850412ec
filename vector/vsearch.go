package vector

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/viterin/vek/vek32"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// DefaultK is the number of hits a search returns by default.
const DefaultK = 10

// MaxK bounds the number of hits of one search.
const MaxK = 10000

// SearchOptions configures VectorSearch, TextSearch and HybridSearch. The
// zero value returns the DefaultK best hits of the whole collection.
type SearchOptions struct {
	K      int           // hits to return; DefaultK when 0
	Filter *query.Filter // only documents matching it are ranked; nil for all
	// MinScore drops hits scoring below it. When unset, vector hits must
	// score above 0 (share some feature with the query) and text hits
	// must match.
	MinScore  *float64
	Index     string // the vector index to use; by default the first (by name) on the field
	TextIndex string // the search index to use; by default the collection's only one
	Highlight bool   // TextSearch: mark the matched words in fragments of each hit's fields
	Dim       int    // dimension for on-the-fly embedding without an index; DefaultDim when 0
}

func (o *SearchOptions) k() int {
	if o == nil || o.K <= 0 {
		return DefaultK
	}
	return min(o.K, MaxK)
}

// Hit is one search result.
type Hit struct {
	ID    value.Value // the document's _id
	Score float64
	Doc   value.Value // the document
	// Highlights maps each indexed field with a match to fragments of its
	// text with the matched words in <mark>…</mark> (TextSearch with
	// Highlight).
	Highlights value.Value
	key        []byte // the key of _id, for tie-breaks and lookups
}

// Result is the answer of a search.
type Result struct {
	Hits  []Hit
	Index string // the index used; empty when embedded on the fly
	Model string // the embedding model, for vector searches
	// OnTheFly is set when no usable vector index exists and documents
	// were embedded during the search; Note says why.
	OnTheFly bool
	Note     string
	Scanned  int // candidates scored
}

// VectorSearch ranks the documents of c by exact cosine similarity between
// the embedding of their field and that of text. Ties are broken by _id
// order. A filter is applied before ranking, so the result is exact. The
// hits carry their documents.
func VectorSearch(ctx context.Context, c *store.Collection, field, text string, opts *SearchOptions) (*Result, error) {
	if opts == nil {
		opts = &SearchOptions{}
	}
	if err := checkFieldPath(field); err != nil {
		return nil, err
	}
	ix, vi, note, err := findVectorIndex(c, field, opts)
	if err != nil {
		return nil, err
	}
	var res *Result
	if ix == nil {
		res, err = embedScan(ctx, c, field, text, opts)
		res.Note = note
	} else {
		res, err = indexScan(ctx, c, ix, vi, text, opts)
	}
	if err != nil {
		return nil, err
	}
	return res, fillDocs(c, res.Hits)
}

// findVectorIndex returns the vector index on field, or nil with a note
// saying why there is none to use.
func findVectorIndex(c *store.Collection, field string, opts *SearchOptions) (*store.Index, *vecIndex, string, error) {
	for _, def := range c.Indexes() {
		if def.Kind != KindVector || (opts.Index != "" && def.Name != opts.Index) {
			continue
		}
		var spec VectorSpec
		json.Unmarshal(def.Spec, &spec)
		if spec.Field != field {
			continue
		}
		ix, err := c.Index(def.Name)
		if err != nil {
			return nil, nil, "", err
		}
		vi, err := openVec(ix)
		if err != nil {
			return nil, nil, "", err
		}
		if !vi.current(ix.Vectors()) {
			return nil, nil, "vector index " + def.Name + " was built by another embedder; embedding on the fly (run `omgdb reindex` to rebuild it)", nil
		}
		if opts.Dim == 0 {
			opts.Dim = spec.Dim
		}
		return ix, vi, "", nil
	}
	if opts.Index != "" {
		_, err := c.Index(opts.Index)
		if err == nil {
			err = errs.Errorf(errs.Invalid, "index %s is not a vector index on %s", opts.Index, field)
		}
		return nil, nil, "", err
	}
	return nil, nil, "no vector index on " + c.Name() + "." + field + "; embedding on the fly (create one with `omgdb create-vector-index`)", nil
}

// indexScan scores the stored vectors.
func indexScan(ctx context.Context, c *store.Collection, ix *store.Index, vi *vecIndex, text string, opts *SearchOptions) (*Result, error) {
	q := vi.emb.Embed(text)
	res := &Result{Index: ix.Def.Name, Model: vi.spec.Model}
	top := newTopK(opts.k())
	vs := ix.Vectors()
	if opts.Filter != nil {
		// Rank only the matching documents, looking up their vectors.
		src := c.Find(ctx, store.Query{Filter: opts.Filter})
		defer src.Close()
		buf := make([]float32, vi.spec.Dim)
		for src.Next() {
			key := docKey(src.Doc())
			rec := vs.Get(key)
			if rec == nil {
				continue
			}
			res.Scanned++
			top.add(float64(dotRecord(q, rec, buf)), key, rec[4*len(buf):])
		}
		if err := src.Err(); err != nil {
			return nil, err
		}
	} else if m := loadMatrix(c, ix, vi); m != nil {
		res.Scanned = len(m.keys)
		if err := m.scan(ctx, q, top); err != nil {
			return nil, err
		}
	} else if isZero(q) {
		res.Scanned = streamScan(vs, q, top)
	} else {
		res.Scanned = quantScan(vs, q, top)
	}
	res.Hits = top.hits(minScore(opts, 0))
	return res, nil
}

// dotRecord returns the dot product of q with the vector of a stored
// record, decoding it into buf.
func dotRecord(q []float32, rec []byte, buf []float32) float32 {
	appendFloats(buf[:0], rec[:4*len(buf)])
	return vek32.Dot(q, buf)
}

// littleEndian reports whether the machine stores float32 as the index
// does, so that vectors can be copied instead of decoded.
var littleEndian = func() bool {
	x := uint32(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// appendFloats appends the little-endian float32s of b to dst. On a
// little-endian machine it copies the bytes (the destination is aligned;
// the source, in bbolt's pages, may not be).
func appendFloats(dst []float32, b []byte) []float32 {
	n := len(b) / 4
	if !littleEndian {
		for i := 0; i < n; i++ {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return dst
	}
	dst = slices.Grow(dst, n)
	at := len(dst)
	dst = dst[:at+n]
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[at])), 4*n), b)
	return dst
}

// embedScan embeds the field of every (matching) document.
func embedScan(ctx context.Context, c *store.Collection, field, text string, opts *SearchOptions) (*Result, error) {
	emb := NewEmbedder(opts.Dim)
	q := emb.Embed(text)
	res := &Result{Model: emb.ModelID(), OnTheFly: true}
	top := newTopK(opts.k())
	src := c.Find(ctx, store.Query{Filter: opts.Filter})
	defer src.Close()
	v := make([]float32, 0, emb.dim())
	for src.Next() {
		doc := src.Doc()
		t, ok := FieldText(doc, field)
		if !ok {
			continue
		}
		res.Scanned++
		v = emb.AppendEmbed(v[:0], t)
		top.add(float64(vek32.Dot(q, v)), docKey(doc), value.AppendJSON(nil, doc.Get("_id")))
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	res.Hits = top.hits(minScore(opts, 0))
	return res, nil
}

func minScore(opts *SearchOptions, def float64) func(float64) bool {
	if opts.MinScore != nil {
		m := *opts.MinScore
		return func(s float64) bool { return s >= m }
	}
	return func(s float64) bool { return s > def }
}

// fillDocs loads the documents of hits.
func fillDocs(c *store.Collection, hits []Hit) error {
	for i := range hits {
		doc, err := c.Get(hits[i].ID)
		if err != nil {
			return err
		}
		hits[i].Doc = doc
	}
	return nil
}

// roundScore rounds a float32 score to the shortest decimal that reads
// back as the same float32, so printed scores do not show float32 noise.
func roundScore(s float32) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(s), 'g', -1, 32), 64)
	return f
}

// matrix is a vector index loaded into contiguous memory for scanning.
type matrix struct {
	dim  int
	vecs []float32 // len(keys) × dim
	keys [][]byte  // keys of _id, ascending
	ids  [][]byte  // canonical JSON of each _id
}

// matrixCache keeps the last matrices loaded by read transactions, keyed
// by the store file (its path and identity, so that a store opened anew for
// each call, as the MCP server does, still hits), the index and the
// journal position, so that repeated searches in one process scan without
// reloading. Any committed write moves the journal position, and a
// replaced file is another file, so an entry is never stale.
var matrixCache struct {
	sync.Mutex
	entries []cachedMatrix // most recent last; at most maxCachedMatrices
}

const maxCachedMatrices = 2

type cachedMatrix struct {
	file  os.FileInfo // the store file: a replaced file is another store
	path  string
	coll  string
	index string
	lsn   uint64
	spec  string
	m     *matrix
}

// loadMatrix returns the cached matrix of an index, or nil the first time
// an index is searched at a journal position: one search (a CLI call)
// streams over the stored int8 copies (quant.go), which is faster than
// copying the float32 vectors; a second one (a server) loads them for the
// parallel scan.
func loadMatrix(c *store.Collection, ix *store.Index, vi *vecIndex) *matrix {
	tx := c.Tx()
	if tx.Writable() {
		return nil
	}
	fi, err := os.Stat(tx.DB().Path())
	if err != nil {
		return nil
	}
	key := cachedMatrix{file: fi, path: tx.DB().Path(), coll: c.Name(), index: ix.Def.Name, lsn: tx.LastLSN(), spec: string(ix.Def.Spec)}
	matrixCache.Lock()
	defer matrixCache.Unlock()
	for i, e := range matrixCache.entries {
		if e.path == key.path && os.SameFile(e.file, key.file) && e.coll == key.coll && e.index == key.index && e.lsn == key.lsn && e.spec == key.spec {
			if e.m == nil {
				e.m = readMatrix(ix.Vectors(), vi.spec.Dim)
				matrixCache.entries[i] = e
			}
			return e.m
		}
	}
	if len(matrixCache.entries) >= maxCachedMatrices {
		matrixCache.entries = matrixCache.entries[1:]
	}
	matrixCache.entries = append(matrixCache.entries, key)
	return key.m
}

// readMatrix copies the stored vectors into a matrix.
func readMatrix(vs store.Vectors, dim int) *matrix {
	n := int(vs.Count())
	m := &matrix{dim: dim, vecs: make([]float32, 0, n*dim), keys: make([][]byte, 0, n), ids: make([][]byte, 0, n)}
	arena := make([]byte, 0, n*16)
	for cur := vs.Records(); cur.Next(); {
		v := cur.Record()
		m.vecs = appendFloats(m.vecs, v[:4*dim])
		dk := cur.DocKey()
		start := len(arena)
		arena = append(arena, dk...)
		arena = append(arena, v[4*dim:]...)
		m.keys = append(m.keys, arena[start:start+len(dk):start+len(dk)])
		m.ids = append(m.ids, arena[start+len(dk):len(arena):len(arena)])
	}
	return m
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// streamScan scores the stored vectors in place, in key order.
func streamScan(vs store.Vectors, q []float32, top *topK) int {
	n := 0
	buf := make([]float32, len(q))
	for cur := vs.Records(); cur.Next(); {
		v := cur.Record()
		n++
		vec := buf
		if littleEndian && uintptr(unsafe.Pointer(&v[0]))%4 == 0 {
			vec = unsafe.Slice((*float32)(unsafe.Pointer(&v[0])), len(q))
		} else {
			appendFloats(buf[:0], v[:4*len(q)])
		}
		if s := float64(vek32.Dot(q, vec)); top.admits(s) {
			top.add(s, cur.DocKey(), v[4*len(q):])
		}
	}
	return n
}

// scan scores every vector against q, in parallel, into top.
func (m *matrix) scan(ctx context.Context, q []float32, top *topK) error {
	n := len(m.keys)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	tops := make([]*topK, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		tops[w] = newTopK(top.k)
		wg.Add(1)
		go func(t *topK) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				s := vek32.Dot(q, m.vecs[i*m.dim:(i+1)*m.dim])
				if t.admits(float64(s)) {
					t.push(float64(s), i, m.keys[i], m.ids[i])
				}
			}
		}(tops[w])
	}
	wg.Wait()
	for _, t := range tops {
		for _, e := range t.items {
			top.push(e.score, e.ord, e.key, e.id)
		}
	}
	return ctx.Err()
}
