package query

import (
	"regexp"
	"strings"
)

// regexFromDoc compiles the $regex (and $options) of an operator object.
// The pattern may be written "/pat/flags"; flags may also come from
// $options, but not from both. It returns the predicate and the operand as
// written, for Predicates.
func regexFromDoc(doc Value) (regexPred, Value, error) {
	pat, opts := doc.Get("$regex"), doc.Get("$options")
	if pat.kind != String {
		return regexPred{}, Value{}, malformed("$regex has to be a string, got %s", pat.TypeName())
	}
	pattern, flags := pat.str, ""
	if p, f, ok := splitSlashRegex(pattern); ok {
		pattern, flags = p, f
	}
	operand := []Field{{"$regex", pat}}
	if opts.kind != Missing {
		if opts.kind != String {
			return regexPred{}, Value{}, malformed("$options has to be a string, got %s", opts.TypeName())
		}
		if flags != "" && opts.str != "" {
			return regexPred{}, Value{}, malformed("options set in both $regex and $options").
				WithHint(`write the flags once: {"$regex":"pat","$options":"i"} or {"$regex":"/pat/i"}`)
		}
		if opts.str != "" {
			flags = opts.str
		}
		operand = append(operand, Field{"$options", opts})
	}
	re, err := compileRegex(pattern, flags)
	if err != nil {
		return regexPred{}, Value{}, err
	}
	return regexPred{re}, ObjectValue(operand), nil
}

// isRegexDoc reports whether v is a regex written as an object
// ({"$regex":…} with an optional "$options"), as in $in, $nin and $all.
func isRegexDoc(v Value) bool {
	if v.kind != Object || len(v.fields) == 0 || v.fields[0].Key != "$regex" {
		return false
	}
	return len(v.fields) == 1 || (len(v.fields) == 2 && v.fields[1].Key == "$options")
}

// splitSlashRegex splits "/pat/flags" into its pattern and flags. Only
// flag letters may follow the last slash.
func splitSlashRegex(s string) (pattern, flags string, ok bool) {
	if len(s) < 2 || s[0] != '/' {
		return "", "", false
	}
	end := strings.LastIndexByte(s, '/')
	if end == 0 {
		return "", "", false
	}
	flags = s[end+1:]
	if strings.Trim(flags, "imsxu") != "" {
		return "", "", false
	}
	return s[1:end], flags, true
}

// compileRegex compiles a MongoDB regex with its flags (i, m, s, x; u is
// accepted and has no effect) using Go's RE2 engine, which runs in linear
// time.
func compileRegex(pattern, flags string) (*regexp.Regexp, error) {
	if len(pattern) > MaxRegexLength {
		return nil, Errorf(Limit, "malformed query: $regex pattern is %d bytes, over the limit of %d", len(pattern), MaxRegexLength).
			WithHint("shorten the pattern; omgdb accepts regular expressions of at most 1 KiB")
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, malformed("$regex cannot contain an embedded null byte")
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
			return nil, malformed("invalid flag in regex options: %c", f).WithHint("the flags are i, m, s and x")
		}
	}
	src := pattern
	if extended {
		src = stripExtended(src)
	}
	if len(mode) > 0 {
		src = "(?" + string(mode) + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, malformed("$regex: invalid regular expression `%s`: %s", pattern, msg).
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
