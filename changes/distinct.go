package changes

import (
	"context"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// DefaultDistinctBytes bounds the values a distinct returns (their
// canonical JSON), as MongoDB bounds its reply to 16 MiB.
const DefaultDistinctBytes = 16 << 20

// DistinctOptions configures Distinct. The zero value reads the current
// documents, unredacted, up to DefaultDistinctBytes.
type DistinctOptions struct {
	// At is a revision spec (lsn, snapshot, change id or time): the
	// distinct values of the documents as they were then. "" reads now.
	At string
	// Redact rewrites each document before the filter sees it (as
	// store.Query.Redact): the MCP server's redaction.
	Redact func(value.Value) value.Value
	// MaxBytes bounds the result's size; 0 means DefaultDistinctBytes.
	MaxBytes int64
}

// Distinct returns the distinct values of field among the documents of
// coll that filter matches (an empty filter matches all), with MongoDB's
// distinct semantics:
//
//   - The filter applies to whole documents, before values are taken (a
//     document whose array has one matching element gives all of its
//     elements).
//   - field is a dotted path. Arrays met on the way are traversed (a
//     numeric component indexes the array instead); an array at the end
//     of the path gives its elements, one level only (a nested array is
//     one value).
//   - A missing path gives nothing; null gives null; {} and [[]] are
//     values like any other.
//   - Values are distinct by BSON equality: the long 1, the double 1.0
//     and the decimal 1 are one value (the first one met, in _id order,
//     is returned); strings compare by their bytes.
//
// The values are returned in BSON order (MongoDB leaves the order
// unspecified). A missing collection is a NotFound error with a
// did-you-mean.
func Distinct(ctx context.Context, db *store.DB, coll, field string, filter value.Value, opts *DistinctOptions) ([]value.Value, error) {
	if opts == nil {
		opts = &DistinctOptions{}
	}
	if err := checkDistinctField(field); err != nil {
		return nil, err
	}
	f, err := compileFilter(filter)
	if err != nil {
		return nil, err
	}
	var out []value.Value
	err = db.View(func(tx *store.Tx) error {
		q := store.Query{Filter: f, Redact: opts.Redact}
		src, err := distinctSource(ctx, tx, coll, opts.At, q)
		if err != nil {
			return err
		}
		defer src.Close()
		out, err = DistinctValues(src, field, opts.MaxBytes)
		return err
	})
	return out, err
}

// distinctSource returns the documents q selects in coll, now or at a
// revision.
func distinctSource(ctx context.Context, tx *store.Tx, coll, at string, q store.Query) (agg.Source, error) {
	if at != "" {
		rev, err := ResolveRevision(tx, at)
		if err != nil {
			return nil, err
		}
		return FindAt(ctx, tx, coll, rev, q)
	}
	c, err := tx.Collection(coll)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, q), nil
}

// checkDistinctField refuses a field path MongoDB refuses: empty, with an
// empty component, a NUL byte, or starting with '$'.
func checkDistinctField(field string) error {
	bad := field == "" || strings.HasPrefix(field, "$") || strings.ContainsRune(field, 0)
	for _, p := range strings.Split(field, ".") {
		bad = bad || p == ""
	}
	if bad {
		return errs.Errorf(errs.Invalid, "invalid distinct field %q", field).
			WithHint("give a field name or dotted path such as `tags` or `address.city`, without a leading `$`")
	}
	return nil
}

// DistinctValues reads src to its end and returns the distinct values of
// field in its documents, as Distinct does (src is the documents a filter
// matched). maxBytes bounds the result (0: DefaultDistinctBytes); past it
// the error says so.
func DistinctValues(src agg.Source, field string, maxBytes int64) ([]value.Value, error) {
	if err := checkDistinctField(field); err != nil {
		return nil, err
	}
	if maxBytes <= 0 {
		maxBytes = DefaultDistinctBytes
	}
	d := distinctSet{seen: map[string]value.Value{}, max: maxBytes}
	path := value.ParsePath(field)
	for src.Next() {
		d.walk(src.Doc(), path.Parts, path.Index)
		if d.err != nil {
			return nil, d.err
		}
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	return d.sorted(), nil
}

// distinctSet collects values by their order-preserving key, which is the
// same for BSON-equal values.
type distinctSet struct {
	seen  map[string]value.Value
	bytes int64
	max   int64
	err   error
}

// walk adds the values at path (parts, with the array index of each) in v.
func (d *distinctSet) walk(v value.Value, parts []string, index []int) {
	if len(parts) == 0 {
		if v.Kind() == value.Array {
			for _, e := range v.Array() {
				d.add(e)
			}
			return
		}
		d.add(v)
		return
	}
	switch v.Kind() {
	case value.Object:
		if next := v.Get(parts[0]); !next.IsMissing() {
			d.walk(next, parts[1:], index[1:])
		}
	case value.Array:
		elems := v.Array()
		if index[0] >= 0 {
			if index[0] < len(elems) {
				d.walk(elems[index[0]], parts[1:], index[1:])
			}
			return
		}
		for _, e := range elems {
			if e.Kind() == value.Object {
				d.walk(e, parts, index)
			}
		}
	}
}

func (d *distinctSet) add(v value.Value) {
	if v.IsMissing() || d.err != nil {
		return
	}
	k := string(value.AppendKey(nil, v))
	if _, ok := d.seen[k]; ok {
		return
	}
	d.seen[k] = v
	if d.bytes += int64(len(value.AppendJSON(nil, v))); d.bytes > d.max {
		d.err = errs.Errorf(errs.Invalid, "distinct result is larger than %d bytes", d.max).
			WithHint("narrow it with a filter, or group with `omgdb aggregate` ([{\"$group\":{\"_id\":\"$<field>\"}}]) and page through the groups")
	}
}

// sorted returns the values in BSON order: the order of their keys.
func (d *distinctSet) sorted() []value.Value {
	keys := make([]string, 0, len(d.seen))
	for k := range d.seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]value.Value, len(keys))
	for i, k := range keys {
		out[i] = d.seen[k]
	}
	return out
}
