package value

import (
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// SortSpec is a sort specification with keys computed once per document,
// for $sort, $sortArray and $top/$bottom. Keys follow the filter
// language's sort (query.Sort): an array sorts by its smallest element
// ascending and its largest descending, a missing field as null, an empty
// array below null.
type SortSpec struct {
	paths []Path
	desc  []bool
}

// CompileSortSpec compiles a sort document; where names the stage or
// operator for messages. Unlike CompileSort, an empty spec is an error.
func CompileSortSpec(where string, spec Value) (*SortSpec, error) {
	if spec.Kind() != Object {
		return nil, errs.Errorf(errs.Invalid, "%s: the sort specification must be an object, found %s", where, spec.TypeName())
	}
	if spec.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "%s: the sort specification must have at least one sort key", where)
	}
	s := &SortSpec{}
	for _, f := range spec.Fields() {
		desc, err := SortDirection(f.Key, f.Value)
		if err != nil {
			return nil, err
		}
		path := f.Key
		if IsTextScoreMeta(f.Value) {
			path = TextScoreField
		} else if err := CheckSortPath(f.Key); err != nil {
			return nil, err
		}
		s.paths = append(s.paths, ParsePath(path))
		s.desc = append(s.desc, desc)
	}
	return s, nil
}

// Keys computes the sort keys of doc.
func (s *SortSpec) Keys(doc Value) []SortVal {
	keys := make([]SortVal, len(s.paths))
	for i := range s.paths {
		keys[i] = SortKeyOf(doc, &s.paths[i], s.desc[i])
	}
	return keys
}

// CompareKeys orders two documents by their keys, direction applied.
func (s *SortSpec) CompareKeys(a, b []SortVal) int {
	for i, desc := range s.desc {
		c := CompareSortVals(a[i], b[i])
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// AppendKey appends an encoding of doc's place under the sort, ties
// broken by _id: for any documents a and b, bytes.Compare of their keys
// has the sign of CompareKeys(Keys(a), Keys(b)), or of Compare of their
// _ids when that is 0 (the order $sort gives).
func (s *SortSpec) AppendKey(dst []byte, doc Value) []byte {
	return AppendKey(s.AppendOrderKey(dst, doc), doc.Get("_id"))
}

// AppendOrderKey is AppendKey without the tie-break: bytes.Compare of two
// documents' keys has the sign of CompareKeys(Keys(a), Keys(b)), and is 0
// for documents that tie ($setWindowFields keeps their input order). No
// key is a proper prefix of another's, so a key may be followed by more.
func (s *SortSpec) AppendOrderKey(dst []byte, doc Value) []byte {
	for i := range s.paths {
		dst = AppendSortKey(dst, SortKeyOf(doc, &s.paths[i], s.desc[i]), s.desc[i])
	}
	return dst
}

// TextScoreField is the field a $text query's stream adds to each
// document for {"$meta":"textScore"} to read (query.TextScoreField): it
// starts with '$', so no stored document can carry it.
const TextScoreField = "$textScore"

// IsTextScoreMeta reports whether v is {"$meta":"textScore"}, which
// sorts by the textScore, highest first.
func IsTextScoreMeta(v Value) bool {
	return v.kind == Object && len(v.fields) == 1 && v.fields[0].Key == "$meta" &&
		v.fields[0].Value.kind == String && v.fields[0].Value.str == "textScore"
}

// SortDirection reads the direction of the sort key named key: 1 is
// ascending, -1 descending (long or double); anything else is an error.
func SortDirection(key string, v Value) (desc bool, err error) {
	switch {
	case IsInteger(v, 1):
		return false, nil
	case IsInteger(v, -1):
		return true, nil
	case IsTextScoreMeta(v):
		return true, nil
	case v.kind == Object && len(v.fields) > 0 && v.fields[0].Key == "$meta":
		return false, errs.Errorf(errs.Invalid, "invalid sort: unsupported $meta sort key %s for `%s`: omgdb knows only {\"$meta\":\"textScore\"}", v, key).
			WithHint(`sort by {"%s":{"$meta":"textScore"}} with a $text query`, key)
	}
	return false, errs.Errorf(errs.Invalid, "invalid sort: $sort key ordering must be 1 (for ascending) or -1 (for descending), got %s for `%s`", v, key).
		WithHint(`write {"%s":1} or {"%s":-1}`, key, key)
}

// CheckSortPath checks the path of a sort key: not empty, no empty
// component, no component that starts with '$'.
func CheckSortPath(path string) error {
	if path == "" {
		return errs.Errorf(errs.Invalid, "invalid sort: the field path is empty")
	}
	for _, p := range strings.Split(path, ".") {
		if p == "" {
			return errs.Errorf(errs.Invalid, "invalid sort: field path `%s` has an empty component", path)
		}
		if strings.HasPrefix(p, "$") {
			return errs.Errorf(errs.Invalid, "invalid sort: field path `%s`: field names may not start with '$'", path)
		}
	}
	return nil
}

// SortVal is a document's sort key for one field: a value, or "undefined"
// (an empty array), which sorts below null.
type SortVal struct {
	v     Value
	undef bool
}

// CompareSortVals orders two sort keys ascending: minKey, then
// undefined, then as Compare orders the other values.
func CompareSortVals(a, b SortVal) int {
	switch {
	case a.undef && b.undef:
		return 0
	case a.undef:
		return cmpInt(0, undefRank(b))
	case b.undef:
		return cmpInt(undefRank(a), 0)
	}
	return Compare(a.v, b.v)
}

// undefRank places a value against undefined: below it for minKey,
// above it for everything else.
func undefRank(v SortVal) int {
	if v.v.kind == MinKey {
		return -1
	}
	return 1
}

// sortAcc keeps the smallest (ascending) or largest (descending) of the
// values a document has at a path.
type sortAcc struct {
	best SortVal
	seen bool
	desc bool
}

func (a *sortAcc) add(v SortVal) {
	if a.seen {
		c := CompareSortVals(v, a.best)
		if (a.desc && c <= 0) || (!a.desc && c >= 0) {
			return
		}
	}
	a.best, a.seen = v, true
}

// SortKeyOf returns doc's sort key at path. The values are those an index
// on the path would hold (multikey): arrays expand, one level, into their
// elements; a missing field, or a scalar met before the path ends, is
// null; an empty array at the end of the path is undefined.
func SortKeyOf(doc Value, fp *Path, desc bool) SortVal {
	acc := sortAcc{desc: desc}
	acc.walk(doc, fp.Parts, fp.Index)
	return acc.best
}

func (a *sortAcc) walk(v Value, parts []string, index []int) {
	if len(parts) == 0 {
		a.leaf(v)
		return
	}
	switch v.kind {
	case Object:
		a.walk(v.Get(parts[0]), parts[1:], index[1:])
	case Array:
		if index[0] >= 0 {
			a.walk(v.Index(index[0]), parts[1:], index[1:])
			return
		}
		if len(v.arr) == 0 {
			a.add(SortVal{v: NullValue()})
		}
		for _, e := range v.arr {
			if e.kind == Object {
				a.walk(e, parts, index)
			} else {
				a.add(SortVal{v: NullValue()})
			}
		}
	default:
		a.add(SortVal{v: NullValue()})
	}
}

func (a *sortAcc) leaf(v Value) {
	if v.kind != Array {
		a.add(SortVal{v: v})
		return
	}
	if len(v.arr) == 0 {
		a.add(SortVal{undef: true})
	}
	for _, e := range v.arr {
		a.add(SortVal{v: e})
	}
}

// Len returns the number of keys of the specification.
func (s *SortSpec) Len() int { return len(s.paths) }

// Key returns the dotted path and the direction of the i-th key.
func (s *SortSpec) Key(i int) (path string, desc bool) { return s.paths[i].Dotted, s.desc[i] }

// keyUndefined is the key byte of an undefined sort key: below null and
// every other value but MinKey (see the type bytes in keys.go). Only sort
// keys use it; index keys never hold it.
const keyUndefined = 0x08

// AppendSortKey appends an order-preserving encoding of a sort key: for
// any a and b, bytes.Compare of their encodings has the sign of
// CompareSortVals(a, b), reversed when desc. Encodings are self-delimiting
// (as AppendKey's), so the keys of a compound sort can be concatenated.
func AppendSortKey(dst []byte, k SortVal, desc bool) []byte {
	start := len(dst)
	if k.undef {
		dst = append(dst, keyUndefined)
	} else {
		dst = AppendKey(dst, k.v)
	}
	if desc {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}
