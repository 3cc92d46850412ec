package shell

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// ObjectID is the JavaScript ObjectId: ObjectId('…'), new ObjectId().
type ObjectID struct{ id value.OID }

// ToString returns the hex string, as mongosh's toString.
func (o *ObjectID) ToString() string { return o.id.Hex() }

// ToHexString returns the hex string.
func (o *ObjectID) ToHexString() string { return o.id.Hex() }

// GetTimestamp returns the creation time the id holds.
func (o *ObjectID) GetTimestamp() time.Time { return o.id.Time() }

// Equals reports whether other is the same id.
func (o *ObjectID) Equals(other *ObjectID) bool { return other != nil && o.id == other.id }

// Long is the JavaScript Long (NumberLong): a 64-bit integer kept exact.
type Long struct{ n int64 }

// ToString returns the decimal digits.
func (l *Long) ToString() string { return strconv.FormatInt(l.n, 10) }

// ToNumber returns the value as a JavaScript number (may round).
func (l *Long) ToNumber() float64 { return float64(l.n) }

// Binary is the JavaScript Binary (BinData).
type Binary struct {
	data    []byte
	subtype byte
}

// ToString returns the base64 text.
func (b *Binary) ToString() string { return base64.StdEncoding.EncodeToString(b.data) }

// Base64 returns the base64 text.
func (b *Binary) Base64() string { return b.ToString() }

// Sub_type returns the binData subtype.
func (b *Binary) Sub_type() int { return int(b.subtype) }

// prelude defines mongosh's constructors in JavaScript over the native
// functions, so that each works with and without new.
const prelude = `
function ObjectId(hex) { return __omg.oid(hex); }
function ISODate(s) { return __omg.isodate(s); }
function NumberLong(n) { return __omg.long(n); }
function Long(n) { return __omg.long(n); }
Long.fromString = function (s) { return __omg.long(String(s)); };
Long.fromNumber = function (n) { return __omg.long(n); };
function NumberInt(n) { return Math.trunc(Number(n)); }
function Double(n) { return Number(n); }
function BinData(sub, b64) { return __omg.binary(b64, sub); }
var Binary = { createFromBase64: function (b64, sub) { return __omg.binary(b64, sub === undefined ? 0 : sub); } };
`

func (s *Shell) installTypes() {
	native := s.rt.NewObject()
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = native.Set(name, fn) }
	set("oid", s.newObjectID)
	set("isodate", s.isoDate)
	set("long", s.newLong)
	set("binary", s.newBinary)
	_ = s.rt.Set("__omg", native)
	_, err := s.rt.RunString(prelude)
	if err != nil {
		panic(err) // the prelude is a constant: a failure is a bug
	}
}

func (s *Shell) newObjectID(call goja.FunctionCall) goja.Value {
	a := call.Argument(0)
	if goja.IsUndefined(a) || goja.IsNull(a) {
		return s.rt.ToValue(&ObjectID{id: value.NewOID()})
	}
	id, ok := value.ParseOID(a.String())
	if !ok {
		s.throw(errs.Errorf(errs.Invalid, "ObjectId(%q): not 24 hexadecimal digits", a.String()).
			WithHint("write ObjectId('5f1d7a4b9c8e7d6f5a4b3c2d'), or ObjectId() for a new one"))
	}
	return s.rt.ToValue(&ObjectID{id: id})
}

// isoDate parses the ISO-8601 forms mongosh's ISODate accepts.
func (s *Shell) isoDate(call goja.FunctionCall) goja.Value {
	a := call.Argument(0)
	if goja.IsUndefined(a) {
		return s.newDate(time.Now().UnixMilli())
	}
	text := a.String()
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04", "2006-01-02", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, text); err == nil {
			return s.newDate(t.UnixMilli())
		}
	}
	s.throw(errs.Errorf(errs.Invalid, "ISODate(%q): not an ISO-8601 date", text).
		WithHint("write ISODate('2025-05-21T00:00:00Z') or ISODate('2025-05-21')"))
	return nil
}

// newLong takes a number or a decimal string; a string keeps all 64 bits.
func (s *Shell) newLong(call goja.FunctionCall) goja.Value {
	a := call.Argument(0)
	var n int64
	switch x := a.Export().(type) {
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			s.throw(errs.Errorf(errs.Invalid, "Long(%v): not an integer", x).WithHint("a Long holds a whole number"))
		}
		n = int64(x)
	case *Long:
		n = x.n
	default:
		var err error
		if n, err = strconv.ParseInt(a.String(), 10, 64); err != nil {
			s.throw(errs.Errorf(errs.Invalid, "Long(%q): not a 64-bit integer", a.String()).
				WithHint("write Long('9007199254740993') with the digits in quotes to keep them exact"))
		}
	}
	return s.rt.ToValue(&Long{n: n})
}

func (s *Shell) newBinary(call goja.FunctionCall) goja.Value {
	data, err := base64.StdEncoding.DecodeString(call.Argument(0).String())
	sub := call.Argument(1).ToInteger()
	if err != nil || sub < 0 || sub > 255 {
		s.throw(errs.Errorf(errs.Invalid, "Binary: %q is not base64 with a subtype 0-255", call.Argument(0).String()).
			WithHint("write Binary.createFromBase64('AQID', 0)"))
	}
	return s.rt.ToValue(&Binary{data: data, subtype: byte(sub)})
}

// inspect returns how mongosh shows v: documents and values in its style,
// a string as it is.
func (s *Shell) inspect(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	if obj, ok := v.(*goja.Object); ok && obj.ClassName() == "Function" {
		return "[Function: " + obj.Get("name").String() + "]"
	}
	if str, ok := v.Export().(string); ok {
		return visible(str)
	}
	val, err := s.toValue(v)
	if err != nil {
		return v.String()
	}
	return pretty.Format(val, s.prettyOptions())
}

// visible escapes the control characters of a string printed as it is
// (except newline and tab), so that a stored value cannot send escape
// sequences to the terminal.
func visible(s string) string {
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			return '\uFFFD'
		}
		return r
	}, s)
}
