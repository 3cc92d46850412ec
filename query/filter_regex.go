package query

import (
	"regexp"
	"strings"

	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// regexFromDoc compiles the $regex (and $options) of an operator object.
// The pattern may be written "/pat/flags"; flags may also come from
// $options, but not from both. It returns the predicate and the operand as
// written, for Predicates.
func regexFromDoc(doc value.Value) (regexPred, value.Value, error) {
	pat, opts := doc.Get("$regex"), doc.Get("$options")
	if pat.Kind() != value.String {
		return regexPred{}, value.Value{}, malformed("$regex has to be a string, got %s", pat.TypeName())
	}
	pattern, flags := pat.Str(), ""
	if p, f, ok := splitSlashRegex(pattern); ok {
		pattern, flags = p, f
	}
	operand := []value.Field{{Key: "$regex", Value: pat}}
	if opts.Kind() != value.Missing {
		if opts.Kind() != value.String {
			return regexPred{}, value.Value{}, malformed("$options has to be a string, got %s", opts.TypeName())
		}
		if flags != "" && opts.Str() != "" {
			return regexPred{}, value.Value{}, malformed("options set in both $regex and $options").
				WithHint(`write the flags once: {"$regex":"pat","$options":"i"} or {"$regex":"/pat/i"}`)
		}
		if opts.Str() != "" {
			flags = opts.Str()
		}
		operand = append(operand, value.Field{Key: "$options", Value: opts})
	}
	re, err := expr.CompileRegex(pattern, flags)
	if err != nil {
		return regexPred{}, value.Value{}, err
	}
	return regexPred{re}, value.ObjectValue(operand), nil
}

// regexValue compiles a regex value used as a condition ({"a":/^x/} in
// mongosh): it matches the strings the regex matches and the regexes equal
// to it, as in MongoDB.
func regexValue(v value.Value) (valuePred, error) {
	re, err := expr.CompileRegex(v.Pattern(), v.Options())
	if err != nil {
		return nil, err
	}
	return regexOrEqual{regexPred{re}, v}, nil
}

// regexOrEqual is a regex value's condition: a match, or an equal regex.
type regexOrEqual struct {
	re  regexPred
	val value.Value
}

func (p regexOrEqual) matchValue(v value.Value, c *matchCtx) bool {
	if v.Kind() == value.Regex {
		return value.Equal(v, p.val)
	}
	return p.re.matchValue(v, c)
}

// isRegexDoc reports whether v is a regex written as an object
// ({"$regex":…} with an optional "$options"), as in $in, $nin and $all.
func isRegexDoc(v value.Value) bool {
	if v.Kind() != value.Object || len(v.Fields()) == 0 || v.Fields()[0].Key != "$regex" {
		return false
	}
	return len(v.Fields()) == 1 || (len(v.Fields()) == 2 && v.Fields()[1].Key == "$options")
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

// matchRegex matches re against s. Under a context (c's), a match over a
// long string stops once the context is done, fails, and records the
// context's error as the one that stopped the whole match.
func (c *matchCtx) matchRegex(re *regexp.Regexp, s string) bool {
	if c == nil || c.ctx == nil {
		return re.MatchString(s)
	}
	if c.stop != nil {
		return false
	}
	ok, err := expr.MatchRegex(c.ctx, re, s)
	if err != nil {
		c.stop = err
		if c.err == nil {
			c.err = err
		}
		return false
	}
	return ok
}

// hasRegex reports whether a filter document holds a regex condition
// anywhere ($regex, or a regex value): its filter then takes a context
// into its matches.
func hasRegex(v value.Value) bool {
	switch v.Kind() {
	case value.Regex:
		return true
	case value.Object:
		for _, f := range v.Fields() {
			if f.Key == "$regex" || hasRegex(f.Value) {
				return true
			}
		}
	case value.Array:
		for _, e := range v.Array() {
			if hasRegex(e) {
				return true
			}
		}
	}
	return false
}
