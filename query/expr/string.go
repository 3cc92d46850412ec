package expr

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// String operators. Positions and lengths of the *CP operators count code
// points; those of the *Bytes operators count UTF-8 bytes.

func registerExprStringOps() {
	registerOps(map[string]opCompiler{
		"$concat":       rangeOp(0, -1, concatValues),
		"$toUpper":      unaryOp(caseOp("$toUpper", 'a', 'z', -32)),
		"$toLower":      unaryOp(caseOp("$toLower", 'A', 'Z', 32)),
		"$substrCP":     fixedOp(3, substrCP),
		"$substrBytes":  fixedOp(3, func(a []value.Value) (value.Value, error) { return substrBytes("$substrBytes", a) }),
		"$substr":       fixedOp(3, func(a []value.Value) (value.Value, error) { return substrBytes("$substr", a) }),
		"$strLenCP":     unaryOp(strLen("$strLenCP", utf8.RuneCountInString)),
		"$strLenBytes":  unaryOp(strLen("$strLenBytes", func(s string) int { return len(s) })),
		"$split":        fixedOp(2, splitValue),
		"$strcasecmp":   fixedOp(2, strcasecmp),
		"$indexOfCP":    rangeOp(2, 4, func(a []value.Value) (value.Value, error) { return indexOf("$indexOfCP", a, true) }),
		"$indexOfBytes": rangeOp(2, 4, func(a []value.Value) (value.Value, error) { return indexOf("$indexOfBytes", a, false) }),
		"$trim":         trimOp(true, true),
		"$ltrim":        trimOp(true, false),
		"$rtrim":        trimOp(false, true),
		"$replaceOne":   replaceOp(1),
		"$replaceAll":   replaceOp(-1),
	})
}

func concatValues(args []value.Value) (value.Value, error) {
	var b strings.Builder
	for _, v := range args {
		switch v.Kind() {
		case value.Missing, value.Null:
			return value.NullValue(), nil
		case value.String:
			b.WriteString(v.Str())
		default:
			return value.Value{}, typeError("$concat", "strings", v)
		}
	}
	return value.StringValue(b.String()), nil
}

// coerceToString converts the operand of a string operator as MongoDB
// does: null and missing become "", numbers and dates their text.
func coerceToString(op string, v value.Value) (string, error) {
	switch v.Kind() {
	case value.Missing, value.Null:
		return "", nil
	case value.String:
		return v.Str(), nil
	case value.Long, value.Int:
		return strconv.FormatInt(v.Long(), 10), nil
	case value.Double:
		return formatDouble(v.Double()), nil
	case value.Decimal:
		return v.DecimalString(), nil
	case value.Date:
		return formatDate(v.Date()), nil
	}
	return "", errs.Errorf(errs.Invalid, "%s: can't convert from BSON type %s to String", op, v.TypeName())
}

// formatDouble writes a double as $toString does: the shortest text that
// reads back as the same double, "2" for 2.0, exponent form below 1e-4
// and from 1e16.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0 && math.Signbit(f):
		return "-0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		ex := strconv.Itoa(exp)
		if len(ex) < 2 {
			ex = "0" + ex
		}
		return mant + "e" + sign + ex
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// caseOp is $toUpper/$toLower: ASCII letters only, as in MongoDB.
func caseOp(op string, lo, hi byte, delta int) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		s, err := coerceToString(op, v)
		if err != nil {
			return value.Value{}, err
		}
		b := []byte(s)
		for i, c := range b {
			if c >= lo && c <= hi {
				b[i] = byte(int(c) + delta)
			}
		}
		return value.StringValue(string(b)), nil
	}
}

// nonNegInt reads an index or length argument.
func nonNegInt(op, what string, v value.Value) (int64, error) {
	if !v.IsNumber() {
		return 0, errs.Errorf(errs.Invalid, "%s: %s must be a numeric type (is BSON type %s)", op, what, v.TypeName())
	}
	i, ok := ExactInt(v)
	if !ok {
		return 0, errs.Errorf(errs.Invalid, "%s: %s must be an integral value, found %s", op, what, v)
	}
	if i < 0 {
		return 0, errs.Errorf(errs.Invalid, "%s: %s must be non-negative (got: %d)", op, what, i)
	}
	return i, nil
}

func substrCP(a []value.Value) (value.Value, error) {
	s, err := coerceToString("$substrCP", a[0])
	if err != nil {
		return value.Value{}, err
	}
	start, err := nonNegInt("$substrCP", "starting index", a[1])
	if err != nil {
		return value.Value{}, err
	}
	n, err := nonNegInt("$substrCP", "length", a[2])
	if err != nil {
		return value.Value{}, err
	}
	runes := []rune(s)
	if start >= int64(len(runes)) {
		return value.StringValue(""), nil
	}
	end := min(start+n, int64(len(runes)))
	return value.StringValue(string(runes[start:end])), nil
}

func substrBytes(op string, a []value.Value) (value.Value, error) {
	s, err := coerceToString(op, a[0])
	if err != nil {
		return value.Value{}, err
	}
	start, err := nonNegInt(op, "starting index", a[1])
	if err != nil {
		return value.Value{}, err
	}
	if !a[2].IsNumber() {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s: length must be a numeric type (is BSON type %s)", op, a[2].TypeName())
	}
	if start >= int64(len(s)) {
		return value.StringValue(""), nil
	}
	end := int64(len(s))
	if n, _ := ExactInt(a[2]); n >= 0 && start+n < end {
		end = start + n
	}
	if !utf8.RuneStart(s[start]) {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s: invalid range, starting index is a UTF-8 continuation byte", op)
	}
	if end < int64(len(s)) && !utf8.RuneStart(s[end]) {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s: invalid range, ending index is in the middle of a UTF-8 character", op)
	}
	return value.StringValue(s[start:end]), nil
}

func strLen(op string, count func(string) int) func(value.Value) (value.Value, error) {
	return func(v value.Value) (value.Value, error) {
		if v.Kind() != value.String {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s requires a string argument, found: %s", op, v.TypeName())
		}
		return value.LongValue(int64(count(v.Str()))), nil
	}
}

func splitValue(a []value.Value) (value.Value, error) {
	if Nullish(a[0]) {
		return value.NullValue(), nil
	}
	if a[0].Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "$split requires an expression that evaluates to a string as a first argument, found: %s", a[0].TypeName())
	}
	if a[1].Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "$split requires an expression that evaluates to a string as a second argument, found: %s", a[1].TypeName())
	}
	if a[1].Str() == "" {
		return value.Value{}, errs.Errorf(errs.Invalid, "$split requires a non-empty separator")
	}
	parts := strings.Split(a[0].Str(), a[1].Str())
	out := make([]value.Value, len(parts))
	for i, p := range parts {
		out[i] = value.StringValue(p)
	}
	return value.ArrayValue(out), nil
}

func strcasecmp(a []value.Value) (value.Value, error) {
	x, err := coerceToString("$strcasecmp", a[0])
	if err != nil {
		return value.Value{}, err
	}
	y, err := coerceToString("$strcasecmp", a[1])
	if err != nil {
		return value.Value{}, err
	}
	return value.LongValue(int64(strings.Compare(asciiUpper(x), asciiUpper(y)))), nil
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func indexOf(op string, a []value.Value, cp bool) (value.Value, error) {
	if Nullish(a[0]) {
		return value.NullValue(), nil
	}
	if a[0].Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s requires a string as the first argument, found: %s", op, a[0].TypeName())
	}
	if a[1].Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s requires a string as the second argument, found: %s", op, a[1].TypeName())
	}
	s, sub := a[0].Str(), a[1].Str()
	var units []int // byte offset of each unit (code point or byte)
	n := len(s)
	if cp {
		for i := range s {
			units = append(units, i)
		}
		n = len(units)
	}
	start, end, err := indexBounds(op, a, n)
	if err != nil || start > end || start > n {
		return value.LongValue(-1), err
	}
	off := func(u int) int {
		if !cp || u >= len(units) {
			return min(u, len(s))
		}
		return units[u]
	}
	window := s[off(start):off(end)]
	i := strings.Index(window, sub)
	if i < 0 {
		return value.LongValue(-1), nil
	}
	if cp {
		return value.LongValue(int64(start + utf8.RuneCountInString(window[:i]))), nil
	}
	return value.LongValue(int64(start + i)), nil
}

// indexBounds reads the optional start and end of $indexOf*.
func indexBounds(op string, a []value.Value, n int) (start, end int, err error) {
	end = n
	if len(a) > 2 {
		s, err := nonNegInt(op, "starting index", a[2])
		if err != nil {
			return 0, 0, err
		}
		start = int(min(s, int64(n)+1))
	}
	if len(a) > 3 {
		e, err := nonNegInt(op, "ending index", a[3])
		if err != nil {
			return 0, 0, err
		}
		end = int(min(e, int64(n)))
	}
	return start, end, nil
}

// defaultTrimChars are the characters $trim removes by default.
const defaultTrimChars = "\x00 \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

type trimNode struct {
	op          string
	input       Node
	chars       Node
	left, right bool
}

func (n *trimNode) Eval(c *EvalCtx) (value.Value, error) {
	in, err := n.input.Eval(c)
	if err != nil || Nullish(in) {
		return value.NullValue(), err
	}
	if in.Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s requires its input to be a string, got %s (of type %s) instead", n.op, in, in.TypeName())
	}
	chars := defaultTrimChars
	if n.chars != nil {
		cv, err := n.chars.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if Nullish(cv) {
			return value.NullValue(), nil
		}
		if cv.Kind() != value.String {
			return value.Value{}, errs.Errorf(errs.Invalid, "%s requires 'chars' to be a string, got %s (of type %s) instead", n.op, cv, cv.TypeName())
		}
		chars = cv.Str()
	}
	if err := c.tickRead(in); err != nil {
		return value.Value{}, err
	}
	s := in.Str()
	if n.left {
		s = strings.TrimLeft(s, chars)
	}
	if n.right {
		s = strings.TrimRight(s, chars)
	}
	return value.StringValue(s), nil
}

func trimOp(left, right bool) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		m, err := c.Named(name, arg, []string{"input"}, []string{"chars"})
		if err != nil {
			return nil, err
		}
		return &trimNode{name, m["input"], m["chars"], left, right}, nil
	}
}

type replaceNode struct {
	op                       string
	input, find, replacement Node
	n                        int
}

func (n *replaceNode) Eval(c *EvalCtx) (value.Value, error) {
	var vals [3]value.Value
	for i, x := range []Node{n.input, n.find, n.replacement} {
		v, err := x.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if !Nullish(v) && v.Kind() != value.String {
			what := [3]string{"input", "find", "replacement"}[i]
			return value.Value{}, errs.Errorf(errs.Invalid, "%s requires that '%s' be a string, found: %s", n.op, what, v)
		}
		vals[i] = v
	}
	for _, v := range vals {
		if Nullish(v) {
			return value.NullValue(), nil
		}
	}
	if err := c.tickRead(vals[0]); err != nil {
		return value.Value{}, err
	}
	out := value.StringValue(strings.Replace(vals[0].Str(), vals[1].Str(), vals[2].Str(), n.n))
	return out, c.spend(out)
}

func replaceOp(count int) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		m, err := c.Named(name, arg, []string{"input", "find", "replacement"}, nil)
		if err != nil {
			return nil, err
		}
		return &replaceNode{name, m["input"], m["find"], m["replacement"], count}, nil
	}
}
