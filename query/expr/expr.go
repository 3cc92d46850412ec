package query

import (
	"context"
	"strings"
	"time"
)

// Expr is a compiled aggregation expression: a field path ("$a.b"), a
// variable ("$$ROOT"), an operator object ({"$add":["$a",1]}), an object
// or array of expressions, or a literal. An Expr is immutable and safe for
// concurrent use.
type Expr struct {
	n     expression
	slots int  // variable slots its evaluation needs
	now   bool // whether it reads $$NOW
}

// CompileExpr validates and compiles an aggregation expression such as
// {"$add":["$a",1]}, "$field", or a literal. Only the system variables
// ($$ROOT, $$CURRENT, $$REMOVE, $$NOW) are defined outside $let, $map,
// $filter and $reduce.
func CompileExpr(spec Value) (*Expr, error) {
	c := newExprCompiler()
	n, err := c.expr(spec)
	if err != nil {
		return nil, err
	}
	return &Expr{n: n, slots: c.slots, now: c.usesNow}, nil
}

// Eval evaluates the expression with root as $$ROOT and $$CURRENT. $$NOW
// is the time of the call, the same everywhere within it. The result is
// the missing value when the expression evaluates to nothing (a missing
// field, $$REMOVE).
func (e *Expr) Eval(root Value) (Value, error) {
	var now time.Time
	if e.now {
		now = time.Now()
	}
	return e.EvalAt(root, now)
}

// EvalAt is Eval with $$NOW fixed to now, so that one query or one
// pipeline run sees a single $$NOW, as in MongoDB.
func (e *Expr) EvalAt(root Value, now time.Time) (Value, error) {
	c := &evalCtx{root: root, vars: make([]Value, e.slots), now: DateValue(now.UnixMilli())}
	c.vars[0] = root
	return e.n.eval(c)
}

// expression is one compiled node of an expression tree.
type expression interface {
	eval(c *evalCtx) (Value, error)
}

// evalCtx is what an expression reads while evaluating: $$ROOT, the
// variable slots (slot 0 is $$CURRENT), and $$NOW.
type evalCtx struct {
	root Value
	vars []Value
	now  Value
	work int64           // units of work done by this evaluation, against MaxEvalWork
	ctx  context.Context // checked now and then during long evaluations; may be nil
}

// MaxEvalWork bounds the work of one evaluation of an expression: the
// values its operators build, about 64 units per array element or object
// field and 4 per string byte. {"$map":{"input":{"$range":…},"in":{"$range":…}}}
// then fails cleanly instead of exhausting memory.
const MaxEvalWork = 1 << 28

// spend charges the size of a value an operator built, and checks for
// cancellation every 16 million units.
func (c *evalCtx) spend(v Value) error {
	before := c.work
	switch v.Kind() {
	case String:
		c.work += 4 * int64(len(v.Str()))
	case Array, Object:
		c.work += 64 * int64(v.Len())
	default:
		return nil
	}
	if c.work > MaxEvalWork {
		return Errorf(Limit, "expression evaluation exceeded its work limit (%d units: about 4 million array elements or 64 MiB of strings built)", int64(MaxEvalWork)).
			WithHint("work on smaller arrays or strings; $range, $map and $reduce over large inputs multiply quickly")
	}
	if c.ctx != nil && before>>24 != c.work>>24 {
		return c.ctx.Err()
	}
	return nil
}

// literal is a constant value.
type literal struct{ v Value }

func (n literal) eval(*evalCtx) (Value, error) { return n.v, nil }

// varNode reads a variable (slot), or $$ROOT (slot -1), then follows path.
type varNode struct {
	slot int
	path []string
}

func (n *varNode) eval(c *evalCtx) (Value, error) {
	v := c.root
	if n.slot >= 0 {
		v = c.vars[n.slot]
	}
	if len(n.path) == 0 {
		return v, nil
	}
	return walkPath(v, n.path), nil
}

// walkPath follows a field path with aggregation semantics: through an
// array it maps over the elements that are objects, dropping the others
// and the elements where the rest of the path is missing. Numeric
// components are field names, never array indexes.
func walkPath(v Value, path []string) Value {
	switch v.Kind() {
	case Object:
		next := v.Get(path[0])
		if len(path) == 1 {
			return next
		}
		return walkPath(next, path[1:])
	case Array:
		out := make([]Value, 0, v.Len())
		for _, e := range v.Array() {
			if e.Kind() != Object {
				continue
			}
			if r := walkPath(e, path); !r.IsMissing() {
				out = append(out, r)
			}
		}
		return ArrayValue(out)
	}
	return MissingValue
}

// nowNode is $$NOW.
type nowNode struct{}

func (nowNode) eval(c *evalCtx) (Value, error) { return c.now, nil }

// objNode builds an object; fields that evaluate to missing are left out.
type objNode struct {
	keys []string
	vals []expression
}

func (n *objNode) eval(c *evalCtx) (Value, error) {
	fields := make([]Field, 0, len(n.keys))
	for i, k := range n.keys {
		v, err := n.vals[i].eval(c)
		if err != nil {
			return Value{}, err
		}
		if !v.IsMissing() {
			fields = append(fields, Field{k, v})
		}
	}
	out := ObjectValue(fields)
	return out, c.spend(out)
}

// arrNode builds an array; elements that evaluate to missing become null.
type arrNode struct{ elems []expression }

func (n *arrNode) eval(c *evalCtx) (Value, error) {
	out := make([]Value, len(n.elems))
	for i, e := range n.elems {
		v, err := evalElem(e, c)
		if err != nil {
			return Value{}, err
		}
		out[i] = v
	}
	return ArrayValue(out), c.spend(ArrayValue(out))
}

// evalElem evaluates an array element: missing becomes null.
func evalElem(e expression, c *evalCtx) (Value, error) {
	v, err := e.eval(c)
	if v.IsMissing() {
		v = NullValue()
	}
	return v, err
}

// exprCompiler holds the state of one compilation: the variables in
// scope and the number of slots handed out. One exprCompiler serves a
// whole pipeline, so that slots are unique across its stages and
// sub-pipelines.
type exprCompiler struct {
	scope   *scopeVar
	slots   int
	usesNow bool
}

// scopeVar is one variable in scope; slot -1 is $$ROOT.
type scopeVar struct {
	name string
	slot int
	next *scopeVar
}

func newExprCompiler() *exprCompiler {
	c := &exprCompiler{slots: 1}
	c.scope = &scopeVar{name: "CURRENT", slot: 0, next: &scopeVar{name: "ROOT", slot: -1}}
	return c
}

// bind defines a variable for the duration of a nested compile; the
// returned function restores the previous scope.
func (c *exprCompiler) bind(name string) (slot int, restore func()) {
	saved := c.scope
	slot = c.slots
	c.slots++
	c.scope = &scopeVar{name: name, slot: slot, next: saved}
	return slot, func() { c.scope = saved }
}

func (c *exprCompiler) lookup(name string) (int, bool) {
	for s := c.scope; s != nil; s = s.next {
		if s.name == name {
			return s.slot, true
		}
	}
	return 0, false
}

// expr compiles one expression.
func (c *exprCompiler) expr(spec Value) (expression, error) {
	switch spec.Kind() {
	case String:
		s := spec.Str()
		if strings.HasPrefix(s, "$") {
			return c.path(s)
		}
	case Array:
		elems := make([]expression, len(spec.Array()))
		for i, e := range spec.Array() {
			n, err := c.expr(e)
			if err != nil {
				return nil, err
			}
			elems[i] = n
		}
		return &arrNode{elems}, nil
	case Object:
		return c.object(spec)
	}
	return literal{spec}, nil
}

func (c *exprCompiler) object(spec Value) (expression, error) {
	fields := spec.Fields()
	if len(fields) > 0 && strings.HasPrefix(fields[0].Key, "$") {
		if len(fields) != 1 {
			return nil, Errorf(Invalid, "an expression specification must contain exactly one field, the name of the expression; found %d fields in %s", len(fields), spec).
				WithHint("wrap each operator in its own object, or use $literal for an object whose first key starts with '$'")
		}
		return c.operator(fields[0].Key, fields[0].Value)
	}
	n := &objNode{}
	for _, f := range fields {
		if err := checkExprField(f.Key); err != nil {
			return nil, err
		}
		v, err := c.expr(f.Value)
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
		return Errorf(Invalid, "field names in an expression object may not be empty")
	case strings.HasPrefix(k, "$"):
		return Errorf(Invalid, "field name %q in an expression object may not start with '$'", k).
			WithHint("an operator must be the only key of its object; use $literal for literal keys")
	case strings.Contains(k, "."):
		return Errorf(Invalid, "field name %q in an expression object may not contain '.'", k).
			WithHint(`nest objects instead: {"a":{"b":…}}`)
	}
	return nil
}

// path compiles "$a.b", "$$var" and "$$var.a.b".
func (c *exprCompiler) path(s string) (expression, error) {
	if strings.HasPrefix(s, "$$") {
		name, rest, dotted := strings.Cut(s[2:], ".")
		var path []string
		if dotted {
			var err error
			if path, err = splitPath(s, rest); err != nil {
				return nil, err
			}
		}
		return c.variable(name, path)
	}
	path, err := splitPath(s, s[1:])
	if err != nil {
		return nil, err
	}
	slot, _ := c.lookup("CURRENT")
	return &varNode{slot: slot, path: path}, nil
}

func splitPath(whole, rest string) ([]string, error) {
	if rest == "" {
		return nil, Errorf(Invalid, "'%s' is not a valid field path: it names no field", whole).
			WithHint(`write "$field" or "$field.sub"; use {"$literal":"%s"} for the string itself`, whole)
	}
	parts := strings.Split(rest, ".")
	for _, p := range parts {
		switch {
		case p == "":
			return nil, Errorf(Invalid, "field path %q has an empty field name", whole)
		case strings.HasPrefix(p, "$"):
			return nil, Errorf(Invalid, "field path %q: field names may not start with '$'", whole)
		}
	}
	return parts, nil
}

// systemVars are the variables every expression may read.
var systemVars = []string{"ROOT", "CURRENT", "REMOVE", "NOW", "DESCEND", "PRUNE", "KEEP"}

func (c *exprCompiler) variable(name string, path []string) (expression, error) {
	if slot, ok := c.lookup(name); ok {
		return &varNode{slot: slot, path: path}, nil
	}
	switch name {
	case "REMOVE":
		return literal{MissingValue}, nil
	case "NOW":
		c.usesNow = true
		if len(path) > 0 {
			return literal{MissingValue}, nil
		}
		return nowNode{}, nil
	case "DESCEND", "PRUNE", "KEEP":
		return literal{StringValue(strings.ToLower(name))}, nil
	case "CLUSTER_TIME", "USER_ROLES", "SEARCH_META":
		return nil, Errorf(Invalid, "$$%s is not supported: omgdb has no cluster, users or search metadata", name)
	case "":
		return nil, Errorf(Invalid, "'$$' is not a valid variable reference: it names no variable")
	}
	var names []string
	for s := c.scope; s != nil; s = s.next {
		names = append(names, s.name)
	}
	return nil, Errorf(Invalid, "use of undefined variable: %s%s", name, DidYouMean(name, append(names, systemVars...))).
		WithHint("define it with $let (or $map/$filter \"as\", or $lookup \"let\"); system variables are $$ROOT, $$CURRENT, $$REMOVE and $$NOW")
}

// checkVarName enforces MongoDB's rule for user variable names: a
// lowercase ASCII letter or a non-ASCII character first, then letters,
// digits and underscores.
func checkVarName(name string) error {
	if name == "" {
		return Errorf(Invalid, "empty variable names are not allowed")
	}
	for i, r := range name {
		ok := r >= 0x80 || (r >= 'a' && r <= 'z') ||
			(i > 0 && ((r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_'))
		if !ok {
			if i == 0 {
				return Errorf(Invalid, "'%s' starts with an invalid character for a user variable name", name).
					WithHint("variable names start with a lowercase letter")
			}
			return Errorf(Invalid, "'%s' contains an invalid character for a variable name: '%c'", name, r)
		}
	}
	return nil
}

// operator compiles {"$op": arg}.
func (c *exprCompiler) operator(name string, arg Value) (expression, error) {
	compile, ok := exprOps()[name]
	if !ok {
		return nil, unknownAggOperator(name, "", exprOpNames())
	}
	return compile(c, name, arg)
}

// unknownAggOperator is the did-you-mean error for an unknown operator; kind
// is "stage", "accumulator" or "" (expression).
func unknownAggOperator(name, kind string, candidates []string) *Error {
	what := ""
	if kind != "" {
		what = " (" + kind + ")"
	}
	list := map[string]string{"": "operators", "stage": "stages", "accumulator": "accumulators"}[kind]
	return Errorf(Invalid, "unknown aggregation operator: %s%s%s", name, what, DidYouMean(name, candidates)).
		WithHint("see `omgdb docs aggregation` for the supported %s", list)
}
