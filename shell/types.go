package shell

import (
	"encoding/base64"
	"math"
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

// Int32 is the JavaScript Int32 (NumberInt): a 32-bit integer, stored as
// an int.
type Int32 struct{ n int32 }

// ValueOf returns the number, so that arithmetic works on it.
func (i *Int32) ValueOf() int64 { return int64(i.n) }

// ToString returns the decimal digits.
func (i *Int32) ToString() string { return strconv.FormatInt(int64(i.n), 10) }

// ToNumber returns the value as a JavaScript number.
func (i *Int32) ToNumber() int64 { return int64(i.n) }

// Double is the JavaScript Double: a number stored as a double even when
// it is whole (a bare whole number in the int32 range is stored as an int,
// as mongosh does).
type Double struct{ f float64 }

// ValueOf returns the number, so that arithmetic works on it.
func (d *Double) ValueOf() float64 { return d.f }

// ToString returns the number as JavaScript prints it.
func (d *Double) ToString() string { return strconv.FormatFloat(d.f, 'g', -1, 64) }

// Decimal128 is the JavaScript Decimal128 (NumberDecimal): an IEEE 754
// decimal with 34 digits, kept exact.
type Decimal128 struct{ v value.Value }

// ToString returns the decimal's text.
func (d *Decimal128) ToString() string { return d.v.DecimalString() }

// ToJSON returns the canonical Extended JSON form, as mongosh's EJSON.
func (d *Decimal128) ToJSON() map[string]string {
	return map[string]string{"$numberDecimal": d.v.DecimalString()}
}

// Timestamp is the JavaScript Timestamp: seconds and an increment.
type Timestamp struct{ T, I uint32 }

// ToString returns the value as mongosh prints it.
func (ts *Timestamp) ToString() string {
	return "Timestamp({ t: " + strconv.FormatUint(uint64(ts.T), 10) + ", i: " + strconv.FormatUint(uint64(ts.I), 10) + " })"
}

// MinKey is the JavaScript MinKey: below every other value.
type MinKey struct{}

// MaxKey is the JavaScript MaxKey: above every other value.
type MaxKey struct{}

// BSONRegExp is a stored regular expression that JavaScript's RegExp cannot
// hold (an x option, or syntax JavaScript does not read), as mongosh's
// BSONRegExp.
type BSONRegExp struct{ Pattern, Options string }

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
function NumberInt(n) { return __omg.int32((+n) | 0); }
function Int32(n) { return __omg.int32((+n) | 0); }
Int32.fromString = function (s) { return __omg.int32strict(String(s)); };
function Double(n) { return __omg.double(+n); }
function NumberDecimal(s) { return __omg.decimal(String(s)); }
function Decimal128(s) { return __omg.decimal(String(s)); }
Decimal128.fromString = function (s) { return __omg.decimal(String(s)); };
function Timestamp(t, i) { return __omg.timestamp(t, i); }
function MinKey() { return __omg.minkey(); }
function MaxKey() { return __omg.maxkey(); }
function BSONRegExp(pattern, options) { return __omg.bsonregexp(String(pattern), options === undefined ? '' : String(options)); }
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
	set("int32", func(call goja.FunctionCall) goja.Value {
		return s.rt.ToValue(&Int32{n: int32(call.Argument(0).ToInteger())})
	})
	set("int32strict", s.newInt32Strict)
	set("double", func(call goja.FunctionCall) goja.Value {
		return s.rt.ToValue(&Double{f: call.Argument(0).ToFloat()})
	})
	set("decimal", s.newDecimal)
	set("timestamp", s.newTimestamp)
	set("minkey", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(&MinKey{}) })
	set("maxkey", func(goja.FunctionCall) goja.Value { return s.rt.ToValue(&MaxKey{}) })
	set("bsonregexp", func(call goja.FunctionCall) goja.Value {
		return s.rt.ToValue(&BSONRegExp{Pattern: call.Argument(0).String(), Options: call.Argument(1).String()})
	})
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

// newInt32Strict is Int32.fromString: the text must be a 32-bit integer.
func (s *Shell) newInt32Strict(call goja.FunctionCall) goja.Value {
	text := call.Argument(0).String()
	n, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		s.throw(errs.Errorf(errs.Invalid, "Int32.fromString(%q): not a 32-bit integer", text).
			WithHint("an Int32 holds a whole number from -2147483648 to 2147483647; use Long('…') for more"))
	}
	return s.rt.ToValue(&Int32{n: int32(n)})
}

// newDecimal parses a Decimal128 from its text, keeping every digit.
func (s *Shell) newDecimal(call goja.FunctionCall) goja.Value {
	text := call.Argument(0).String()
	v, err := value.ParseDecimal(text)
	if err != nil {
		s.throw(errs.Errorf(errs.Invalid, "Decimal128(%q): not a decimal number", text).
			WithHint("write the number in quotes to keep every digit: Decimal128('0.1'), NumberDecimal('1E+10')"))
	}
	return s.rt.ToValue(&Decimal128{v: v})
}

// newTimestamp takes mongosh's Timestamp({t, i}) or the older
// Timestamp(t, i); no argument gives Timestamp({ t: 0, i: 0 }).
func (s *Shell) newTimestamp(call goja.FunctionCall) goja.Value {
	a, b := call.Argument(0), call.Argument(1)
	if obj, ok := a.(*goja.Object); ok && goja.IsUndefined(b) {
		a, b = obj.Get("t"), obj.Get("i")
	}
	part := func(v goja.Value, name string) uint32 {
		if v == nil || goja.IsUndefined(v) {
			return 0
		}
		f := v.ToFloat()
		if f != float64(int64(f)) || f < 0 || f > math.MaxUint32 {
			s.throw(errs.Errorf(errs.Invalid, "Timestamp: %s must be a whole number from 0 to 4294967295, got %s", name, v.String()).
				WithHint("write Timestamp({t: 1700000000, i: 1}): t is seconds since 1970, i an increment"))
		}
		return uint32(f)
	}
	return s.rt.ToValue(&Timestamp{T: part(a, "t"), I: part(b, "i")})
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
