package query

import (
	"context"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// Filter is a compiled query filter: MongoDB's query language, validated
// once by CompileFilter and then matched against any number of documents.
// A Filter is immutable and safe for concurrent use.
type Filter struct {
	root   andNode
	preds  []Predicate
	fields []string
	prune  *value.FieldSet // the parts of a document MatchJSON decodes
	whole  bool            // MatchJSON must parse whole documents ($expr)
	regex  bool            // a regex condition, which a context interrupts (expr.MatchRegex)
	// direct, when the filter is a conjunction of conditions on fields
	// none of which is inside another, is the tree of their paths, and
	// directs the conditions with their slots: MatchJSON then reads the
	// fields' values from the JSON (value.Decoder.ReadSlots) and matches each
	// condition on its value, decoding no object on the way.
	direct  value.SlotTree
	directs []slotPath
	coll    *collation.Collation // set by CompileFilterCollation; nil is binary
	text    *textNode            // the $text condition, nil when there is none
}

// slotPath is a condition on a field, or its negation ($ne, $nin,
// $not, $exists: false), with the slot of the field's value.
type slotPath struct {
	n    *pathNode
	not  bool
	slot int
}

// directPaths sets f.direct and f.directs when f's conditions are all on
// fields (outside $or, $nor and $expr) and no field is inside another.
func (f *Filter) directPaths() {
	var conds []slotPath
	var flat func(n node) bool
	flat = func(n node) bool {
		switch n := n.(type) {
		case *pathNode:
			conds = append(conds, slotPath{n: n})
			return true
		case notNode:
			p, ok := n.n.(*pathNode)
			if ok {
				conds = append(conds, slotPath{n: p, not: true})
			}
			return ok
		case andNode:
			for _, k := range n {
				if !flat(k) {
					return false
				}
			}
			return true
		}
		return false
	}
	if f.whole || !flat(f.root) || len(conds) == 0 {
		return
	}
	var t value.SlotTree
	for i := range conds {
		slot, ok := t.Add(conds[i].n.path.Parts)
		if !ok {
			return
		}
		conds[i].slot = slot
	}
	f.direct, f.directs = t, conds
}

// Predicate is one top-level condition of a filter: a field path with one
// operator and its operand ({"age":{"$gte":30}} is the predicate age $gte
// 30; {"name":"ana"} is name $eq "ana"), or a top-level $and, $or, $nor or
// $expr with an empty Path. A filter matches a document when all its
// predicates do, so each can be matched alone to find the one that rejects
// a document.
type Predicate struct {
	Path    string      // dotted field path; "" for $and, $or, $nor, $expr
	Op      string      // the operator: "$eq", "$gt", "$in", "$elemMatch", "$not", "$regex", "$or", …
	Operand value.Value // the operator's argument as written ($regex: {"$regex":…,"$options":…})
	n       node
}

// Match reports whether doc satisfies this predicate alone.
func (p Predicate) Match(doc value.Value) bool { return p.n.match(doc, nil) }

// String returns the predicate as a filter document, such as
// {"age":{"$gte":30}}.
func (p Predicate) String() string {
	if p.Path == "" {
		return value.ObjectValue([]value.Field{{Key: p.Op, Value: p.Operand}}).String()
	}
	if p.Op == "$regex" {
		return value.ObjectValue([]value.Field{{Key: p.Path, Value: p.Operand}}).String()
	}
	inner := value.ObjectValue([]value.Field{{Key: p.Op, Value: p.Operand}})
	return value.ObjectValue([]value.Field{{Key: p.Path, Value: inner}}).String()
}

// matchCtx carries what a match records besides its result: the position
// of the matching array element (MongoDB's elemMatchKey, for the positional
// projection) and the first $expr evaluation error; and the context that
// stops a $expr's evaluation.
type matchCtx struct {
	key  int // -1 when no array position was recorded
	err  error
	ctx  context.Context // may be nil
	stop error           // ctx's error, when it stopped a $expr
}

// node is a compiled filter condition over a whole document.
type node interface {
	match(doc value.Value, c *matchCtx) bool
}

// CompileFilter validates a filter document and compiles it. A missing or
// null spec is the empty filter, which matches every document. Errors are
// *Error values of kind Invalid (Limit for a limit exceeded) whose message
// names the operator or field at fault.
func CompileFilter(spec value.Value) (*Filter, error) { return compileFilter(spec, nil) }

// compileFilter is CompileFilter; $expr compares strings by coll.
func compileFilter(spec value.Value, coll *collation.Collation) (*Filter, error) {
	if spec.Kind() == value.Missing || spec.Kind() == value.Null {
		return &Filter{}, nil
	}
	if spec.Kind() != value.Object {
		return nil, malformed("filter must be an object, got %s", spec.TypeName()).
			WithHint(`write the filter as a JSON object, such as {"age":{"$gte":30}}`)
	}
	c := &compiler{seen: map[string]bool{}, coll: coll}
	preds, err := c.document(spec, true, "")
	if err != nil {
		return nil, err
	}
	if err := c.checkNear(preds); err != nil {
		return nil, err
	}
	f := &Filter{preds: preds, fields: c.fields, prune: value.NewFieldSet(c.fields), whole: c.hasExpr, regex: hasRegex(spec), text: c.textCond}
	for _, p := range preds {
		f.root = append(f.root, p.n)
	}
	f.directPaths()
	return f, nil
}

// Match reports whether doc satisfies the filter. A $expr whose evaluation
// fails does not match; use MatchErr to see the error.
func (f *Filter) Match(doc value.Value) bool { return f.root.match(doc, nil) }

// MatchErr is Match that also returns the first error met while evaluating
// a $expr (MongoDB fails the whole query on such an error).
func (f *Filter) MatchErr(doc value.Value) (bool, error) {
	return f.MatchErrContext(nil, doc)
}

// MatchErrContext is MatchErr that stops evaluating a $expr when ctx is
// done and then returns ctx's error (see expr.EvalCtx). A nil ctx is never
// done.
func (f *Filter) MatchErrContext(ctx context.Context, doc value.Value) (bool, error) {
	c := matchCtx{key: -1, ctx: ctx}
	ok := f.root.match(doc, &c)
	if c.err != nil {
		return false, c.err
	}
	return ok, nil
}

// MatchContext is MatchErr that stops evaluating a $expr, or matching a
// regex over a long string, when ctx is done and then returns ctx's
// error. A $expr that fails to evaluate fails the match with an
// *ExprError, as MongoDB fails the whole query: scans, counts and plans
// stop with it instead of leaving the document out.
func (f *Filter) MatchContext(ctx context.Context, doc value.Value) (bool, error) {
	if !f.whole && (!f.regex || ctx == nil) {
		return f.root.match(doc, nil), nil
	}
	c := matchCtx{key: -1, ctx: ctx}
	ok := f.root.match(doc, &c)
	switch {
	case c.stop != nil:
		return false, c.stop
	case c.err != nil:
		return false, &ExprError{Err: c.err}
	}
	return ok, nil
}

// ExprError is the error of a $expr (or $jsonSchema) that failed to
// evaluate on a document; it wraps the expression's error, whose kind and
// hint it keeps.
type ExprError struct{ Err error }

func (e *ExprError) Error() string { return e.Err.Error() }
func (e *ExprError) Unwrap() error { return e.Err }

// matchKey matches doc and returns the position of the array element that
// made it match (-1 if none), as the positional projection needs.
func (f *Filter) matchKey(ctx context.Context, doc value.Value) (bool, int, error) {
	c := matchCtx{key: -1, ctx: ctx}
	ok := f.root.match(doc, &c)
	if c.stop != nil {
		return false, -1, c.stop
	}
	return ok, c.key, c.err
}

// Predicates returns the filter's top-level predicates, in the order they
// were written. $comment contributes none. The slice must not be modified.
func (f *Filter) Predicates() []Predicate { return f.preds }

// Fields returns the dotted field paths the filter refers to, in order of
// first appearance, including those inside $and, $or, $nor, $not and
// $elemMatch ({"a":{"$elemMatch":{"b":1}}} gives "a" and "a.b"). Paths
// used only inside $expr are not listed. The slice must not be modified.
func (f *Filter) Fields() []string { return f.fields }

// HasExpr reports whether the filter has a $expr, which may read any
// field: Fields does not list what it reads, and MatchJSON parses whole
// documents.
func (f *Filter) HasExpr() bool { return f.whole }

// compiler holds the state of one CompileFilter call.
type compiler struct {
	fields   []string
	seen     map[string]bool
	hasExpr  bool                 // the filter has a $expr, which may read any field
	nears    int                  // $near and $nearSphere conditions compiled
	coll     *collation.Collation // $expr's comparisons compare strings by it
	nested   int                  // depth inside $or and $nor
	textCond *textNode
}

func (c *compiler) addField(path string) {
	if !c.seen[path] {
		c.seen[path] = true
		c.fields = append(c.fields, path)
	}
}

// document compiles a filter document. top is false inside $elemMatch,
// where $expr is not allowed; prefix is the path of the enclosing
// $elemMatch, for Fields.
func (c *compiler) document(spec value.Value, top bool, prefix string) ([]Predicate, error) {
	var preds []Predicate
	for _, fl := range spec.Fields() {
		var (
			ps  []Predicate
			err error
		)
		if strings.HasPrefix(fl.Key, "$") {
			ps, err = c.topLevel(fl.Key, fl.Value, top, prefix)
		} else {
			ps, err = c.field(prefix, fl.Key, fl.Value)
		}
		if err != nil {
			return nil, err
		}
		preds = append(preds, ps...)
	}
	return preds, nil
}

// field compiles the condition on one field: an operator object or a value
// to be equal to.
func (c *compiler) field(prefix, path string, val value.Value) ([]Predicate, error) {
	c.addField(joinPath(prefix, path))
	fp := value.ParsePath(path)
	if val.Kind() == value.Regex {
		p, err := regexValue(val)
		if err != nil {
			return nil, err
		}
		return []Predicate{{Path: path, Op: "$regex", Operand: val, n: toNode(&fp, p)}}, nil
	}
	if !isOperatorDoc(val) {
		n := &pathNode{path: &fp, pred: &cmpPred{op: opEq, rhs: val}, leafArrays: true}
		return []Predicate{{Path: path, Op: "$eq", Operand: val, n: n}}, nil
	}
	ops, err := c.operators(joinPath(prefix, path), val)
	if err != nil {
		return nil, err
	}
	preds := make([]Predicate, len(ops))
	for i, op := range ops {
		preds[i] = Predicate{Path: path, Op: op.name, Operand: op.operand, n: toNode(&fp, op.pred)}
	}
	return preds, nil
}

func joinPath(prefix, path string) string {
	if prefix == "" {
		return path
	}
	return prefix + "." + path
}

// isOperatorDoc reports whether v is an object of query operators: not
// empty, its first key starting with '$', and not a DBRef ({$ref, $id}).
func isOperatorDoc(v value.Value) bool {
	if v.Kind() != value.Object || len(v.Fields()) == 0 || !strings.HasPrefix(v.Fields()[0].Key, "$") {
		return false
	}
	return !(v.Has("$ref") && v.Has("$id"))
}

// toNode turns a value predicate on a path into a document node. Negation
// and conjunction apply to the path as a whole (so {"a":{"$ne":1}} rejects
// [1,2]); the other predicates are matched against each value the path
// yields.
func toNode(fp *value.Path, p valuePred) node {
	switch p := p.(type) {
	case notPred:
		return notNode{toNode(fp, p.p)}
	case andPred:
		n := make(andNode, len(p))
		for i, q := range p {
			n[i] = toNode(fp, q)
		}
		return n
	case constPred:
		return constNode(p)
	}
	return &pathNode{path: fp, pred: p, leafArrays: traversesLeafArrays(p)}
}

// pathNode matches when some value its path yields satisfies pred.
type pathNode struct {
	path       *value.Path
	pred       valuePred
	leafArrays bool
}

func (n *pathNode) match(doc value.Value, c *matchCtx) bool {
	w := pathWalk{path: n.path, leafArrays: n.leafArrays, pred: n.pred, ctx: c}
	return w.run(doc)
}

// matchAt is match for a document in which the path leads through
// objects alone to v (missing when the path ends early or meets a
// scalar).
func (n *pathNode) matchAt(v value.Value, c *matchCtx) bool {
	w := pathWalk{path: n.path, leafArrays: n.leafArrays, pred: n.pred, ctx: c}
	return w.atEnd(v, -1)
}

// andNode matches when every child does (an empty one always matches).
type andNode []node

func (n andNode) match(doc value.Value, c *matchCtx) bool {
	for _, k := range n {
		if !k.match(doc, c) {
			return false
		}
	}
	return true
}

// orNode matches when some child does.
type orNode []node

func (n orNode) match(doc value.Value, c *matchCtx) bool {
	for _, k := range n {
		if k.match(doc, c) {
			return true
		}
	}
	return false
}

// norNode matches when no child does.
type norNode []node

func (n norNode) match(doc value.Value, c *matchCtx) bool {
	return !underNot(orNode(n), doc, c)
}

// notNode matches when its child does not.
type notNode struct{ n node }

func (n notNode) match(doc value.Value, c *matchCtx) bool {
	return !underNot(n.n, doc, c)
}

// underNot matches n under a negation: array positions found there say
// nothing about why the document matched, but errors still count.
func underNot(n node, doc value.Value, c *matchCtx) bool {
	if c == nil {
		return n.match(doc, nil)
	}
	sub := matchCtx{key: -1, ctx: c.ctx}
	ok := n.match(doc, &sub)
	if sub.err != nil && c.err == nil {
		c.err = sub.err
	}
	if sub.stop != nil {
		c.stop = sub.stop
	}
	return ok
}

// constNode always or never matches ($alwaysTrue, $alwaysFalse, $all: []).
type constNode bool

func (n constNode) match(value.Value, *matchCtx) bool { return bool(n) }

// exprNode matches when its aggregation expression evaluates to a true
// value.
type exprNode struct{ e *expr.Expr }

func (n exprNode) match(doc value.Value, c *matchCtx) bool {
	var ctx context.Context
	if c != nil {
		ctx = c.ctx
	}
	v, err := n.e.EvalContext(ctx, doc, time.Time{})
	if err != nil {
		if c != nil && c.err == nil {
			c.err = err
		}
		if c != nil && ctx != nil && ctx.Err() != nil {
			c.stop = ctx.Err()
		}
		return false
	}
	return expr.Truthy(v)
}
