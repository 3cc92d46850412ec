package vector

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Index kinds this package registers with the store.
const (
	KindVector = "vector" // a vector index over one text field
	KindSearch = "search" // a BM25 full-text index over text fields
)

func init() {
	store.RegisterIndexKind(KindVector, vectorKind{})
	store.RegisterIndexKind(KindSearch, searchKind{})
}

// VectorSpec is the Spec of a vector index definition.
type VectorSpec struct {
	Field string `json:"field"` // dotted path of the text field
	Dim   int    `json:"dim"`   // dimensions
	Model string `json:"model"` // model id, such as "hashing-fnv1a-v2-d256"
}

// A vector index keeps its data through store.Vectors: its metadata (the
// model and probe, as JSON padded with spaces), the number of vectors, and
// per document a record, dim little-endian float32s followed by the
// document's _id as canonical JSON and spaces, and its int8 copy
// (quant.go). Every record is padded to a multiple of 4 bytes, and the
// store pads the keys, so that in the file every vector starts 4-byte
// aligned and is scanned in place, without copying.

// probeText is embedded to fingerprint an embedder's behaviour: a changed
// algorithm (or stemmer) changes the probe and so marks the stored vectors
// stale instead of mixing old and new vectors.
const probeText = "The quick brown foxes jumped over the lazy dogs' kennels; omgdb's embedder probe, 42 times."

type vecMeta struct {
	Model string `json:"model"`
	Probe string `json:"probe"`
}

type vectorKind struct{}

// NewVectorIndexDef returns the definition of a vector index on field, of
// dimension dim (DefaultDim when 0), named name (default "vector_<field>").
func NewVectorIndexDef(name, field string, dim int) store.IndexDef {
	if name == "" {
		name = "vector_" + field
	}
	spec, _ := json.Marshal(VectorSpec{Field: field, Dim: dim})
	return store.IndexDef{Name: name, Kind: KindVector, Spec: spec}
}

// Prepare checks a vector index definition and fills in its dimension and
// model.
func (vectorKind) Prepare(def store.IndexDef) (store.IndexDef, error) {
	var spec VectorSpec
	if err := json.Unmarshal(def.Spec, &spec); err != nil {
		return def, errs.Errorf(errs.Invalid, "vector index spec: %v", err)
	}
	if err := checkFieldPath(spec.Field); err != nil {
		return def, err
	}
	if spec.Dim == 0 {
		spec.Dim = DefaultDim
	}
	if spec.Dim < 1 || spec.Dim > MaxDim {
		return def, errs.Errorf(errs.Invalid, "vector dimension %d is out of range", spec.Dim).
			WithHint("use --dim between 1 and %d (default %d)", MaxDim, DefaultDim)
	}
	if spec.Model == "" {
		spec.Model = NewEmbedder(spec.Dim).ModelID()
	}
	emb, err := ParseModelID(spec.Model)
	if err != nil || emb.Dim != spec.Dim {
		return def, errs.Errorf(errs.Invalid, "vector index model %q does not fit dimension %d", spec.Model, spec.Dim).
			WithHint("known models: hashing-fnv1a-v1-d<dim> (OMGDB's baseline) and hashing-fnv1a-v2-d<dim> (the default)")
	}
	def.Spec, _ = json.Marshal(spec)
	return def, nil
}

// CheckFieldPath checks the path of a text field to embed or pack, with
// the message a search on a store file gives.
func CheckFieldPath(field string) error { return checkFieldPath(field) }

func checkFieldPath(field string) error {
	if field == "" || strings.HasPrefix(field, "$") || strings.ContainsRune(field, 0) || strings.Contains(field, "..") {
		return errs.Errorf(errs.Invalid, "invalid field path %q", field).
			WithHint("name a text field such as body or meta.summary")
	}
	return nil
}

// vecIndex is an opened vector index.
type vecIndex struct {
	spec VectorSpec
	emb  *Embedder
	meta []byte // the metadata the vectors must carry to be current
}

var specCache sync.Map // string(Spec) -> *vecIndex

func openVec(ix *store.Index) (*vecIndex, error) {
	if v, ok := specCache.Load(string(ix.Def.Spec)); ok {
		return v.(*vecIndex), nil
	}
	var spec VectorSpec
	if err := json.Unmarshal(ix.Def.Spec, &spec); err != nil {
		return nil, errs.Errorf(errs.IO, "vector index %s: unreadable spec: %v", ix.Def.Name, err)
	}
	emb, err := ParseModelID(spec.Model)
	if err != nil {
		return nil, errs.Errorf(errs.IO, "vector index %s: %v", ix.Def.Name, err).
			WithHint("this omgdb cannot compute its vectors; use the omgdb that created it, or drop and recreate the index")
	}
	meta, _ := json.Marshal(vecMeta{Model: spec.Model, Probe: probe(emb)})
	meta = pad4(meta, ' ')
	vi := &vecIndex{spec: spec, emb: emb, meta: meta}
	specCache.Store(string(ix.Def.Spec), vi)
	return vi, nil
}

// probe fingerprints the behaviour of emb.
func probe(emb *Embedder) string {
	v := emb.Embed(probeText)
	h := uint64(fnvOffset)
	for _, x := range v {
		h = fnv1a(h, string(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))))
	}
	return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, h))
}

// current reports whether the stored vectors were made by this program's
// embedder for the index's model.
func (vi *vecIndex) current(vs store.Vectors) bool {
	return bytes.Equal(vs.Meta(), vi.meta)
}

// vecState is a vector index's state during a write transaction. The
// store buffers the vectors written meanwhile.
type vecState struct {
	n int64 // vectors, as of the transaction
}

func vecStateOf(ix *store.Index) *vecState {
	if st, ok := ix.State.(*vecState); ok {
		return st
	}
	st := &vecState{n: ix.Vectors().Count()}
	ix.State = st
	return st
}

// Update keeps the vector of one document in step with it; the store
// buffers the writes until it flushes the index. Vectors made by another embedder are never mixed
// with new ones: the index is rebuilt from the documents first, then the
// change is applied. Both steps are idempotent, so they hold whether the
// store writes the document before or after its indexes.
func (vectorKind) Update(ix *store.Index, before, after value.Value) error {
	vi, err := openVec(ix)
	if err != nil {
		return err
	}
	vs := ix.Vectors()
	if !vi.current(vs) {
		if err := vi.build(ix, ix.Collection().Scan()); err != nil {
			return err
		}
		ix.State = nil
	}
	st := vecStateOf(ix)
	if !before.IsMissing() {
		if dk := docKey(before); vs.Get(dk) != nil {
			vs.Delete(dk)
			st.n--
		}
	}
	if !after.IsMissing() {
		if text, ok := FieldText(after, vi.spec.Field); ok {
			dk := docKey(after)
			if vs.Get(dk) == nil {
				st.n++
			}
			rec, q := vi.records(text, after.Get("_id"))
			vs.Put(dk, rec, q)
		}
	}
	return nil
}

// Flush writes the transaction's count of vectors; the store then writes
// the buffered vectors in key order.
func (vectorKind) Flush(ix *store.Index) error {
	st, ok := ix.State.(*vecState)
	if !ok {
		return nil
	}
	ix.State = nil
	return ix.Vectors().SetCount(st.n)
}

// Build computes the vectors of every document.
func (vectorKind) Build(ix *store.Index, docs *store.Cursor) error {
	vi, err := openVec(ix)
	if err != nil {
		return err
	}
	return vi.build(ix, docs)
}

func (vi *vecIndex) build(ix *store.Index, docs *store.Cursor) error {
	vs := ix.Vectors()
	if err := vs.Clear(); err != nil {
		return err
	}
	var n int64
	for docs.Next() {
		doc := docs.Doc()
		if err := docs.Err(); err != nil {
			return err
		}
		if text, ok := FieldText(doc, vi.spec.Field); ok {
			rec, q := vi.records(text, doc.Get("_id"))
			vs.Put(docKey(doc), rec, q)
			n++
		}
	}
	if err := docs.Err(); err != nil {
		return err
	}
	if err := vs.SetMeta(vi.meta); err != nil {
		return err
	}
	return vs.SetCount(n)
}

// records encodes the stored values of a document's vector: the float32
// record and its int8 copy.
func (vi *vecIndex) records(text string, id value.Value) (rec, quant []byte) {
	v := vi.emb.Embed(text)
	rec = make([]byte, 0, 4*len(v)+16)
	for _, x := range v {
		rec = binary.LittleEndian.AppendUint32(rec, math.Float32bits(x))
	}
	return pad4(value.AppendJSON(rec, id), ' '), quantize(v)
}

// pad4 pads b with c to a multiple of 4 bytes.
func pad4(b []byte, c byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, c)
	}
	return b
}

// Check recomputes every vector from the documents and compares.
func (vectorKind) Check(ix *store.Index) []string {
	vi, err := openVec(ix)
	if err != nil {
		return []string{err.Error()}
	}
	vs := ix.Vectors()
	var problems []string
	add := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	if !vi.current(vs) {
		add("vectors were made by another embedder (metadata %s, want %s); run `omgdb reindex`", vs.Meta(), vi.meta)
		return problems
	}
	seen := 0
	cur := ix.Collection().Scan()
	for cur.Next() {
		doc := cur.Doc()
		text, ok := FieldText(doc, vi.spec.Field)
		dk := docKey(doc)
		got, gotQ := vs.Get(dk), vs.Quant(dk)
		var rec, q []byte
		if ok {
			rec, q = vi.records(text, doc.Get("_id"))
		}
		switch {
		case !ok && (got != nil || gotQ != nil):
			add("document %s has no text in %s but has a vector", doc.Get("_id"), vi.spec.Field)
		case ok && (got == nil || gotQ == nil):
			add("document %s has no vector", doc.Get("_id"))
		case ok && !bytes.Equal(got, rec):
			add("vector of document %s differs from its text's embedding", doc.Get("_id"))
		case ok && !bytes.Equal(gotQ, q):
			add("int8 vector of document %s differs from its text's embedding", doc.Get("_id"))
		}
		if got != nil {
			seen++
		}
	}
	total, totalQ := 0, 0
	for c := vs.Quants(); c.Next(); {
		totalQ++
	}
	for c := vs.Records(); c.Next(); {
		total++
	}
	if total != seen || totalQ != seen {
		add("%d vectors and %d int8 vectors belong to no document", total-seen, totalQ-seen)
	}
	if n := vs.Count(); n != int64(total) {
		add("count record says %d vectors, found %d", n, total)
	}
	return problems
}
