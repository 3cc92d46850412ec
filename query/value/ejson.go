package value

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"math"
	"strconv"
	"time"

	"github.com/omgdb/omgdb/query/errs"
)

// EJSONMode is a form of JSON output: the store's own canonical form, or
// one of the two modes of MongoDB Extended JSON v2.
type EJSONMode uint8

const (
	// EJSONStored is omgdb's canonical form, the one documents are stored
	// in (AppendJSON): longs as plain integers, dates as {"$date":ms}. It is
	// lossless and written without re-encoding a stored document.
	EJSONStored EJSONMode = iota
	// EJSONRelaxed is Extended JSON v2 relaxed mode: numbers as plain JSON
	// numbers (non-finite doubles wrapped), dates from 1970 to 9999 as
	// ISO-8601 text with milliseconds, other dates as in canonical mode.
	EJSONRelaxed
	// EJSONCanonical is Extended JSON v2 canonical mode: every number and
	// date in a type wrapper, so that a reader restores each type exactly.
	EJSONCanonical
)

var ejsonModeNames = [...]string{"stored", "relaxed", "canonical"}

// String returns the mode's name, as ParseEJSONMode accepts it.
func (m EJSONMode) String() string {
	if int(m) < len(ejsonModeNames) {
		return ejsonModeNames[m]
	}
	return "unknown"
}

// ParseEJSONMode returns the mode named s: "relaxed", "canonical" or
// "stored".
func ParseEJSONMode(s string) (EJSONMode, error) {
	for i, name := range ejsonModeNames {
		if s == name {
			return EJSONMode(i), nil
		}
	}
	return 0, errs.Errorf(errs.Invalid, "unknown Extended JSON mode %q", s).
		WithHint("use relaxed or canonical (or stored, omgdb's own lossless form)")
}

// AppendEJSON appends v to dst in mode m. EJSONStored is AppendJSON.
func AppendEJSON(dst []byte, v Value, m EJSONMode) []byte { return appendJSON(dst, v, m) }

func appendLong(dst []byte, i int64, m EJSONMode) []byte {
	if m == EJSONCanonical {
		return appendWrapped(dst, "$numberLong", strconv.AppendInt(nil, i, 10))
	}
	return strconv.AppendInt(dst, i, 10)
}

// appendWrapped appends {"<key>":"<text>"}; text needs no escaping.
func appendWrapped(dst []byte, key string, text []byte) []byte {
	dst = append(dst, `{"`...)
	dst = append(dst, key...)
	dst = append(dst, `":"`...)
	dst = append(dst, text...)
	return append(dst, `"}`...)
}

func appendEJSONDouble(dst []byte, f float64, m EJSONMode) []byte {
	if m != EJSONCanonical || math.IsNaN(f) || math.IsInf(f, 0) {
		return AppendDouble(dst, f)
	}
	return appendWrapped(dst, "$numberDouble", AppendDouble(nil, f))
}

// isoDate is the ISO-8601 layout of relaxed dates: milliseconds shown
// when they are not zero, always in UTC ("Z").
const isoDate = "2006-01-02T15:04:05.999Z07:00"

func appendEJSONDate(dst []byte, ms int64, m EJSONMode) []byte {
	switch m {
	case EJSONStored:
		dst = append(dst, `{"$date":`...)
		dst = strconv.AppendInt(dst, ms, 10)
		return append(dst, '}')
	case EJSONRelaxed:
		t := time.UnixMilli(ms).UTC()
		if y := t.Year(); y >= 1970 && y <= 9999 {
			dst = append(dst, `{"$date":"`...)
			dst = t.AppendFormat(dst, isoDate)
			return append(dst, `"}`...)
		}
	}
	dst = append(dst, `{"$date":`...)
	dst = appendWrapped(dst, "$numberLong", strconv.AppendInt(nil, ms, 10))
	return append(dst, '}')
}

// appendBinaryV2 writes binData in the one form Extended JSON v2 has for
// both modes, the subtype always given as two hexadecimal digits.
func appendBinaryV2(dst []byte, v Value) []byte {
	dst = append(dst, `{"$binary":{"base64":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, []byte(v.str))
	dst = append(dst, `","subType":"`...)
	dst = hex.AppendEncode(dst, []byte{byte(v.num)})
	return append(dst, `"}}`...)
}

// relaxedChanges are the openings of the stored type wrappers whose
// relaxed form differs from the stored one. Inside a JSON string every '"'
// is escaped, so `{"$` can only open an object: a stored document that
// holds none of them is already relaxed Extended JSON.
var relaxedChanges = [][]byte{[]byte(`{"$date"`), []byte(`{"$binary":"`), []byte(`{"$numberInt"`)}

// TranscodeEJSON appends the stored canonical JSON js (a document or value
// as AppendJSON writes it) to dst in mode m. What is already in the
// mode's form is copied without parsing: everything for EJSONStored, and
// for EJSONRelaxed any value without dates, binData and ints.
func TranscodeEJSON(dst, js []byte, m EJSONMode) ([]byte, error) {
	if m == EJSONStored || (m == EJSONRelaxed && !containsAny(js, relaxedChanges)) {
		return append(dst, js...), nil
	}
	if m == EJSONRelaxed {
		if out, ok := relaxedFromStored(dst, js); ok {
			return out, nil
		}
	}
	v, err := ParseLarge(js)
	if err != nil {
		return dst, err
	}
	return AppendEJSON(dst, v, m), nil
}

func containsAny(b []byte, subs [][]byte) bool {
	for _, s := range subs {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// appendNewKinds writes the kinds whose stored form is their canonical
// Extended JSON form: int, decimal, timestamp, regex, minKey and maxKey.
// Relaxed mode writes an int as a plain number; the others are the same
// in every mode.
func appendNewKinds(dst []byte, v Value, m EJSONMode) []byte {
	switch v.kind {
	case Int:
		if m == EJSONRelaxed {
			return strconv.AppendInt(dst, int64(v.num), 10)
		}
		return appendWrapped(dst, "$numberInt", strconv.AppendInt(nil, int64(v.num), 10))
	case Decimal:
		return appendWrapped(dst, "$numberDecimal", []byte(v.str))
	case Timestamp:
		t, i := v.Timestamp()
		dst = append(dst, `{"$timestamp":{"t":`...)
		dst = strconv.AppendUint(dst, uint64(t), 10)
		dst = append(dst, `,"i":`...)
		dst = strconv.AppendUint(dst, uint64(i), 10)
		return append(dst, "}}"...)
	case Regex:
		dst = append(dst, `{"$regularExpression":{"pattern":`...)
		dst = AppendString(dst, v.Pattern())
		dst = append(dst, `,"options":`...)
		dst = AppendString(dst, v.Options())
		return append(dst, "}}"...)
	case MinKey:
		return append(dst, `{"$minKey":1}`...)
	}
	return append(dst, `{"$maxKey":1}`...)
}

// relaxedFromStored rewrites the three stored wrappers whose relaxed form
// differs ({"$date":<ms>}, {"$binary":"…"}, {"$numberInt":"…"}) in stored
// canonical JSON and copies the rest, without parsing it: `{"$` can only
// open an object there. It reports false, for the parser to do the work,
// on anything it does not expect.
func relaxedFromStored(dst, js []byte) ([]byte, bool) {
	start := len(dst)
	for {
		i := bytes.Index(js, []byte(`{"$`))
		if i < 0 {
			return append(dst, js...), true
		}
		dst = append(dst, js[:i]...)
		js = js[i:]
		n, out := relaxedWrapper(dst, js)
		if n < 0 {
			return dst[:start], false
		}
		if n == 0 { // a wrapper relaxed mode writes as it is stored
			dst, js = append(dst, js[:3]...), js[3:]
			continue
		}
		dst, js = out, js[n:]
	}
}

// relaxedWrapper appends the relaxed form of the wrapper that opens js and
// returns the length it read: 0 when the wrapper stays as it is, -1 when
// it is malformed.
func relaxedWrapper(dst, js []byte) (int, []byte) {
	switch {
	case bytes.HasPrefix(js, []byte(`{"$date":`)):
		rest := js[len(`{"$date":`):]
		end := bytes.IndexByte(rest, '}')
		ms, err := strconv.ParseInt(string(rest[:max(end, 0)]), 10, 64)
		if end < 0 || err != nil {
			return -1, nil
		}
		return len(`{"$date":`) + end + 1, appendEJSONDate(dst, ms, EJSONRelaxed)
	case bytes.HasPrefix(js, []byte(`{"$binary":"`)):
		rest := js[len(`{"$binary":"`):]
		end := bytes.Index(rest, []byte(`"}`))
		if end < 0 {
			return -1, nil
		}
		dst = append(dst, `{"$binary":{"base64":"`...)
		dst = append(dst, rest[:end]...)
		return len(`{"$binary":"`) + end + 2, append(dst, `","subType":"00"}}`...)
	case bytes.HasPrefix(js, []byte(`{"$numberInt":"`)):
		rest := js[len(`{"$numberInt":"`):]
		end := bytes.Index(rest, []byte(`"}`))
		if end <= 0 {
			return -1, nil
		}
		return len(`{"$numberInt":"`) + end + 2, append(dst, rest[:end]...)
	}
	return 0, nil
}
