package expr

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
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
	input, pattern Node
	options        Node
	fixed          *regexp.Regexp // compiled once when pattern and options are literals
	apply          regexApply
}

// regexApply applies one of the operators: re is nil when the regex is
// null or missing, and ctx interrupts a match over a long input.
type regexApply func(ctx context.Context, re *regexp.Regexp, in value.Value) (value.Value, error)

func regexOp(apply regexApply) opCompiler {
	return func(c *Compiler, name string, arg value.Value) (Node, error) {
		// Every argument may be absent, as in MongoDB: a missing input or
		// regex gives no match, like null.
		m, err := c.Named(name, arg, nil, []string{"input", "regex", "options"})
		if err != nil {
			return nil, err
		}
		n := &regexNode{op: name, input: m["input"], pattern: m["regex"], options: m["options"], apply: apply}
		if n.input == nil {
			n.input = Literal{Value: value.MissingValue}
		}
		if n.pattern == nil {
			n.pattern = Literal{Value: value.MissingValue}
		}
		p, pok := n.pattern.(Literal)
		o, ook := n.options.(Literal)
		switch {
		case pok && (n.options == nil || ook) && !Nullish(p.Value):
			if n.fixed, err = compileExprRegex(name, p.Value, o.Value); err != nil {
				return nil, err
			}
		case ook && !Nullish(o.Value):
			// bad options are an error even with no regex to apply them to
			if _, err = compileExprRegex(name, value.StringValue(""), o.Value); err != nil {
				return nil, err
			}
		}
		return n, nil
	}
}

func (n *regexNode) Eval(c *EvalCtx) (value.Value, error) {
	in, err := n.input.Eval(c)
	if err != nil {
		return value.Value{}, err
	}
	if !Nullish(in) && in.Kind() != value.String {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s needs 'input' to be of type string, found %s", n.op, in.TypeName())
	}
	re := n.fixed
	if re == nil {
		p, err := n.pattern.Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		o, err := evalOpt(n.options, c)
		if err != nil {
			return value.Value{}, err
		}
		if Nullish(p) {
			return n.apply(nil, nil, value.MissingValue)
		}
		if re, err = compileExprRegex(n.op, p, o); err != nil {
			return value.Value{}, err
		}
	}
	if Nullish(in) {
		return n.apply(nil, nil, value.MissingValue)
	}
	if err := c.tickRead(in); err != nil {
		return value.Value{}, err
	}
	return n.apply(c.Ctx, re, in)
}

// compileExprRegex checks the types of an operator's regex and options
// and compiles them with CompileRegex (RE2, flags i, m, s, x, u, at most
// MaxRegexLength bytes), naming op in errors.
func compileExprRegex(op string, pattern, options value.Value) (*regexp.Regexp, error) {
	if pattern.Kind() != value.String && pattern.Kind() != value.Regex {
		return nil, errs.Errorf(errs.Invalid, "%s needs 'regex' to be of type string or regex, found %s", op, pattern.TypeName())
	}
	if !Nullish(options) && options.Kind() != value.String {
		return nil, errs.Errorf(errs.Invalid, "%s needs 'options' to be of type string, found %s", op, options.TypeName())
	}
	if strings.IndexByte(options.Str(), 0) >= 0 {
		return nil, errs.Errorf(errs.Invalid, "%s: 'options' cannot contain an embedded null byte", op).
			WithHint("the flags are i, m, s and x")
	}
	src, flags := pattern.Str(), options.Str()
	if pattern.Kind() == value.Regex { // a regex value brings its own flags
		src = pattern.Pattern()
		if pattern.Options() != "" && !Nullish(options) {
			return nil, errs.Errorf(errs.Invalid, "%s: options set in both 'regex' and 'options'", op).
				WithHint("write the flags once: in the regex value, or in 'options'")
		}
		if pattern.Options() != "" {
			flags = pattern.Options()
		}
	}
	if strings.IndexByte(src, 0) >= 0 {
		return nil, errs.Errorf(errs.Invalid, "%s: 'regex' cannot contain an embedded null byte", op).
			WithHint("remove the null byte from the pattern")
	}
	re, err := CompileRegex(src, flags)
	var e *errs.Error
	if err != nil && errors.As(err, &e) {
		msg := strings.TrimPrefix(e.Message, "malformed query: ")
		if rest, ok := strings.CutPrefix(msg, "$regex"); ok {
			msg = op + rest
		} else {
			msg = op + ": " + msg
		}
		return nil, &errs.Error{Kind: e.Kind, Message: msg, Hint: e.Hint}
	}
	return re, err
}

func regexMatch(ctx context.Context, re *regexp.Regexp, in value.Value) (value.Value, error) {
	if re == nil {
		return value.BoolValue(false), nil
	}
	ok, err := MatchRegex(ctx, re, in.Str())
	return value.BoolValue(ok), err
}

func regexFind(ctx context.Context, re *regexp.Regexp, in value.Value) (value.Value, error) {
	if re == nil {
		return value.NullValue(), nil
	}
	s := in.Str()
	loc, err := findRegex(ctx, re, s)
	if err != nil || loc == nil {
		return value.NullValue(), err
	}
	return matchObject(s, loc, utf8.RuneCountInString(s[:loc[0]])), nil
}

func regexFindAll(ctx context.Context, re *regexp.Regexp, in value.Value) (value.Value, error) {
	out := []value.Value{}
	if re == nil {
		return value.ArrayValue(out), nil
	}
	s := in.Str()
	locs, err := findAllRegex(ctx, re, s)
	if err != nil {
		return value.Value{}, err
	}
	if n := len(locs); n > 0 && len(s) > 0 && locs[n-1][0] == len(s) {
		locs = locs[:n-1] // MongoDB stops once it reaches the end of a non-empty input
	}
	cp, last := 0, 0
	for _, loc := range locs {
		cp += utf8.RuneCountInString(s[last:loc[0]])
		last = loc[0]
		out = append(out, matchObject(s, loc, cp))
	}
	return value.ArrayValue(out), nil
}

// matchObject is {match, idx, captures}; unmatched groups are null.
func matchObject(s string, loc []int, idx int) value.Value {
	captures := make([]value.Value, 0, len(loc)/2-1)
	for g := 2; g < len(loc); g += 2 {
		if loc[g] < 0 {
			captures = append(captures, value.NullValue())
		} else {
			captures = append(captures, value.StringValue(s[loc[g]:loc[g+1]]))
		}
	}
	return value.ObjectValue([]value.Field{
		{Key: "match", Value: value.StringValue(s[loc[0]:loc[1]])},
		{Key: "idx", Value: value.LongValue(int64(idx))},
		{Key: "captures", Value: value.ArrayValue(captures)},
	})
}
