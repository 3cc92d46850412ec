package mcpserver

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/omgdb/omgdb/query/value"
)

// A resource is held to --max-bytes as a whole, since a client reads it
// into the model's context as it comes: a JSON resource loses entries
// from the end of its longest lists (documents, changes, collections,
// fields) and says so in applied_limits and truncated; a page of the
// manual is cut at a line and ends with a marker. A resource that cannot
// be cut to fit is LIMIT_EXCEEDED.

// fitJSON returns data within max bytes of JSON, or false when dropping
// list entries cannot get it there.
func fitJSON(data value.Value, max int) (value.Value, bool) {
	size := func(v value.Value) int { return len(encodeJSON(nil, v)) }
	if size(data) <= max {
		return data, true
	}
	limits := data.Get("applied_limits")
	if limits.Kind() != value.Object {
		limits = obj()
	}
	data = data.With("applied_limits", limits.With("max_bytes", value.LongValue(int64(max))))
	var truncated []value.Field
	for _, path := range listPaths(data) {
		list := getPath(data, path).Array()
		cut := func(n int) value.Value {
			return setPath(data, path, value.ArrayValue(list[:n])).With("truncated",
				value.ObjectValue(append(truncated, value.Field{Key: joinPath(path), Value: value.LongValue(int64(len(list) - n))})))
		}
		// the most entries that fit, if keeping none fits
		if n := sort.Search(len(list)+1, func(n int) bool { return size(cut(n)) > max }) - 1; n >= 0 {
			return cut(n), true
		}
		data = cut(0)
		truncated = data.Get("truncated").Fields()
	}
	return data, false
}

// listPaths returns the paths of the non-empty lists of an object, at its
// top level and one level down, longest list first.
func listPaths(v value.Value) [][]string {
	var paths [][]string
	for _, f := range v.Fields() {
		switch f.Value.Kind() {
		case value.Array:
			if f.Value.Len() > 0 {
				paths = append(paths, []string{f.Key})
			}
		case value.Object:
			for _, g := range f.Value.Fields() {
				if g.Value.Kind() == value.Array && g.Value.Len() > 0 {
					paths = append(paths, []string{f.Key, g.Key})
				}
			}
		}
	}
	sort.SliceStable(paths, func(i, j int) bool { return getPath(v, paths[i]).Len() > getPath(v, paths[j]).Len() })
	return paths
}

func getPath(v value.Value, path []string) value.Value {
	for _, k := range path {
		v = v.Get(k)
	}
	return v
}

func setPath(v value.Value, path []string, x value.Value) value.Value {
	if len(path) == 1 {
		return v.With(path[0], x)
	}
	return v.With(path[0], setPath(v.Get(path[0]), path[1:], x))
}

func joinPath(path []string) string {
	if len(path) == 1 {
		return path[0]
	}
	return path[0] + "." + path[1]
}

// fitText cuts a Markdown page to max bytes at a line boundary and ends it
// with a marker saying so; false when even the marker does not fit.
func fitText(text, topic string, max int) (string, bool) {
	if len(text) <= max {
		return text, true
	}
	marker := fmt.Sprintf("\n\n[truncated: this page is %d bytes, over the %d-byte limit (--max-bytes); `omgdb docs %s` prints it whole]\n",
		len(text), max, topic)
	keep := max - len(marker)
	if keep < 0 {
		return "", false
	}
	head := []byte(text[:keep])
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return string(bytes.ToValidUTF8(head, nil)) + marker, true
}

// tooBig is the error of a resource that cannot fit --max-bytes.
func tooBig(uri string, size, max int, hint string) *toolError {
	return errorf(CodeLimitExceeded, "resource %s is %d bytes, over the %d-byte result limit (--max-bytes)", truncate(uri, 200), size, max).
		withHint("%s", hint).withContext("uri", truncate(uri, 200), "max_bytes", max)
}
