package expr

import (
	"context"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Expr is a compiled aggregation expression: a field path ("$a.b"), a
// variable ("$$ROOT"), an operator object ({"$add":["$a",1]}), an object
// or array of expressions, or a literal. An Expr is immutable and safe for
// concurrent use.
type Expr struct {
	n     Node
	slots int  // variable slots its evaluation needs
	now   bool // whether it reads $$NOW
}

// Compile validates and compiles an aggregation expression such as
// {"$add":["$a",1]}, "$field", or a literal. Only the system variables
// ($$ROOT, $$CURRENT, $$REMOVE, $$NOW) are defined outside $let, $map,
// $filter and $reduce.
func Compile(spec value.Value) (*Expr, error) {
	return CompileCollation(spec, nil)
}

// CompileCollation is Compile with a collation: the comparison operators
// ($eq, $ne, $gt, $gte, $lt, $lte, $cmp) compare strings by it.
func CompileCollation(spec value.Value, coll *collation.Collation) (*Expr, error) {
	c := NewCompiler()
	c.Collation = coll
	n, err := c.Compile(spec)
	if err != nil {
		return nil, err
	}
	return &Expr{n: n, slots: c.Slots, now: c.usesNow}, nil
}

// Eval evaluates the expression with root as $$ROOT and $$CURRENT. $$NOW
// is the time of the call, the same everywhere within it. The result is
// the missing value when the expression evaluates to nothing (a missing
// field, $$REMOVE).
func (e *Expr) Eval(root value.Value) (value.Value, error) {
	return e.EvalContext(nil, root, time.Time{})
}

// EvalAt is Eval with $$NOW fixed to now, so that one query or one
// pipeline run sees a single $$NOW, as in MongoDB.
func (e *Expr) EvalAt(root value.Value, now time.Time) (value.Value, error) {
	return e.EvalContext(nil, root, now)
}

// EvalContext is EvalAt that stops when ctx is done: the evaluation
// consults ctx every CheckEvery steps (see EvalCtx) and then returns its
// error, unwrapped. A nil ctx is never done.
func (e *Expr) EvalContext(ctx context.Context, root value.Value, now time.Time) (value.Value, error) {
	c := &EvalCtx{Root: root, Vars: make([]value.Value, e.slots), Ctx: ctx}
	if e.now {
		if now.IsZero() {
			now = time.Now()
		}
		c.Now = value.DateValue(now.UnixMilli())
	}
	c.Vars[0] = root
	return e.n.Eval(c)
}

// Node is one compiled node of an expression tree.
type Node interface {
	Eval(c *EvalCtx) (value.Value, error)
}

// EvalCtx is what an expression reads while evaluating: $$ROOT, the
// variable slots (slot 0 is $$CURRENT), and $$NOW. One evaluation at a
// time may use it.
//
// It also paces the evaluation. Operators count steps, about one per
// array element, object field or 16 string bytes they read or build, and
// one per operator applied; every CheckEvery steps the evaluation
// consults Ctx and stops with Ctx.Err() once it is done. So a deadline
// holds inside one costly evaluation ($range, $map, $reduce, regular
// expressions on long strings, …), while a cheap one never looks at Ctx.
type EvalCtx struct {
	Root  value.Value     // $$ROOT
	Vars  []value.Value   // the variables by slot (Compiler.Slots long); slot 0 is $$CURRENT
	Now   value.Value     // $$NOW, a date
	Work  int64           // units of work done by this evaluation, against MaxEvalWork
	Ctx   context.Context // consulted every CheckEvery steps; may be nil
	steps int64           // steps since Ctx was last consulted
}

// MaxEvalWork bounds the work of one evaluation of an expression: the
// values its operators build, about 64 units per array element or object
// field and 4 per string byte. {"$map":{"input":{"$range":…},"in":{"$range":…}}}
// then fails cleanly instead of exhausting memory.
const MaxEvalWork = 1 << 28

// CheckEvery is the number of steps between two looks at EvalCtx.Ctx.
// A step costs from a few to a few hundred nanoseconds, so a done context
// is seen within about a millisecond at most, for about 3 ns per 1024
// steps.
const CheckEvery = 1 << 10

// spend charges the size of a value an operator built, against
// MaxEvalWork, and counts its steps.
func (c *EvalCtx) spend(v value.Value) error {
	switch v.Kind() {
	case value.String:
		return c.charge(4 * int64(len(v.Str())))
	case value.Array, value.Object:
		return c.charge(64 * int64(v.Len()))
	}
	return c.tick(1)
}

// charge charges units of work against MaxEvalWork, and counts a step
// per 64 of them. Operators that know the size of what they will build
// charge it before they allocate it.
func (c *EvalCtx) charge(units int64) error {
	if c.Work += units; c.Work > MaxEvalWork {
		return errs.Errorf(errs.Limit, "expression evaluation exceeded its work limit (%d units: about 4 million array elements or 64 MiB of strings built)", int64(MaxEvalWork)).
			WithHint("work on smaller arrays or strings; $range, $map and $reduce over large inputs multiply quickly")
	}
	return c.tick(units / 64)
}

// tick counts n steps and, every CheckEvery steps, consults Ctx.
func (c *EvalCtx) tick(n int64) error {
	if c.steps += n; c.steps < CheckEvery {
		return nil
	}
	c.steps = 0
	if c.Ctx == nil {
		return nil
	}
	return c.Ctx.Err()
}

// tickRead counts the steps of reading v: its elements or fields, or its
// bytes in 16s.
func (c *EvalCtx) tickRead(v value.Value) error {
	switch v.Kind() {
	case value.String:
		return c.tick(1 + int64(len(v.Str())>>4))
	case value.Array, value.Object:
		return c.tick(1 + int64(v.Len()))
	}
	return c.tick(1)
}

// Literal is a constant value.
type Literal struct{ Value value.Value }

// Eval returns the constant.
func (n Literal) Eval(*EvalCtx) (value.Value, error) { return n.Value, nil }

// Var reads a variable (slot), or $$ROOT (slot -1), then follows path.
type Var struct {
	Slot int      // the variable's slot in EvalCtx.Vars; -1 for $$ROOT
	Path []string // the fields followed from the variable's value
}

// Eval returns the variable's value at Path.
func (n *Var) Eval(c *EvalCtx) (value.Value, error) {
	v := c.Root
	if n.Slot >= 0 {
		v = c.Vars[n.Slot]
	}
	if len(n.Path) == 0 {
		return v, nil
	}
	out := WalkPath(v, n.Path)
	if out.Kind() == value.Array { // walked through arrays: charge their elements
		return out, c.tick(int64(out.Len()))
	}
	return out, nil
}

// WalkPath follows a field path with aggregation semantics: through an
// array it maps over the elements that are objects, dropping the others
// and the elements where the rest of the path is missing. Numeric
// components are field names, never array indexes.
func WalkPath(v value.Value, path []string) value.Value {
	switch v.Kind() {
	case value.Object:
		next := v.Get(path[0])
		if len(path) == 1 {
			return next
		}
		return WalkPath(next, path[1:])
	case value.Array:
		out := make([]value.Value, 0, v.Len())
		for _, e := range v.Array() {
			if e.Kind() != value.Object {
				continue
			}
			if r := WalkPath(e, path); !r.IsMissing() {
				out = append(out, r)
			}
		}
		return value.ArrayValue(out)
	}
	return value.MissingValue
}

// nowNode is $$NOW.
type nowNode struct{}

func (nowNode) Eval(c *EvalCtx) (value.Value, error) { return c.Now, nil }

// objNode builds an object; fields that evaluate to missing are left out.
type objNode struct {
	keys []string
	vals []Node
}

func (n *objNode) Eval(c *EvalCtx) (value.Value, error) {
	fields := make([]value.Field, 0, len(n.keys))
	for i, k := range n.keys {
		v, err := n.vals[i].Eval(c)
		if err != nil {
			return value.Value{}, err
		}
		if !v.IsMissing() {
			fields = append(fields, value.Field{Key: k, Value: v})
		}
	}
	out := value.ObjectValue(fields)
	return out, c.spend(out)
}

// arrNode builds an array; elements that evaluate to missing become null.
type arrNode struct{ elems []Node }

func (n *arrNode) Eval(c *EvalCtx) (value.Value, error) {
	out := make([]value.Value, len(n.elems))
	for i, e := range n.elems {
		v, err := evalElem(e, c)
		if err != nil {
			return value.Value{}, err
		}
		out[i] = v
	}
	return value.ArrayValue(out), c.spend(value.ArrayValue(out))
}

// evalElem evaluates an array element: missing becomes null.
func evalElem(e Node, c *EvalCtx) (value.Value, error) {
	v, err := e.Eval(c)
	if v.IsMissing() {
		v = value.NullValue()
	}
	return v, err
}

// Compiler holds the state of one compilation: the variables in
// scope and the number of slots handed out. One Compiler serves a
// whole pipeline, so that slots are unique across its stages and
// sub-pipelines.
type Compiler struct {
	scope   *scopeVar
	Slots   int // slots handed out so far: the length EvalCtx.Vars needs
	usesNow bool
	// Collation, when set, is the pipeline's collation: the comparison
	// operators ($eq, $ne, $gt, $gte, $lt, $lte, $cmp) and the $min, $max
	// and $addToSet accumulators compare strings by it, and the stages
	// that compare ($match, $sort, $group) read it. The other operators
	// ($in, set operators, $indexOfArray, …) compare binary
	// (docs/differences.md).
	Collation *collation.Collation
}

// scopeVar is one variable in scope; slot -1 is $$ROOT.
type scopeVar struct {
	name string
	slot int
	next *scopeVar
}

// NewCompiler returns a compiler with $$CURRENT (slot 0) and $$ROOT in
// scope.
func NewCompiler() *Compiler {
	c := &Compiler{Slots: 1}
	c.scope = &scopeVar{name: "CURRENT", slot: 0, next: &scopeVar{name: "ROOT", slot: -1}}
	return c
}

// Bind defines a variable for the duration of a nested compile; the
// returned function restores the previous scope.
func (c *Compiler) Bind(name string) (slot int, restore func()) {
	saved := c.scope
	slot = c.Slots
	c.Slots++
	c.scope = &scopeVar{name: name, slot: slot, next: saved}
	return slot, func() { c.scope = saved }
}

func (c *Compiler) lookup(name string) (int, bool) {
	for s := c.scope; s != nil; s = s.next {
		if s.name == name {
			return s.slot, true
		}
	}
	return 0, false
}

// Compile compiles one expression.
func (c *Compiler) Compile(spec value.Value) (Node, error) {
	switch spec.Kind() {
	case value.String:
		s := spec.Str()
		if strings.HasPrefix(s, "$") {
			return c.path(s)
		}
	case value.Array:
		elems := make([]Node, len(spec.Array()))
		for i, e := range spec.Array() {
			n, err := c.Compile(e)
			if err != nil {
				return nil, err
			}
			elems[i] = n
		}
		return &arrNode{elems}, nil
	case value.Object:
		return c.object(spec)
	}
	return Literal{spec}, nil
}

func (c *Compiler) object(spec value.Value) (Node, error) {
	fields := spec.Fields()
	if len(fields) > 0 && strings.HasPrefix(fields[0].Key, "$") {
		if len(fields) != 1 {
			return nil, errs.Errorf(errs.Invalid, "an expression specification must contain exactly one field, the name of the expression; found %d fields in %s", len(fields), spec).
				WithHint("wrap each operator in its own object, or use $literal for an object whose first key starts with '$'")
		}
		return c.operator(fields[0].Key, fields[0].Value)
	}
	n := &objNode{}
	for _, f := range fields {
		if err := checkExprField(f.Key); err != nil {
			return nil, err
		}
		v, err := c.Compile(f.Value)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, f.Key)
		n.vals = append(n.vals, v)
	}
	return n, nil
}

// checkExprField rejects field names an expression object cannot define.
func checkExprField(k string) error {
	switch {
	case k == "":
		return errs.Errorf(errs.Invalid, "field names in an expression object may not be empty")
	case strings.HasPrefix(k, "$"):
		return errs.Errorf(errs.Invalid, "field name %q in an expression object may not start with '$'", k).
			WithHint("an operator must be the only key of its object; use $literal for literal keys")
	case strings.Contains(k, "."):
		return errs.Errorf(errs.Invalid, "field name %q in an expression object may not contain '.'", k).
			WithHint(`nest objects instead: {"a":{"b":…}}`)
	}
	return nil
}

// path compiles "$a.b", "$$var" and "$$var.a.b".
func (c *Compiler) path(s string) (Node, error) {
	if strings.HasPrefix(s, "$$") {
		name, rest, dotted := strings.Cut(s[2:], ".")
		var path []string
		if dotted {
			var err error
			if path, err = SplitPath(s, rest); err != nil {
				return nil, err
			}
		}
		return c.variable(name, path)
	}
	path, err := SplitPath(s, s[1:])
	if err != nil {
		return nil, err
	}
	slot, _ := c.lookup("CURRENT")
	return &Var{Slot: slot, Path: path}, nil
}

// SplitPath splits the field path rest, written as whole ("$a.b" or
// "$$var.a.b"), into its fields, and rejects an empty path or field and
// a field that starts with '$'.
func SplitPath(whole, rest string) ([]string, error) {
	if rest == "" {
		return nil, errs.Errorf(errs.Invalid, "'%s' is not a valid field path: it names no field", whole).
			WithHint(`write "$field" or "$field.sub"; use {"$literal":"%s"} for the string itself`, whole)
	}
	parts := strings.Split(rest, ".")
	for _, p := range parts {
		switch {
		case p == "":
			return nil, errs.Errorf(errs.Invalid, "field path %q has an empty field name", whole)
		case strings.HasPrefix(p, "$"):
			return nil, errs.Errorf(errs.Invalid, "field path %q: field names may not start with '$'", whole)
		}
	}
	return parts, nil
}

// systemVars are the variables every expression may read.
var systemVars = []string{"ROOT", "CURRENT", "REMOVE", "NOW", "DESCEND", "PRUNE", "KEEP"}

func (c *Compiler) variable(name string, path []string) (Node, error) {
	if slot, ok := c.lookup(name); ok {
		return &Var{Slot: slot, Path: path}, nil
	}
	switch name {
	case "REMOVE":
		return Literal{value.MissingValue}, nil
	case "NOW":
		c.usesNow = true
		if len(path) > 0 {
			return Literal{value.MissingValue}, nil
		}
		return nowNode{}, nil
	case "DESCEND", "PRUNE", "KEEP":
		return Literal{value.StringValue(strings.ToLower(name))}, nil
	case "CLUSTER_TIME", "USER_ROLES", "SEARCH_META":
		return nil, errs.Errorf(errs.Invalid, "$$%s is not supported: omgdb has no cluster, users or search metadata", name)
	case "":
		return nil, errs.Errorf(errs.Invalid, "'$$' is not a valid variable reference: it names no variable")
	}
	var names []string
	for s := c.scope; s != nil; s = s.next {
		names = append(names, s.name)
	}
	return nil, errs.Errorf(errs.Invalid, "use of undefined variable: %s%s", name, errs.DidYouMean(name, append(names, systemVars...))).
		WithHint("define it with $let (or $map/$filter \"as\", or $lookup \"let\"); system variables are $$ROOT, $$CURRENT, $$REMOVE and $$NOW")
}

// CheckVarName enforces MongoDB's rule for user variable names: a
// lowercase ASCII letter or a non-ASCII character first, then letters,
// digits and underscores.
func CheckVarName(name string) error {
	if name == "" {
		return errs.Errorf(errs.Invalid, "empty variable names are not allowed")
	}
	for i, r := range name {
		ok := r >= 0x80 || (r >= 'a' && r <= 'z') ||
			(i > 0 && ((r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_'))
		if !ok {
			if i == 0 {
				return errs.Errorf(errs.Invalid, "'%s' starts with an invalid character for a user variable name", name).
					WithHint("variable names start with a lowercase letter")
			}
			return errs.Errorf(errs.Invalid, "'%s' contains an invalid character for a variable name: '%c'", name, r)
		}
	}
	return nil
}

// operator compiles {"$op": arg}.
func (c *Compiler) operator(name string, arg value.Value) (Node, error) {
	compile, ok := exprOps()[name]
	if !ok {
		return nil, UnknownOperator(name, "", exprOpNames())
	}
	return compile(c, name, arg)
}

// UnknownOperator is the did-you-mean error for an unknown operator; kind
// is "stage", "accumulator" or "" (expression).
func UnknownOperator(name, kind string, candidates []string) *errs.Error {
	what := ""
	if kind != "" {
		what = " (" + kind + ")"
	}
	list := map[string]string{"": "operators", "stage": "stages", "accumulator": "accumulators"}[kind]
	return errs.Errorf(errs.Invalid, "unknown aggregation operator: %s%s%s", name, what, errs.DidYouMean(name, candidates)).
		WithHint("see `omgdb docs aggregation` for the supported %s", list)
}
