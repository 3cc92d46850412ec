package query

import (
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// setLeaf is $set and $setOnInsert: the field becomes val.
type setLeaf struct{ val value.Value }

func makeSet(arg value.Value, path string) (leafOp, error) {
	if err := checkUpdateValue(arg, path); err != nil {
		return nil, err
	}
	return setLeaf{arg}, nil
}

func (setLeaf) mode() pathMode { return modeCreate }

func (l setLeaf) apply(cur value.Value, _ *step) (value.Value, bool, error) {
	if value.SameCanonical(cur, l.val) {
		return cur, false, nil
	}
	return l.val, true, nil
}

// unsetLeaf is $unset: the field is removed (an array element becomes null).
type unsetLeaf struct{}

func makeUnset(value.Value, string) (leafOp, error) { return unsetLeaf{}, nil }

func (unsetLeaf) mode() pathMode { return modeLenient }

func (unsetLeaf) apply(value.Value, *step) (value.Value, bool, error) {
	return value.Value{}, true, nil
}

// arithLeaf is $inc (mul false) and $mul (mul true).
type arithLeaf struct {
	arg value.Value
	mul bool
}

func makeInc(arg value.Value, path string) (leafOp, error) {
	if !arg.IsNumber() {
		return nil, errs.Errorf(errs.Invalid, "Cannot increment with non-numeric argument: {%s}", mongoElem(path, arg)).
			WithHint("$inc takes a number (an int, a long, a double or a decimal)")
	}
	return arithLeaf{arg: arg}, nil
}

func makeMul(arg value.Value, path string) (leafOp, error) {
	if !arg.IsNumber() {
		return nil, errs.Errorf(errs.Invalid, "Cannot multiply with non-numeric argument: {%s}", mongoElem(path, arg)).
			WithHint("$mul takes a number (an int, a long, a double or a decimal)")
	}
	return arithLeaf{arg: arg, mul: true}, nil
}

func (arithLeaf) mode() pathMode { return modeCreate }

func (l arithLeaf) name() string {
	if l.mul {
		return "$mul"
	}
	return "$inc"
}

func (l arithLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	if cur.IsMissing() {
		if l.mul { // zero of the multiplier's type
			return arithNumbers(l.arg, zeroLike(l.arg), true), true, nil
		}
		return l.arg, true, nil
	}
	if !cur.IsNumber() {
		return cur, false, errs.Errorf(errs.Invalid, "Cannot apply %s to a value of non-numeric type. {%s} has the field '%s' of non-numeric type %s",
			l.name(), s.ap.idElem(), s.fieldName(), cur.TypeName()).
			WithHint("%s works on numbers; '%s' holds %s", l.name(), s.fieldPath(), aTypeName(cur))
	}
	out := arithNumbers(cur, l.arg, l.mul)
	if out.IsMissing() {
		return cur, false, errs.Errorf(errs.Invalid, "Failed to apply %s operations to current value ((NumberLong)%d) for document {%s}",
			l.name(), cur.Long(), s.ap.idElem()).
			WithHint("the result overflows a 64-bit long; use a double operand (such as %s) to store the field as a double, or a decimal", doubleOperand(l.arg))
	}
	if value.SameCanonical(cur, out) {
		return cur, false, nil
	}
	return out, true, nil
}

// doubleOperand spells n as a double for a hint.
func doubleOperand(n value.Value) string {
	return string(value.AppendDouble(nil, n.Float()))
}

// arithNumbers adds or multiplies two numbers: int with int gives an int
// (a long past 32 bits), integers give a long (or missing on overflow),
// anything with a double a double, anything with a decimal a decimal.
func arithNumbers(a, b value.Value, mul bool) value.Value {
	if a.Kind() == value.Decimal || b.Kind() == value.Decimal {
		return decimalArith(a, b, mul)
	}
	if a.Kind() == value.Int && b.Kind() == value.Int {
		r := arithNumbers(value.LongValue(a.Long()), value.LongValue(b.Long()), mul)
		if n := r.Long(); n >= math.MinInt32 && n <= math.MaxInt32 {
			return value.IntValue(int32(n))
		}
		return r
	}
	if a.IsIntegral() && b.IsIntegral() {
		x, y := a.Long(), b.Long()
		if mul {
			return mulLongChecked(x, y)
		}
		s := x + y
		if (s > x) != (y > 0) {
			return value.Value{}
		}
		return value.LongValue(s)
	}
	if mul {
		return value.DoubleValue(a.Float() * b.Float())
	}
	return value.DoubleValue(a.Float() + b.Float())
}

// decimalArith adds or multiplies in decimal128.
func decimalArith(a, b value.Value, mul bool) value.Value {
	ctx := value.Decimal128
	r := new(apd.Decimal)
	if mul {
		ctx.Mul(r, value.Decimal128Of(a), value.Decimal128Of(b))
	} else {
		ctx.Add(r, value.Decimal128Of(a), value.Decimal128Of(b))
	}
	return value.DecimalValue(r)
}

// zeroLike is zero of n's numeric type: what $mul sets a missing field to.
func zeroLike(n value.Value) value.Value {
	switch n.Kind() {
	case value.Int:
		return value.IntValue(0)
	case value.Double:
		return value.DoubleValue(0)
	case value.Decimal:
		return value.DecimalValue(apd.New(0, 0))
	}
	return value.LongValue(0)
}

// mulLongChecked multiplies two longs, or returns missing on overflow.
func mulLongChecked(x, y int64) value.Value {
	if x == 0 || y == 0 {
		return value.LongValue(0)
	}
	neg := (x < 0) != (y < 0)
	hi, lo := bits.Mul64(longMagnitude(x), longMagnitude(y))
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if hi != 0 || lo > limit {
		return value.Value{}
	}
	if neg {
		return value.LongValue(int64(-lo)) // -lo wraps to MinInt64 for lo = 2^63
	}
	return value.LongValue(int64(lo))
}

func longMagnitude(x int64) uint64 {
	if x < 0 {
		return uint64(-x) // MinInt64 wraps to 2^63, its magnitude
	}
	return uint64(x)
}

// compareLeaf is $min (max false) and $max (max true).
type compareLeaf struct {
	val value.Value
	max bool
}

func makeMin(arg value.Value, path string) (leafOp, error) {
	if err := checkUpdateValue(arg, path); err != nil {
		return nil, err
	}
	return compareLeaf{val: arg}, nil
}

func makeMax(arg value.Value, path string) (leafOp, error) {
	if err := checkUpdateValue(arg, path); err != nil {
		return nil, err
	}
	return compareLeaf{val: arg, max: true}, nil
}

func (compareLeaf) mode() pathMode { return modeCreate }

func (l compareLeaf) apply(cur value.Value, _ *step) (value.Value, bool, error) {
	if cur.IsMissing() {
		return l.val, true, nil
	}
	c := value.Compare(l.val, cur)
	if (l.max && c > 0) || (!l.max && c < 0) {
		return l.val, true, nil
	}
	return cur, false, nil
}

// dateLeaf is $currentDate: the field becomes the time of the update, as
// a date or (stamp) a timestamp of its seconds, increment 1.
type dateLeaf struct{ stamp bool }

func makeCurrentDate(arg value.Value, path string) (leafOp, error) {
	switch arg.Kind() {
	case value.Bool:
		return dateLeaf{}, nil
	case value.Object:
		return currentDateType(arg)
	}
	return nil, errs.Errorf(errs.Invalid, "%s is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).", arg.TypeName())
}

func currentDateType(arg value.Value) (leafOp, error) {
	valid, stamp := false, false
	for _, f := range arg.Fields() {
		if f.Key != "$type" {
			return nil, errs.Errorf(errs.Invalid, "Unrecognized $currentDate option: %s", f.Key)
		}
		switch f.Value.Str() {
		case "date":
			valid, stamp = true, false
		case "timestamp":
			valid, stamp = true, true
		}
	}
	if !valid {
		return nil, errs.Errorf(errs.Invalid, "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}")
	}
	return dateLeaf{stamp}, nil
}

func (dateLeaf) mode() pathMode { return modeCreate }

func (l dateLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	now := s.ap.now
	if l.stamp {
		now = value.TimestampValue(uint32(now.Date()/1000), 1)
	}
	if value.SameCanonical(cur, now) {
		return cur, false, nil
	}
	return now, true, nil
}

// bitLeaf is $bit: and, or and xor on an int or a long, in the order
// written. As in MongoDB, the result is an int when the field and every
// operand are ints (a missing field starts as the int 0), and a long
// otherwise.
type bitLeaf struct{ ops []value.Field }

const bitFormat = "{$bit: {field: {and/or/xor: #}}"

func makeBit(arg value.Value, path string) (leafOp, error) {
	if arg.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "The $bit modifier is not compatible with a %s. You must pass in an embedded document: %s", arg.TypeName(), bitFormat)
	}
	for _, f := range arg.Fields() {
		if f.Key != "and" && f.Key != "or" && f.Key != "xor" {
			return nil, errs.Errorf(errs.Invalid, "The $bit modifier only supports 'and', 'or', and 'xor', not '%s' which is an unknown operator: {%s}",
				f.Key, mongoElem(f.Key, f.Value))
		}
		if !f.Value.IsIntegral() {
			return nil, errs.Errorf(errs.Invalid, "The $bit modifier field must be an Integer(32/64 bit); a '%s' is not supported here: {%s}",
				f.Value.TypeName(), mongoElem(f.Key, f.Value))
		}
	}
	if arg.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "You must pass in at least one bitwise operation. The format is: %s", bitFormat)
	}
	return bitLeaf{arg.Fields()}, nil
}

func (bitLeaf) mode() pathMode { return modeCreate }

func (l bitLeaf) apply(cur value.Value, s *step) (value.Value, bool, error) {
	x, long := int64(0), false
	switch {
	case cur.IsMissing():
	case cur.IsIntegral():
		x, long = cur.Long(), cur.Kind() == value.Long
	default:
		return cur, false, errs.Errorf(errs.Invalid, "Cannot apply $bit to a value of non-integral type. {%s} has the field '%s' of non-integer type %s",
			s.ap.idElem(), s.fieldName(), cur.TypeName())
	}
	for _, op := range l.ops {
		long = long || op.Value.Kind() == value.Long
		switch y := op.Value.Long(); op.Key {
		case "and":
			x &= y
		case "or":
			x |= y
		case "xor":
			x ^= y
		}
	}
	out := value.LongValue(x)
	if !long {
		out = value.IntValue(int32(x))
	}
	if value.SameCanonical(cur, out) {
		return cur, false, nil
	}
	return out, true, nil
}

// rename applies a $rename step: the value at s.from moves to s.path.
func (s *step) rename(doc value.Value) (value.Value, bool, error) {
	val, err := s.renameSource(doc)
	if err != nil || val.IsMissing() {
		return doc, false, err
	}
	if err := s.checkRenameTarget(doc); err != nil {
		return doc, false, err
	}
	set := &step{ap: s.ap, leaf: setLeaf{val}, path: s.path}
	out, _, err := set.walk(doc, 0)
	if err != nil {
		return doc, false, err
	}
	unset := &step{ap: s.ap, leaf: unsetLeaf{}, path: s.from}
	out, _, err = unset.walk(out, 0)
	return out, true, err
}

// renameSource returns the value to rename, or missing when there is
// none. A source inside an array, or below a scalar, is an error.
func (s *step) renameSource(doc value.Value) (value.Value, error) {
	chain := []value.Value{doc}
	v := doc
	for i, comp := range s.from {
		switch v.Kind() {
		case value.Object:
			v = v.Get(comp)
		case value.Array:
			idx, ok := pathIndex(comp)
			if !ok {
				return value.Value{}, s.renameNotViable(i, v)
			}
			v = v.Index(idx)
		default:
			return value.Value{}, s.renameNotViable(i, v)
		}
		if v.IsMissing() {
			return value.Value{}, nil
		}
		chain = append(chain, v)
	}
	for k := len(chain) - 2; k >= 1; k-- {
		if chain[k].IsArray() {
			return value.Value{}, errs.Errorf(errs.Invalid, "The source field cannot be an array element, '%s' in doc with %s has an array field called '%s'",
				dottedPath(s.from), s.ap.idOrNone(), s.from[k-1])
		}
	}
	return v, nil
}

func (s *step) renameNotViable(i int, v value.Value) error {
	return errs.Errorf(errs.Invalid, "cannot use the part (%s of %s) to traverse the element ({%s})", s.from[i], dottedPath(s.from), mongoElem(s.from[i-1], v))
}

// checkRenameTarget refuses a destination inside an array.
func (s *step) checkRenameTarget(doc value.Value) error {
	chain := []value.Value{}
	v := doc
	for _, comp := range s.path {
		v = valueAtPath(v, []string{comp})
		if v.IsMissing() {
			break
		}
		chain = append(chain, v)
	}
	if len(chain) == len(s.path) {
		chain = chain[:len(chain)-1] // the value to overwrite may be an array
	}
	for k := len(chain) - 1; k >= 0; k-- {
		if chain[k].IsArray() {
			return errs.Errorf(errs.Invalid, "The destination field cannot be an array element, '%s' in doc with %s has an array field called '%s'",
				dottedPath(s.path), s.ap.idOrNone(), s.path[k])
		}
	}
	return nil
}

// idOrNone renders the document's _id for $rename messages.
func (ap *applier) idOrNone() string {
	if id := ap.idElem(); id != "" {
		return id
	}
	return "no id"
}
