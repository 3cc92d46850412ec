package value

import (
	"bytes"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Kind is the type of a Value. The zero Kind is Missing.
type Kind uint8

// The kinds of value, plus Missing for an absent field.
const (
	Missing Kind = iota
	Null
	Bool
	Long
	Double
	String
	Binary
	Array
	Object
	ObjectID
	Date
	Int       // int32
	Decimal   // decimal128
	Timestamp // MongoDB's internal timestamp: seconds and an increment
	Regex     // a regular expression: pattern and options
	MinKey    // below every other value
	MaxKey    // above every other value
)

var kindTypeNames = [...]string{"missing", "null", "bool", "long", "double", "string", "binData", "array", "object", "objectId", "date",
	"int", "decimal", "timestamp", "regex", "minKey", "maxKey"}

// String returns the MongoDB type name ($type alias) of the kind.
func (k Kind) String() string {
	if int(k) < len(kindTypeNames) {
		return kindTypeNames[k]
	}
	return "unknown"
}

// Value is one omgdb value. Values are immutable by convention: functions
// that "modify" a document return a new Value, sharing unchanged parts.
type Value struct {
	kind   Kind
	num    uint64  // bool (0/1), int, long and date (int64 bits), double (float64 bits), binData subtype, timestamp (t<<32|i)
	str    string  // string, binData bytes, objectId (12 bytes), decimal (its text), regex (pattern, NUL, options)
	arr    []Value // array elements
	fields []Field // object fields, in order
}

// Field is one key/value pair of an object.
type Field struct {
	Key   string
	Value Value
}

// MissingValue is the zero Value, returned by lookups of absent fields.
var MissingValue = Value{}

// NullValue returns null.
func NullValue() Value { return Value{kind: Null} }

// BoolValue returns a bool.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: Bool, num: 1}
	}
	return Value{kind: Bool}
}

// IntValue returns an int (int32).
func IntValue(i int32) Value { return Value{kind: Int, num: uint64(int64(i))} }

// TimestampValue returns a timestamp of t seconds since 1970 and the
// increment i.
func TimestampValue(t, i uint32) Value { return Value{kind: Timestamp, num: uint64(t)<<32 | uint64(i)} }

// RegexValue returns a regular expression. The pattern and the options
// must not contain a NUL byte; the options are kept in alphabetical
// order, as Extended JSON writes them.
func RegexValue(pattern, options string) Value {
	return Value{kind: Regex, str: pattern + "\x00" + sortOptions(options)}
}

// MinKeyValue returns minKey, which orders below every other value.
func MinKeyValue() Value { return Value{kind: MinKey} }

// MaxKeyValue returns maxKey, which orders above every other value.
func MaxKeyValue() Value { return Value{kind: MaxKey} }

// LongValue returns a long (int64).
func LongValue(i int64) Value { return Value{kind: Long, num: uint64(i)} }

// DoubleValue returns a double (float64).
func DoubleValue(f float64) Value { return Value{kind: Double, num: math.Float64bits(f)} }

// StringValue returns a string. The caller guarantees valid UTF-8.
func StringValue(s string) Value { return Value{kind: String, str: s} }

// BinaryValue returns binData with the given subtype (0 is generic).
func BinaryValue(data []byte, subtype byte) Value {
	return Value{kind: Binary, str: string(data), num: uint64(subtype)}
}

// ObjectIDValue returns an objectId.
func ObjectIDValue(id OID) Value { return Value{kind: ObjectID, str: string(id[:])} }

// DateValue returns a date, in milliseconds since the Unix epoch (UTC).
func DateValue(ms int64) Value { return Value{kind: Date, num: uint64(ms)} }

// ArrayValue returns an array of the given elements (not copied).
func ArrayValue(elems []Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{kind: Array, arr: elems}
}

// ObjectValue returns an object of the given fields (not copied). The
// caller guarantees that keys are unique.
func ObjectValue(fields []Field) Value {
	if fields == nil {
		fields = []Field{}
	}
	return Value{kind: Object, fields: fields}
}

// Kind returns the value's type.
func (v Value) Kind() Kind { return v.kind }

// IsMissing reports whether v is the missing value.
func (v Value) IsMissing() bool { return v.kind == Missing }

// IsNull reports whether v is null.
func (v Value) IsNull() bool { return v.kind == Null }

// IsNumber reports whether v is a number: an int, a long, a double or a
// decimal.
func (v Value) IsNumber() bool {
	return v.kind == Long || v.kind == Double || v.kind == Int || v.kind == Decimal
}

// IsIntegral reports whether v is an int or a long.
func (v Value) IsIntegral() bool { return v.kind == Long || v.kind == Int }

// IsArray reports whether v is an array.
func (v Value) IsArray() bool { return v.kind == Array }

// IsObject reports whether v is an object.
func (v Value) IsObject() bool { return v.kind == Object }

// Bool returns the value of a bool (false for other kinds).
func (v Value) Bool() bool { return v.kind == Bool && v.num != 0 }

// Long returns the value of an int, a long or a date (0 for other kinds).
func (v Value) Long() int64 {
	if v.kind == Long || v.kind == Date || v.kind == Int {
		return int64(v.num)
	}
	return 0
}

// Double returns the value of a double (0 for other kinds).
func (v Value) Double() float64 {
	if v.kind == Double {
		return math.Float64frombits(v.num)
	}
	return 0
}

// Float returns a number as a float64 (rounding a long or a decimal to
// the nearest double), and 0 for other kinds.
func (v Value) Float() float64 {
	switch v.kind {
	case Long, Int:
		return float64(int64(v.num))
	case Double:
		return math.Float64frombits(v.num)
	case Decimal:
		return decimalFloat(v.str)
	}
	return 0
}

// Timestamp returns the seconds and the increment of a timestamp (zeros
// for other kinds).
func (v Value) Timestamp() (t, i uint32) {
	if v.kind == Timestamp {
		return uint32(v.num >> 32), uint32(v.num)
	}
	return 0, 0
}

// Pattern returns the pattern of a regex ("" for other kinds).
func (v Value) Pattern() string {
	if v.kind == Regex {
		return v.str[:strings.IndexByte(v.str, 0)]
	}
	return ""
}

// Options returns the options of a regex ("" for other kinds).
func (v Value) Options() string {
	if v.kind == Regex {
		return v.str[strings.IndexByte(v.str, 0)+1:]
	}
	return ""
}

// Str returns the text of a string ("" for other kinds).
func (v Value) Str() string {
	if v.kind == String {
		return v.str
	}
	return ""
}

// Bytes returns the data of a binData value (nil for other kinds).
func (v Value) Bytes() []byte {
	if v.kind == Binary {
		return []byte(v.str)
	}
	return nil
}

// Subtype returns the subtype of a binData value.
func (v Value) Subtype() byte { return byte(v.num) }

// OID returns the id of an objectId value (zero for other kinds).
func (v Value) OID() OID {
	var id OID
	if v.kind == ObjectID {
		copy(id[:], v.str)
	}
	return id
}

// Date returns the milliseconds of a date value (0 for other kinds).
func (v Value) Date() int64 {
	if v.kind == Date {
		return int64(v.num)
	}
	return 0
}

// Array returns the elements of an array (nil for other kinds). The slice
// must not be modified.
func (v Value) Array() []Value {
	if v.kind == Array {
		return v.arr
	}
	return nil
}

// Fields returns the fields of an object (nil for other kinds). The slice
// must not be modified.
func (v Value) Fields() []Field {
	if v.kind == Object {
		return v.fields
	}
	return nil
}

// Len returns the number of elements of an array or fields of an object.
func (v Value) Len() int {
	switch v.kind {
	case Array:
		return len(v.arr)
	case Object:
		return len(v.fields)
	}
	return 0
}

// Get returns the field named key of an object, or missing.
func (v Value) Get(key string) Value {
	for i := range v.fields {
		if v.fields[i].Key == key {
			return v.fields[i].Value
		}
	}
	return Value{}
}

// Index returns the i-th element of an array, or missing.
func (v Value) Index(i int) Value {
	if v.kind == Array && i >= 0 && i < len(v.arr) {
		return v.arr[i]
	}
	return Value{}
}

// With returns a copy of object v with key set to val: replaced in place
// if present, appended otherwise. v must be an object.
func (v Value) With(key string, val Value) Value {
	fields := make([]Field, len(v.fields), len(v.fields)+1)
	copy(fields, v.fields)
	for i := range fields {
		if fields[i].Key == key {
			fields[i].Value = val
			return ObjectValue(fields)
		}
	}
	return ObjectValue(append(fields, Field{key, val}))
}

// Without returns a copy of object v without key.
func (v Value) Without(key string) Value {
	fields := make([]Field, 0, len(v.fields))
	for _, f := range v.fields {
		if f.Key != key {
			fields = append(fields, f)
		}
	}
	return ObjectValue(fields)
}

// IDFirst returns object v with its _id field moved to the front, as stored
// documents keep it. Other fields keep their order.
func (v Value) IDFirst() Value {
	for i, f := range v.fields {
		if f.Key != "_id" {
			continue
		}
		if i == 0 {
			return v
		}
		fields := make([]Field, 0, len(v.fields))
		fields = append(fields, f)
		fields = append(fields, v.fields[:i]...)
		fields = append(fields, v.fields[i+1:]...)
		return ObjectValue(fields)
	}
	return v
}

// TypeName returns the MongoDB type name of v, as $type reports it
// ("missing" for the missing value).
func (v Value) TypeName() string { return v.kind.String() }

// String returns the canonical JSON of v for debugging and messages, with
// ints written as plain numbers ("_id 1", not "_id {"$numberInt":"1"}"):
// a message names a value as a user wrote it. AppendJSON writes the exact
// form.
func (v Value) String() string {
	if v.kind == Missing {
		return "<missing>"
	}
	js := AppendJSON(nil, v)
	if !bytes.Contains(js, numberIntOpen) {
		return string(js)
	}
	return string(plainInts.ReplaceAll(js, []byte("$1")))
}

// Inside a JSON string every '"' is escaped, so the text of an int's
// wrapper can only be the wrapper.
var (
	numberIntOpen = []byte(`{"$numberInt":"`)
	plainInts     = regexp.MustCompile(`\{"\$numberInt":"(-?[0-9]+)"\}`)
)

// Size estimates the memory a value holds, in bytes.
func Size(v Value) int64 {
	switch v.kind {
	case String, Binary, ObjectID, Decimal, Regex:
		return 40 + int64(len(v.str))
	case Array:
		s := int64(64)
		for _, e := range v.arr {
			s += Size(e)
		}
		return s
	case Object:
		s := int64(64)
		for _, f := range v.fields {
			s += 16 + int64(len(f.Key)) + Size(f.Value)
		}
		return s
	}
	return 40
}

// Clone returns a copy of v that shares no memory with it (strings
// included), for values that alias a batch's documents.
func Clone(v Value) Value {
	switch v.kind {
	case String, Binary, ObjectID, Decimal, Regex:
		v.str = strings.Clone(v.str)
	case Array:
		if v.arr != nil {
			arr := make([]Value, len(v.arr))
			for i, e := range v.arr {
				arr[i] = Clone(e)
			}
			v.arr = arr
		}
	case Object:
		if v.fields != nil {
			fields := make([]Field, len(v.fields))
			for i, f := range v.fields {
				fields[i] = Field{strings.Clone(f.Key), Clone(f.Value)}
			}
			v.fields = fields
		}
	}
	return v
}

// Has reports whether object v has a field named key (false for other
// kinds).
func (v Value) Has(key string) bool { return hasKey(v.fields, key) }

// sortOptions returns regex options in alphabetical order.
func sortOptions(opts string) string {
	b := []byte(opts)
	slices.Sort(b)
	return string(b)
}

// kindCodes are the BSON type numbers of the kinds, as $type takes them.
var kindCodes = [...]int{Null: 10, Bool: 8, Long: 18, Double: 1, String: 2, Binary: 5, Array: 4, Object: 3,
	ObjectID: 7, Date: 9, Int: 16, Decimal: 19, Timestamp: 17, Regex: 11, MinKey: -1, MaxKey: 127}

// Code returns the kind's BSON type number (0 for Missing).
func (k Kind) Code() int {
	if int(k) < len(kindCodes) {
		return kindCodes[k]
	}
	return 0
}

// KindNamed returns the kind whose $type alias is name.
func KindNamed(name string) (Kind, bool) {
	for k := Null; k <= MaxKey; k++ {
		if k.String() == name {
			return k, true
		}
	}
	return Missing, false
}

// KindOfCode returns the kind whose BSON type number is code.
func KindOfCode(code int64) (Kind, bool) {
	for k := Null; k <= MaxKey; k++ {
		if int64(k.Code()) == code {
			return k, true
		}
	}
	return Missing, false
}
