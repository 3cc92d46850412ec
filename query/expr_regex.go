package query

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// $regexMatch, $regexFind and $regexFindAll, on Go's RE2 engine.

// MaxRegexLength is the longest regular expression accepted, in bytes.
const MaxRegexLength = 1024

func init() {
	registerOps(map[string]opCompiler{
		"$regexMatch":   regexOp(regexMatch),
		"$regexFind":    regexOp(regexFind),
		"$regexFindAll": regexOp(regexFindAll),
	})
}

type regexNode struct {
	op             string
	input, pattern node
	options        node
	fixed          *regexp.Regexp // compiled once when pattern and options are literals
	apply          func(re *regexp.Regexp, in Value) Value
}

func regexOp(apply func(*regexp.Regexp, Value) Value) opCompiler {
	return func(c *compiler, name string, arg Value) (node, error) {
		m, err := c.named(name, arg, []string{"input", "regex"}, []string{"options"})
		if err != nil {
			return nil, err
		}
		n := &regexNode{op: name, input: m["input"], pattern: m["regex"], options: m["options"], apply: apply}
		p, pok := n.pattern.(constNode)
		o, ook := n.options.(constNode)
		if pok && (n.options == nil || ook) && !nullish(p.v) {
			if n.fixed, err = compileRegex(name, p.v, o.v); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
}

func (n *regexNode) eval(c *evalCtx) (Value, error) {
	in, err := n.input.eval(c)
	if err != nil {
		return Value{}, err
	}
	if !nullish(in) && in.Kind() != String {
		return Value{}, Errorf(Invalid, "%s needs 'input' to be of type string, found %s", n.op, in.TypeName())
	}
	re := n.fixed
	if re == nil {
		p, err := n.pattern.eval(c)
		if err != nil {
			return Value{}, err
		}
		o, err := evalOpt(n.options, c)
		if err != nil {
			return Value{}, err
		}
		if nullish(p) {
			return n.apply(nil, MissingValue), nil
		}
		if re, err = compileRegex(n.op, p, o); err != nil {
			return Value{}, err
		}
	}
	if nullish(in) {
		return n.apply(nil, MissingValue), nil
	}
	return n.apply(re, in), nil
}

// compileRegex compiles a pattern with MongoDB's options i, m, s, x (and u,
// which RE2 always has).
func compileRegex(op string, pattern, options Value) (*regexp.Regexp, error) {
	if pattern.Kind() != String {
		return nil, Errorf(Invalid, "%s needs 'regex' to be of type string, found %s", op, pattern.TypeName())
	}
	if !nullish(options) && options.Kind() != String {
		return nil, Errorf(Invalid, "%s needs 'options' to be of type string, found %s", op, options.TypeName())
	}
	p := pattern.Str()
	if len(p) > MaxRegexLength {
		return nil, Errorf(Limit, "%s: regular expression is %d bytes, over the %d-byte limit", op, len(p), MaxRegexLength).
			WithHint("shorten the pattern")
	}
	flags := ""
	for _, o := range options.Str() {
		switch o {
		case 'i', 'm', 's':
			flags += string(o)
		case 'x':
			p = stripExtended(p)
		case 'u':
		default:
			return nil, Errorf(Invalid, "%s: invalid flag in regex options: %c", op, o).WithHint("use i, m, s, x or u")
		}
	}
	if flags != "" {
		p = "(?" + flags + ")" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, Errorf(Invalid, "%s: invalid regular expression %q: %s", op, pattern.Str(), strings.TrimPrefix(err.Error(), "error parsing regexp: ")).
			WithHint("omgdb uses RE2 syntax: no backreferences or lookaround")
	}
	return re, nil
}

// stripExtended implements the x option: unescaped white space and
// #-comments outside character classes are removed.
func stripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '\\' && i+1 < len(p):
			b.WriteByte(ch)
			b.WriteByte(p[i+1])
			i++
		case inClass:
			inClass = ch != ']'
			b.WriteByte(ch)
		case ch == '[':
			inClass = true
			b.WriteByte(ch)
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v':
		case ch == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func regexMatch(re *regexp.Regexp, in Value) Value {
	return BoolValue(re != nil && re.MatchString(in.Str()))
}

func regexFind(re *regexp.Regexp, in Value) Value {
	if re == nil {
		return NullValue()
	}
	s := in.Str()
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return NullValue()
	}
	return matchObject(s, loc, utf8.RuneCountInString(s[:loc[0]]))
}

func regexFindAll(re *regexp.Regexp, in Value) Value {
	out := []Value{}
	if re == nil {
		return ArrayValue(out)
	}
	s := in.Str()
	cp, last := 0, 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
		cp += utf8.RuneCountInString(s[last:loc[0]])
		last = loc[0]
		out = append(out, matchObject(s, loc, cp))
	}
	return ArrayValue(out)
}

// matchObject is {match, idx, captures}; unmatched groups are null.
func matchObject(s string, loc []int, idx int) Value {
	captures := make([]Value, 0, len(loc)/2-1)
	for g := 2; g < len(loc); g += 2 {
		if loc[g] < 0 {
			captures = append(captures, NullValue())
		} else {
			captures = append(captures, StringValue(s[loc[g]:loc[g+1]]))
		}
	}
	return ObjectValue([]Field{
		{"match", StringValue(s[loc[0]:loc[1]])},
		{"idx", LongValue(int64(idx))},
		{"captures", ArrayValue(captures)},
	})
}
