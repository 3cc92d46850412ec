package jsonscan

// space marks JSON's white space.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// Space returns the position of the first byte from data[i] on that is
// not white space, or len(data).
func Space(data []byte, i int) int {
	for i < len(data) && space[data[i]] {
		i++
	}
	return i
}

// scalarEnd marks the bytes that may follow a number or a literal.
var scalarEnd = [256]bool{',': true, '}': true, ']': true, ' ': true, '\t': true, '\r': true, '\n': true}

// ScalarEnd returns the end of the number or literal at data[i]: the
// position of the first delimiter (',', '}', ']' or white space) from
// data[i] on, or len(data). It does not check what it passes over.
func ScalarEnd(data []byte, i int) int {
	for i < len(data) && !scalarEnd[data[i]] {
		i++
	}
	return i
}

// SkipValue returns the end of the value at data[i], or -1 when it finds
// anything it does not expect of compact JSON: an end of input, a string
// that does not end, a delimiter where the value should be, or objects
// and arrays nested more than room deep (the value itself counting one).
// It checks that brackets and strings end, not what is between.
func SkipValue(data []byte, i, room int) int {
	if uint(i) >= uint(len(data)) {
		return -1
	}
	switch data[i] {
	case '"':
		// A string whose first quote has no backslash before it, the
		// usual one, ends there; StringEnd reads the others.
		j := i + 1
		for j < len(data) && data[j] != '"' {
			j++
		}
		if j < len(data) && data[j-1] != '\\' {
			return j + 1
		}
		return StringEnd(data, i+1)
	case '{', '[':
		return SkipContainer(data, i, 0, room)
	}
	j := ScalarEnd(data, i)
	if j == i {
		return -1
	}
	return j
}

// SkipContainer returns the end of the object or array at data[i], or
// -1, as SkipValue does; level > 0 says data[i] is inside that many open
// objects and arrays already, and it returns the end of the outermost.
// More than room open objects and arrays at once is an error.
func SkipContainer(data []byte, i, level, room int) int {
	for i < len(data) {
		switch skipClass[data[i]] {
		case 0:
			i++
		case '{':
			if level++; level > room {
				return -1
			}
			i++
		case '}':
			i++
			if level--; level == 0 {
				return i
			}
		default: // '"'
			if i = StringEnd(data, i+1); i < 0 {
				return -1
			}
		}
	}
	return -1
}

// skipClass sorts bytes for SkipContainer: '{' opens a value, '}' closes
// one, '"' starts a string, 0 is any other byte.
var skipClass = func() (t [256]byte) {
	t['{'], t['['] = '{', '{'
	t['}'], t[']'] = '}', '}'
	t['"'] = '"'
	return t
}()
