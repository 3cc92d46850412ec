package value

// Exported for the tests of the stored-JSON walk (decode.go, skip.go).
var (
	SkipCanonical = skipCanonical
	ShortNumber   = func(data []byte) (Value, int) {
		bits, kind, next := shortNumber(data, 0)
		return Value{kind: kind, num: bits}, next
	}
)
