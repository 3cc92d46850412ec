package store

import (
	"fmt"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/geo"
	"github.com/omgdb/omgdb/query/value"
)

// A 2dsphere field of a B-tree index ({"loc":"2dsphere"}) holds, instead
// of the field's values, the S2 cells that cover its geometry (package
// geo): one entry per cell, the cell id written as a string of 16
// hexadecimal digits, so that the entries of a cell's descendants are one
// range of keys. A query on the field covers its region with cells and
// scans, for each, the range of its descendants and the points of its
// ancestors (geo.Range); every document fetched is then matched exactly.
//
// As in MongoDB (2dsphere index version 2 and later), a document without
// the field, or with null or an empty array there, has no entry: the
// index serves only queries with a geospatial condition on the field. A
// value that is not geometry is refused ("Can't extract geo keys").

// Geo2DSphere is the IndexField.Type of a 2dsphere field.
const Geo2DSphere = "2dsphere"

// geoKeys adds the encoded cell keys of the geometry at f's path in doc
// to out, and reports whether the document has any.
func (g *keyGen) geoKeys(f *genField, doc value.Value, out *keySet) (bool, error) {
	var vals valueList
	w := walker{f: f, values: &vals, arrayDepth: -1}
	w.fromObject(doc, 0)
	var buf []byte
	for _, v := range vals {
		keys, err := geo.IndexKeys(v)
		if err != nil {
			e := errs.Errorf(errs.Invalid, "Can't extract geo keys from `%s`: %v", f.path, err)
			e.Hint, e.Err = errs.HintOf(err), err
			return false, e
		}
		for _, k := range keys {
			buf = value.AppendKey(buf[:0], value.StringValue(k))
			out.add(buf)
		}
	}
	return len(out.keys) > 0, nil
}

// geoRanges turns cell ranges into value ranges of the index field.
func geoRanges(rs []geo.Range) []vrange {
	if rs == nil {
		return []vrange{bracket(value.StringValue(""))}
	}
	out := make([]vrange, 0, len(rs))
	for _, r := range rs {
		if r.Lo == r.Hi {
			out = append(out, pointRange(value.StringValue(r.Lo)))
			continue
		}
		lo, hi := pointRange(value.StringValue(r.Lo)), pointRange(value.StringValue(r.Hi))
		out = append(out, vrange{lo: lo.lo, hi: hi.hi})
	}
	return out
}

// hasGeo reports whether the spec has a 2dsphere field.
func (s *BTreeSpec) hasGeo() bool {
	for _, f := range s.Fields {
		if f.Type == Geo2DSphere {
			return true
		}
	}
	return false
}

// geoField returns the 2dsphere field on path, or -1.
func (s *BTreeSpec) geoField(path string) int {
	for i, f := range s.Fields {
		if f.Type == Geo2DSphere && f.Path == path {
			return i
		}
	}
	return -1
}

// refusedIndexType explains the index types of MongoDB that omgdb does
// not have, or returns nil for a type it does not know.
func refusedIndexType(path, typ string) error {
	switch typ {
	case "2d", "geoHaystack":
		return errs.Errorf(errs.Usage, "index field `%s`: %q indexes (flat coordinates) are not supported; omgdb has 2dsphere indexes", path, typ).
			WithHint(`index the field as {"%s":"2dsphere"}, and query it with $geoWithin, $geoIntersects or $nearSphere; see omgdb docs differences`, path)
	case "text":
		return errs.Errorf(errs.Usage, "index field `%s`: \"text\" indexes are not supported here", path).
			WithHint("for full-text search use create-search-index")
	case "hashed":
		return errs.Errorf(errs.Usage, "index field `%s`: \"hashed\" indexes are not supported; omgdb has B-tree indexes (1 or -1) and 2dsphere", path).
			WithHint(`index the field as {"%s":1}`, path)
	}
	return nil
}

// checkType refuses what a 2dsphere field cannot be.
func (f IndexField) checkType(s *BTreeSpec) error {
	switch f.Type {
	case "":
		return nil
	case Geo2DSphere:
	default:
		return errs.Errorf(errs.Usage, "index field `%s`: unknown index type %q", f.Path, f.Type)
	}
	switch {
	case f.Desc:
		return errs.Errorf(errs.Usage, "index field `%s`: a 2dsphere field has no direction", f.Path)
	case s.Unique:
		return errs.Errorf(errs.Usage, "index field `%s`: a 2dsphere index cannot be unique", f.Path).
			WithHint("drop --unique, or make a separate unique index on the other fields")
	}
	return nil
}

// geoCond is the condition of a geospatial predicate: the cell ranges of
// its region, for a 2dsphere field. A $near without $maxDistance reads
// the whole index, in cell order.
func geoCond(p query.Predicate) (fieldCond, bool) {
	var rs []geo.Range
	if r := p.GeoRegion(); r != nil {
		rs = r.Cover()
	} else if n := p.GeoNear(); n != nil {
		rs = n.Cover()
	} else {
		return fieldCond{}, false
	}
	return fieldCond{path: p.Path, geo: true, ranges: geoRanges(rs), bounded: true, exists: true}, true
}

// geoUnusable says why an index with a 2dsphere field cannot serve a
// query whose conditions bound its fields as bounded says: it holds no
// entry for documents without the geometry, so it serves only queries
// with a geospatial condition on each of its 2dsphere fields.
func geoUnusable(s *BTreeSpec, bounded []bool) string {
	for i, f := range s.Fields {
		if f.Type == Geo2DSphere && !bounded[i] {
			return "it is a 2dsphere index, and the filter has no $geoWithin, $geoIntersects, $near or $nearSphere on `" + f.Path + "`"
		}
	}
	return ""
}

// geoMask has bit i set when field i is a 2dsphere field.
func (s *BTreeSpec) geoMask() uint64 {
	var m uint64
	for i, f := range s.Fields {
		if f.Type == Geo2DSphere {
			m |= 1 << i
		}
	}
	return m
}

// geoNote is suggest-indexes' note on a geospatial predicate, which only
// a 2dsphere index serves; "" for other operators.
func (c *Collection) geoNote(path, op string) string {
	switch op {
	case "$geoWithin", "$within", "$geoIntersects", "$near", "$nearSphere":
	default:
		return ""
	}
	if name, err := c.geoIndexFor(path); err == nil {
		return fmt.Sprintf("%s on `%s` is served by the 2dsphere index `%s`", op, path, name)
	}
	pattern := `{"` + path + `":"2dsphere"}`
	return fmt.Sprintf("%s on `%s` needs a 2dsphere index, not a B-tree one: omgdb create-index %s %s %s",
		op, path, shellQuote(c.tx.db.path), shellQuote(c.name), shellQuote(pattern))
}
