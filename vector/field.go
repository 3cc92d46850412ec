package vector

import (
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// FieldText returns the text of a dotted field path of doc: a string, or
// the strings reached through arrays (and arrays of objects, as MongoDB's
// multikey paths do) joined by blank lines. ok is false when the path
// reaches no string.
func FieldText(doc value.Value, path string) (text string, ok bool) {
	var parts []string
	collectStrings(doc, strings.Split(path, "."), &parts)
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "\n\n"), true
}

func collectStrings(v value.Value, path []string, out *[]string) {
	if len(path) == 0 {
		switch v.Kind() {
		case value.String:
			*out = append(*out, v.Str())
		case value.Array:
			for _, e := range v.Array() {
				if e.Kind() == value.String {
					*out = append(*out, e.Str())
				}
			}
		}
		return
	}
	switch v.Kind() {
	case value.Object:
		collectStrings(v.Get(path[0]), path[1:], out)
	case value.Array:
		for _, e := range v.Array() {
			if e.Kind() == value.Object {
				collectStrings(e, path, out)
			}
		}
	}
}

// docKey returns the store key of a document's _id.
func docKey(doc value.Value) []byte {
	return value.AppendKey(nil, doc.Get("_id"))
}
