package changes

import (
	"bytes"
	"math"
	"strconv"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/query/value/jsonscan"
)

// rawUpdate runs the simplest updates on a document's canonical JSON
// without decoding it: $set of scalars and $inc by numbers, on top-level
// fields. Planning an update of many documents otherwise parses each whole,
// runs the update on the value tree and encodes it again. It produces the
// bytes that route produces (TestRawUpdate_EqualsApply compares them on
// random documents and updates), and declines (ok false) anything else:
// another operator, a dotted or $ path, _id, a non-scalar or double $set
// value, a $inc of a value that is not a finite number, an overflow, a key
// it would have to unescape, or more than one new field (whose order the
// full update decides).
//
// It is our own rather than tidwall/sjson's SetRawBytes (with gjson to read
// a $inc's current value): sjson makes a pass and a new document per field
// and reads keys as paths whose characters (. * ? | # @ …) need escaping.
// Measured on a 330-byte document with {"$inc":{"score":1},"$set":{"flag":true}}:
// 0.60-0.66 µs and 1 allocation here, 1.56-1.79 µs and 9 allocations with
// sjson (go test -bench, 3 runs each), and planning an update runs this
// on every matched document.
type rawUpdate struct {
	fields []rawField
}

type rawField struct {
	key    string
	set    []byte  // $set: the value's canonical JSON
	inc    int64   // $inc by a long (set is nil)
	incF   float64 // $inc by a double (set is nil, double is set)
	double bool
}

// compileRawUpdate returns the raw form of an update, or nil when it has
// none.
func compileRawUpdate(update value.Value) *rawUpdate {
	if update.Kind() != value.Object || update.Len() == 0 {
		return nil
	}
	ru := &rawUpdate{}
	seen := map[string]bool{}
	for _, op := range update.Fields() {
		if op.Value.Kind() != value.Object || op.Value.Len() == 0 {
			return nil
		}
		for _, f := range op.Value.Fields() {
			k := f.Key
			if k == "" || k == "_id" || k[0] == '$' || seen[k] || !plainKey(k) {
				return nil
			}
			seen[k] = true
			switch op.Key {
			case "$set":
				switch f.Value.Kind() {
				case value.Null, value.Bool, value.Long, value.String:
				default:
					return nil
				}
				ru.fields = append(ru.fields, rawField{key: k, set: value.AppendJSON(nil, f.Value)})
			case "$inc":
				switch f.Value.Kind() {
				case value.Long:
					ru.fields = append(ru.fields, rawField{key: k, inc: f.Value.Long()})
				case value.Double:
					ru.fields = append(ru.fields, rawField{key: k, incF: f.Value.Float(), double: true})
				default:
					return nil
				}
			default:
				return nil
			}
		}
	}
	return ru
}

// plainKey reports whether a key is written as it is in canonical JSON
// (no escape) and is no path.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c == '"' || c == '\\' || c == '.' || c >= 0x7f {
			return false
		}
	}
	return true
}

// apply returns the updated document's canonical JSON and whether it
// differs from js, or ok false when it declines. It may run on several
// goroutines at once.
func (ru *rawUpdate) apply(js []byte) (out []byte, changed, ok bool) {
	var seen [8]bool
	if len(ru.fields) > len(seen) {
		return nil, false, false
	}
	if len(js) < 2 || js[0] != '{' || js[len(js)-1] != '}' {
		return nil, false, false
	}
	out = make([]byte, 0, len(js)+32)
	out = append(out, '{')
	i := 1
	first := true
	for i < len(js)-1 {
		if js[i] == ',' {
			i++
		}
		if js[i] != '"' {
			return nil, false, false
		}
		ke, kf := jsonscan.String(js, i+1)
		if ke < 0 || js[ke] != ':' || kf&jsonscan.Escaped != 0 {
			return nil, false, false
		}
		key := js[i+1 : ke-1]
		vs := ke + 1
		ve, ok := skipValue(js, vs)
		if !ok {
			return nil, false, false
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, js[i:vs]...)
		fi := ru.field(key)
		var f *rawField
		if fi >= 0 {
			f = &ru.fields[fi]
			if seen[fi] {
				return nil, false, false // a repeated key
			}
			seen[fi] = true
		}
		switch {
		case f == nil:
			out = append(out, js[vs:ve]...)
		case f.set != nil:
			out = append(out, f.set...)
		default:
			if out, ok = f.appendInc(out, js[vs:ve]); !ok {
				return nil, false, false
			}
		}
		i = ve
	}
	if i != len(js)-1 {
		return nil, false, false
	}
	added := 0
	for j := range ru.fields {
		f := &ru.fields[j]
		if seen[j] {
			continue
		}
		if added++; added > 1 {
			return nil, false, false
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(append(append(out, '"'), f.key...), '"', ':')
		switch {
		case f.set != nil:
			out = append(out, f.set...)
		case f.double:
			out = value.AppendJSON(out, value.DoubleValue(f.incF))
		default:
			out = strconv.AppendInt(out, f.inc, 10)
		}
	}
	out = append(out, '}')
	return out, !bytes.Equal(out, js), true
}

// field returns the index of key's field, or -1.
func (ru *rawUpdate) field(key []byte) int {
	for i := range ru.fields {
		if ru.fields[i].key == string(key) {
			return i
		}
	}
	return -1
}

// appendInc appends the sum of a $inc field's current value cur (a long
// or a double in canonical JSON) and its increment, as the update computes
// it: long with long gives a long (declined on overflow), anything with a
// double gives a double. cur is read as the parser reads a number
// (jsonscan), and anything else, or a number it would refuse, is declined.
func (f *rawField) appendInc(out, cur []byte) ([]byte, bool) {
	if len(cur) == 0 || cur[0] != '-' && cur[0]-'0' > 9 {
		return nil, false // not a number
	}
	end, float, err := jsonscan.Number(cur, 0)
	if err != nil || end != len(cur) {
		return nil, false
	}
	if !float {
		n, ok := jsonscan.ParseInt(cur)
		if !ok {
			return nil, false
		}
		if f.double {
			return value.AppendJSON(out, value.DoubleValue(float64(n)+f.incF)), true
		}
		sum := n + f.inc
		if (f.inc > 0 && sum < n) || (f.inc < 0 && sum > n) {
			return nil, false
		}
		return strconv.AppendInt(out, sum, 10), true
	}
	x, ok := jsonscan.ParseFloat(cur)
	if !ok {
		return nil, false
	}
	inc := f.incF
	if !f.double {
		inc = float64(f.inc)
	}
	return value.AppendJSON(out, value.DoubleValue(x+inc)), true
}

// skipValue returns the end of the compact JSON value at i.
func skipValue(js []byte, i int) (int, bool) {
	j := jsonscan.SkipValue(js, i, math.MaxInt)
	return j, j >= 0
}
