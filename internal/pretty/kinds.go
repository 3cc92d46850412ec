package pretty

import (
	"strconv"

	"github.com/omgdb/omgdb/query/value"
)

// appendNumber prints an int bare and a decimal as Decimal128('…'), as
// mongosh does.
func appendNumber(dst []byte, v value.Value) []byte {
	if v.Kind() == value.Int {
		return strconv.AppendInt(dst, v.Long(), 10)
	}
	return call(dst, "Decimal128", v.DecimalString())
}

// appendSpecial prints a timestamp, a regex, minKey and maxKey as mongosh
// does: Timestamp({ t: 1, i: 2 }), /pattern/flags, MinKey(), MaxKey().
func appendSpecial(dst []byte, v value.Value) []byte {
	switch v.Kind() {
	case value.Timestamp:
		t, i := v.Timestamp()
		dst = append(dst, "Timestamp({ t: "...)
		dst = strconv.AppendUint(dst, uint64(t), 10)
		dst = append(dst, ", i: "...)
		dst = strconv.AppendUint(dst, uint64(i), 10)
		return append(dst, " })"...)
	case value.Regex:
		dst = append(dst, '/')
		dst = append(dst, v.Pattern()...)
		dst = append(dst, '/')
		return append(dst, v.Options()...)
	case value.MinKey:
		return append(dst, "MinKey()"...)
	}
	return append(dst, "MaxKey()"...)
}
