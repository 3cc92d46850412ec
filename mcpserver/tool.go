package mcpserver

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// tool is one MCP tool. Adding a tool means writing a constructor that
// returns a *tool (its schema, annotations and Run) in a tool_<name>.go
// file and naming it in catalog.go; scope checks, argument validation,
// policy, caps, audit and the result envelope come from the server.
type tool struct {
	Name        string
	Title       string
	Description string // for a model: what it does, when to use it, an example argument
	Scope       Scope  // the least scope that lists and runs it
	Params      []param
	Output      value.Value // the outputSchema (an object schema)

	ReadOnly    bool // changes nothing
	Destructive bool // may lose data (irreversible or overwriting)
	Idempotent  bool // calling it twice with the same arguments does no more than once

	// Run does the work. Its arguments are validated against Params.
	Run func(ctx context.Context, c *call) (*output, error)

	canned bool // defined by --tools-file
}

// param is one argument of a tool. It is both the inputSchema property and
// the check the server applies before Run.
type param struct {
	Name        string
	Type        string // string, integer, number, boolean, object, array, or object|array
	Description string
	Required    bool
	Min, Max    *int64         // for integer and number
	Default     value.Value    // stated in the schema; the missing value for none
	Enum        []string       // for string
	MaxLength   int            // for string, in characters; 0 for none
	Pattern     string         // for string: an RE2 expression the whole value must match
	pattern     *regexp.Regexp // compiled Pattern
}

// output is what a tool returns on success.
type output struct {
	data value.Value // the structuredContent: an object matching the tool's outputSchema
	// docs, when set, are the JSON of the documents of data's "documents"
	// list (where data holds an empty list), spliced in by json: a page's
	// documents, in relaxed Extended JSON (encodeJSON, relaxedJSON).
	docs  [][]byte
	fence string // what the untrusted data in it is ("documents of `users`"); "" when it holds none
	// counts for the audit log; -1 when they do not apply
	returned int64
	matched  matchCount
}

// json encodes the structuredContent, with docs spliced in.
func (out *output) json() []byte {
	if out.docs == nil {
		return encodeJSON(nil, out.data)
	}
	b := []byte{'{'}
	for i, f := range out.data.Fields() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(value.AppendString(b, f.Key), ':')
		if f.Key != "documents" {
			b = encodeJSON(b, f.Value)
			continue
		}
		b = append(b, '[')
		for j, js := range out.docs {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, js...)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func newOutput(data value.Value) *output {
	return &output{data: data, returned: -1, matched: matchCount{n: -1}}
}

func i64(n int64) *int64 { return &n }

// inputSchema returns the tool's JSON Schema (2020-12) for its arguments.
func (t *tool) inputSchema() value.Value {
	props := make([]value.Field, len(t.Params))
	var required []string
	for i, p := range t.Params {
		props[i] = value.Field{Key: p.Name, Value: p.schema()}
		if p.Required {
			required = append(required, p.Name)
		}
	}
	req := value.MissingValue
	if len(required) > 0 {
		req = jv(required)
	}
	return obj("type", "object", "properties", value.ObjectValue(props), "required", req, "additionalProperties", false)
}

func (p *param) schema() value.Value {
	var typ any = p.Type
	if p.Type == objectOrArray {
		typ = []string{"object", "array"}
	}
	kv := []any{"type", typ}
	if p.Description != "" { // a name that says it all goes without one
		kv = append(kv, "description", p.Description)
	}
	if p.Min != nil {
		kv = append(kv, "minimum", *p.Min)
	}
	if p.Max != nil {
		kv = append(kv, "maximum", *p.Max)
	}
	if len(p.Enum) > 0 {
		kv = append(kv, "enum", p.Enum)
	}
	if p.MaxLength > 0 {
		kv = append(kv, "maxLength", p.MaxLength)
	}
	if p.Pattern != "" {
		kv = append(kv, "pattern", p.Pattern)
	}
	kv = append(kv, "default", p.Default)
	return obj(kv...)
}

// describe returns the tool as tools/list shows it. Every word is paid
// for on each tools/list, so what cannot apply is left out: the output
// schema's anyOf (what a success always has, or the error envelope: 55
// characters a tool that tell a model little; TestOutputRequired checks
// it instead), the
// `redacted` output property on a server that redacts nothing, and
// idempotentHint on a read-only tool (the protocol gives it meaning only
// for tools that write; destructiveHint stays, false, so that no client
// takes a read for a destructive call by its default).
func (t *tool) describe(redacts bool) value.Value {
	out := t.Output.Without("anyOf")
	if props := out.Get("properties"); !redacts && !props.Get("redacted").IsMissing() {
		out = out.With("properties", props.Without("redacted"))
	}
	idempotent := value.BoolValue(t.Idempotent)
	if t.ReadOnly {
		idempotent = value.MissingValue
	}
	return obj("name", t.Name, "title", t.Title, "description", t.Description,
		"inputSchema", t.inputSchema(), "outputSchema", out,
		"annotations", obj("readOnlyHint", t.ReadOnly, "destructiveHint", t.Destructive,
			"idempotentHint", idempotent, "openWorldHint", false),
		"_meta", obj("requiredScope", t.Scope.String()))
}

// checkArgs validates arguments against the tool's parameters and returns
// them with integers normalised to longs. Null counts as absent.
func (t *tool) checkArgs(args value.Value) (value.Value, error) {
	if args.IsMissing() || args.IsNull() {
		args = value.ObjectValue(nil)
	}
	if args.Kind() != value.Object {
		return args, errorf(CodeInvalidArgument, "arguments of `%s` must be a JSON object, got %s", t.Name, args.TypeName()).
			withHint("`%s` takes: %s", t.Name, t.paramList())
	}
	out := make([]value.Field, 0, args.Len())
	for _, f := range args.Fields() {
		p := t.param(f.Key)
		if p == nil {
			return args, t.unknownArg(f.Key)
		}
		if f.Value.IsNull() {
			continue
		}
		v, err := p.check(t.Name, f.Value)
		if err != nil {
			return args, err
		}
		out = append(out, value.Field{Key: f.Key, Value: v})
	}
	checked := value.ObjectValue(out)
	for _, p := range t.Params {
		if p.Required && checked.Get(p.Name).IsMissing() {
			return args, errorf(CodeInvalidArgument, "missing required argument `%s` of `%s`", p.Name, t.Name).
				withHint("`%s` takes: %s", t.Name, t.paramList()).withContext("tool", t.Name, "argument", p.Name)
		}
	}
	return checked, nil
}

func (t *tool) param(name string) *param {
	for i := range t.Params {
		if t.Params[i].Name == name {
			return &t.Params[i]
		}
	}
	return nil
}

func (t *tool) paramList() string {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

func (t *tool) unknownArg(name string) error {
	names := strings.Split(t.paramList(), ", ")
	return errorf(CodeInvalidArgument, "unknown argument `%s` of `%s`%s", truncate(name, 60), t.Name, errs.DidYouMean(name, names)).
		withHint("`%s` takes: %s", t.Name, t.paramList()).withContext("tool", t.Name, "argument", truncate(name, 60))
}

// check validates one argument's value.
func (p *param) check(toolName string, v value.Value) (value.Value, error) {
	bad := func(format string, args ...any) error {
		return errorf(CodeInvalidArgument, "argument `%s` of `%s` %s", p.Name, toolName, fmt.Sprintf(format, args...)).
			withHint("%s: %s", p.Name, p.hintText()).withContext("tool", toolName, "argument", p.Name)
	}
	switch p.Type {
	case "integer":
		n, ok := integer(v)
		if !ok {
			return v, bad("must be an integer, got %s", describeValue(v))
		}
		if p.Min != nil && n < *p.Min {
			return v, bad("is %d, under the minimum %d", n, *p.Min)
		}
		if p.Max != nil && n > *p.Max {
			return v, bad("is %d, over the maximum %d", n, *p.Max)
		}
		return value.LongValue(n), nil
	case "number":
		if !v.IsNumber() {
			return v, bad("must be a number, got %s", describeValue(v))
		}
		if f := v.Float(); p.Min != nil && f < float64(*p.Min) {
			return v, bad("is %v, under the minimum %d", f, *p.Min)
		}
		if f := v.Float(); p.Max != nil && f > float64(*p.Max) {
			return v, bad("is %v, over the maximum %d", f, *p.Max)
		}
	case "string":
		if v.Kind() != value.String {
			return v, bad("must be a string, got %s", describeValue(v))
		}
		return v, p.checkString(v.Str(), bad)
	case "boolean", "object", "array":
		want := map[string]value.Kind{"boolean": value.Bool, "object": value.Object, "array": value.Array}[p.Type]
		if v.Kind() != want {
			return v, bad("must be %s %s, got %s", article(p.Type), p.Type, describeValue(v))
		}
	case objectOrArray:
		if v.Kind() != value.Object && v.Kind() != value.Array {
			return v, bad("must be an object or an array, got %s", describeValue(v))
		}
	}
	return v, nil
}

// hintText describes the parameter for hints: its description, if any,
// and the values it takes.
func (p *param) hintText() string {
	if p.Description == "" {
		return p.expect()
	}
	return fmt.Sprintf("%s (%s)", strings.TrimSuffix(p.Description, "."), p.expect())
}

// expect says what values the parameter takes, for hints.
func (p *param) expect() string {
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("%s %s from %d to %d", article(p.Type), p.Type, *p.Min, *p.Max)
	case p.Min != nil:
		return fmt.Sprintf("%s %s of at least %d", article(p.Type), p.Type, *p.Min)
	case len(p.Enum) > 0:
		return "one of " + strings.Join(p.Enum, ", ")
	case p.Type == objectOrArray:
		return "an object or an array"
	}
	return article(p.Type) + " " + p.Type
}

// objectOrArray is the type of a parameter that takes either, such as an
// update (operators, a replacement, or a pipeline).
const objectOrArray = "object|array"

func (p *param) checkString(s string, bad func(string, ...any) error) error {
	if p.MaxLength > 0 && utf8.RuneCountInString(s) > p.MaxLength {
		return bad("is %d characters, over the maximum %d", utf8.RuneCountInString(s), p.MaxLength)
	}
	if len(p.Enum) > 0 && !contains(p.Enum, s) {
		return bad("is %q, not one of %s%s", truncate(s, 60), strings.Join(p.Enum, ", "), errs.DidYouMean(s, p.Enum))
	}
	if p.pattern != nil && !p.pattern.MatchString(s) {
		return bad("is %q, which does not match the pattern %s", truncate(s, 60), p.Pattern)
	}
	return nil
}

// integer accepts an int or a long, or a double with no fractional part
// (JSON Schema's integer).
func integer(v value.Value) (int64, bool) {
	switch v.Kind() {
	case value.Long, value.Int:
		return v.Long(), true
	case value.Double:
		f := v.Double()
		if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
			return int64(f), true
		}
	}
	return 0, false
}

func describeValue(v value.Value) string {
	switch v.Kind() {
	case value.String:
		return fmt.Sprintf("string %q", truncate(v.Str(), 40))
	case value.Long, value.Double, value.Int, value.Decimal:
		return "number " + v.String()
	}
	return v.TypeName()
}

func article(word string) string {
	if strings.ContainsAny(word[:1], "aeiou") {
		return "an"
	}
	return "a"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
