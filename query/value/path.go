package value

import "strings"

// Path is a parsed dotted path such as "items.0.sku".
type Path struct {
	Dotted string   // the path as written
	Parts  []string // its components, split at '.'
	Index  []int    // the array index each part names, or -1 when it is not a canonical non-negative integer
}

// ParsePath splits a dotted path into its components and notes which
// ones could name an array position.
func ParsePath(dotted string) Path {
	parts := strings.Split(dotted, ".")
	index := make([]int, len(parts))
	for i, p := range parts {
		index[i] = arrayIndex(p)
	}
	return Path{Dotted: dotted, Parts: parts, Index: index}
}

// arrayIndex returns the array position a path component names ("0", "12";
// not "01" or "-1"), or -1.
func arrayIndex(s string) int {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// SetPath returns object v with the value at path (through objects)
// replaced by val.
func SetPath(v Value, path []string, val Value) Value {
	if len(path) == 1 {
		return v.With(path[0], val)
	}
	return v.With(path[0], SetPath(v.Get(path[0]), path[1:], val))
}

// ObjectPath is the value at parts through objects only: missing when
// something other than an object is met on the way.
func (v Value) ObjectPath(parts []string) Value {
	for _, p := range parts {
		if v.Kind() != Object {
			return Value{}
		}
		v = v.Get(p)
	}
	return v
}
