package query

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"
)

// $regexMatch, $regexFind and $regexFindAll, on Go's RE2 engine.

func registerExprRegexOps() {
	registerOps(map[string]opCompiler{
		"$regexMatch":   regexOp(regexMatch),
		"$regexFind":    regexOp(regexFind),
		"$regexFindAll": regexOp(regexFindAll),
	})
}

type regexNode struct {
	op             string
	input, pattern expression
	options        expression
	fixed          *regexp.Regexp // compiled once when pattern and options are literals
	apply          func(re *regexp.Regexp, in Value) Value
}

func regexOp(apply func(*regexp.Regexp, Value) Value) opCompiler {
	return func(c *exprCompiler, name string, arg Value) (expression, error) {
		m, err := c.named(name, arg, []string{"input", "regex"}, []string{"options"})
		if err != nil {
			return nil, err
		}
		n := &regexNode{op: name, input: m["input"], pattern: m["regex"], options: m["options"], apply: apply}
		p, pok := n.pattern.(literal)
		o, ook := n.options.(literal)
		if pok && (n.options == nil || ook) && !nullish(p.v) {
			if n.fixed, err = compileExprRegex(name, p.v, o.v); err != nil {
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
		if re, err = compileExprRegex(n.op, p, o); err != nil {
			return Value{}, err
		}
	}
	if nullish(in) {
		return n.apply(nil, MissingValue), nil
	}
	return n.apply(re, in), nil
}

// compileExprRegex checks the types of an operator's regex and options
// and compiles them with the filter language's compileRegex (RE2, flags
// i, m, s, x, u, at most MaxRegexLength bytes), naming op in errors.
func compileExprRegex(op string, pattern, options Value) (*regexp.Regexp, error) {
	if pattern.Kind() != String {
		return nil, Errorf(Invalid, "%s needs 'regex' to be of type string, found %s", op, pattern.TypeName())
	}
	if !nullish(options) && options.Kind() != String {
		return nil, Errorf(Invalid, "%s needs 'options' to be of type string, found %s", op, options.TypeName())
	}
	re, err := compileRegex(pattern.Str(), options.Str())
	var e *Error
	if err != nil && errors.As(err, &e) {
		msg := strings.TrimPrefix(e.Message, "malformed query: ")
		if rest, ok := strings.CutPrefix(msg, "$regex"); ok {
			msg = op + rest
		} else {
			msg = op + ": " + msg
		}
		return nil, &Error{Kind: e.Kind, Message: msg, Hint: e.Hint}
	}
	return re, err
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
