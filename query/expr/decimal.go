package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// toDecimal converts to a decimal as MongoDB does: a double by its 15
// significant digits (1.9 gives 1.90000000000000), integers, dates (in
// milliseconds) and bools exactly, a string by its text.
func toDecimal(v value.Value) (value.Value, *errs.Error) {
	switch v.Kind() {
	case value.Int, value.Long, value.Date:
		return value.DecimalValue(apd.New(v.Long(), 0)), nil
	case value.Bool:
		return value.DecimalValue(apd.New(boolNum(v), 0)), nil
	case value.Double:
		return doubleToDecimal(v.Double()), nil
	case value.String:
		d, _, err := apd.NewFromString(strings.TrimSpace(v.Str()))
		if err != nil {
			return value.Value{}, convertError("failed to parse number '%s'", v.Str())
		}
		return value.DecimalValue(d), nil
	}
	return value.Value{}, convertError("unsupported conversion from %s to decimal", v.TypeName())
}

// doubleToDecimal is a double's decimal with 15 significant digits, the
// precision that a double holds for any decimal text.
func doubleToDecimal(f float64) value.Value {
	switch {
	case math.IsNaN(f):
		return value.DecimalValue(&apd.Decimal{Form: apd.NaN})
	case math.IsInf(f, 0):
		return value.DecimalValue(&apd.Decimal{Form: apd.Infinite, Negative: f < 0})
	}
	d, _, _ := apd.NewFromString(strconv.FormatFloat(f, 'e', 14, 64))
	return value.DecimalValue(d)
}

// decimalToDouble is the double nearest to a decimal; a finite decimal
// beyond the range of doubles is an error, as in MongoDB.
func decimalToDouble(v value.Value) (value.Value, *errs.Error) {
	f := v.Float()
	if math.IsInf(f, 0) && !strings.HasSuffix(v.DecimalString(), "Infinity") {
		return value.Value{}, convertError("conversion would overflow target type: %s", v)
	}
	return value.DoubleValue(f), nil
}

// decimalToInteger truncates a decimal toward zero to an int64.
func decimalToInteger(v value.Value) (int64, *errs.Error) {
	d := v.Decimal()
	if d.Form == apd.NaN {
		return 0, convertError("attempt to convert NaN value to integer type")
	}
	if d.Form == apd.Infinite {
		return 0, convertError("attempt to convert infinity value to integer type")
	}
	t := new(apd.Decimal)
	ctx := value.Decimal128
	ctx.Rounding = apd.RoundDown
	ctx.RoundToIntegralValue(t, d)
	i, err := t.Int64()
	if err != nil {
		return 0, convertError("conversion would overflow target type: %s", v)
	}
	return i, nil
}
