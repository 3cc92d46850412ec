package expr

import (
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// MaxRegexLength bounds a regular expression's pattern, in bytes
// ($regex in filters, $regexMatch and its kin in expressions).
const MaxRegexLength = 1024

// MaxRegexProgram bounds a regular expression's size once its counted
// repetitions are written out (a{3} counts as aaa): RE2's time per byte of
// subject grows with it, and a 1 KiB pattern such as a{0,999} repeated
// 127 times compiles for a quarter of a second and then takes over a
// millisecond per byte. At 10,000, [a-z]{1000} and (a{0,100}){9} pass.
const MaxRegexProgram = 10000

// CompileRegex compiles a MongoDB regex with its flags (i, m, s, x; u is
// accepted and has no effect) using Go's RE2 engine, which runs in linear
// time.
func CompileRegex(pattern, flags string) (*regexp.Regexp, error) {
	if len(pattern) > MaxRegexLength {
		return nil, errs.Errorf(errs.Limit, "malformed query: $regex pattern is %d bytes, over the limit of %d", len(pattern), MaxRegexLength).
			WithHint("shorten the pattern; omgdb accepts regular expressions of at most 1 KiB")
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, errs.Errorf(errs.Invalid, "malformed query: $regex cannot contain an embedded null byte")
	}
	var mode []byte
	extended := false
	for i := 0; i < len(flags); i++ {
		switch f := flags[i]; f {
		case 'i', 'm', 's':
			if !strings.ContainsRune(string(mode), rune(f)) {
				mode = append(mode, f)
			}
		case 'x':
			extended = true
		case 'u':
		default:
			return nil, errs.Errorf(errs.Invalid, "malformed query: invalid flag in regex options: %c", f).WithHint("the flags are i, m, s and x")
		}
	}
	src := pattern
	if extended {
		src = stripExtended(src)
	}
	if len(mode) > 0 {
		src = "(?" + string(mode) + ")" + src
	}
	if err := checkProgram(pattern, src); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, errs.Errorf(errs.Invalid, "malformed query: $regex: invalid regular expression `%s`: %s", pattern, msg).
			WithHint("omgdb uses Go's RE2 syntax: no lookahead, lookbehind, backreferences or possessive quantifiers")
	}
	return re, nil
}

// stripExtended applies the x flag: it removes white space and #-comments
// outside character classes. An escaped white-space character stays, as a
// literal.
func stripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			if !inClass && isRegexSpace(p[i]) {
				b.WriteString(`\x`)
				b.WriteByte("0123456789abcdef"[p[i]>>4])
				b.WriteByte("0123456789abcdef"[p[i]&15])
				continue
			}
			b.WriteByte(c)
			b.WriteByte(p[i])
		case inClass:
			inClass = c != ']'
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				i++
				b.WriteByte('^')
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
				b.WriteByte(']')
			}
		case isRegexSpace(c):
		case c == '#':
			for i+1 < len(p) && p[i+1] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isRegexSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// checkProgram refuses a pattern whose expanded size exceeds
// MaxRegexProgram. A pattern that does not parse passes, for
// regexp.Compile to name its error.
func checkProgram(pattern, src string) error {
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	if n := programSize(tree); n > MaxRegexProgram {
		return errs.Errorf(errs.Limit, "malformed query: $regex pattern expands to more than %d elements once its repetitions are counted out (the limit)", MaxRegexProgram).
			WithHint("use smaller repetition counts such as {0,100}; nested counted repetitions multiply")
	}
	return nil
}

// programSize is the size of tree with its counted repetitions written
// out, saturated just above MaxRegexProgram.
func programSize(tree *syntax.Regexp) int {
	n := 1
	switch tree.Op {
	case syntax.OpLiteral:
		n = len(tree.Rune)
	case syntax.OpRepeat:
		times := tree.Max
		if times < 0 {
			times = tree.Min + 1
		}
		n = max(times, 1) * programSize(tree.Sub[0])
	default:
		for _, sub := range tree.Sub {
			n += programSize(sub)
		}
	}
	return min(n, MaxRegexProgram+1)
}
