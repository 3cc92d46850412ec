package query

import (
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// Projection is a compiled find() projection: MongoDB's inclusion
// ({"a":1}) or exclusion ({"a":0}) of fields, dotted paths through
// embedded documents and arrays, the operators $slice, $elemMatch and the
// positional "arr.$", literal values and aggregation expressions. A
// Projection is immutable and safe for concurrent use.
type Projection struct {
	root      *pnode
	inclusion bool
	empty     bool
	post      []postOp // $slice and positional steps, applied to the projected document
	posName   string   // the positional projection's key as written ("grades.$")
	posField  string   // its first component, which the filter must refer to
	metas     []string // fields set to the textScore ({"$meta":"textScore"}), in order
}

type pkind uint8

const (
	pInternal   pkind = iota // a level of a dotted or nested path
	pInclude                 // 1, true
	pExclude                 // 0, false
	pLiteral                 // a constant value
	pExpr                    // an aggregation expression
	pElemMatch               // {"$elemMatch":{…}}
	pSlice                   // {"$slice":…}, included or kept, then sliced
	pPositional              // "arr.$", included, then narrowed
)

// pnode is a node of the projection tree.
type pnode struct {
	kind     pkind
	fields   []pfield    // pInternal: children, in the order written
	computed bool        // pInternal: the subtree has literals, expressions or $elemMatch
	value    value.Value // pLiteral
	expr     *expr.Expr  // pExpr
	filter   *Filter     // pElemMatch: {"<field>":{"$elemMatch":…}}
}

type pfield struct {
	name string
	node *pnode
}

func (n *pnode) child(name string) *pnode {
	for _, f := range n.fields {
		if f.name == name {
			return f.node
		}
	}
	return nil
}

// postOp is a $slice or positional step, applied after the inclusion or
// exclusion, at a full path.
type postOp struct {
	path    []string
	slice   bool
	hasSkip bool
	skip    int64
	limit   int64
}

// projection types while parsing
const (
	projUnknown = iota
	projInclusion
	projExclusion
)

// projParser holds the state of one CompileProjection call; it follows
// MongoDB's projection_ast parser.
type projParser struct {
	root                            *pnode
	typ                             int
	hasSlice, hasElemMatch, hasPos  bool
	idIncluded, idExcluded, idGiven bool
	post                            []postOp
	posName, posField               string
	metas                           []string
}

// CompileProjection validates and compiles a projection. A missing, null
// or empty spec returns documents whole. Errors are *Error values of kind
// Invalid; mixing inclusion and exclusion gives MongoDB's message, such as
// "Cannot do exclusion on field b in inclusion projection".
func CompileProjection(spec value.Value) (*Projection, error) {
	if spec.Kind() == value.Missing || spec.Kind() == value.Null || (spec.Kind() == value.Object && len(spec.Fields()) == 0) {
		return &Projection{empty: true}, nil
	}
	if spec.Kind() != value.Object {
		return nil, projError("the projection must be an object such as {\"name\":1}, got %s", spec.TypeName())
	}
	p := &projParser{root: &pnode{kind: pInternal}}
	for _, f := range spec.Fields() {
		p.idGiven = p.idGiven || f.Key == "_id" || strings.HasPrefix(f.Key, "_id.")
		if err := p.element(p.root, f.Key, f.Value, ""); err != nil {
			return nil, err
		}
	}
	return p.finish()
}

func (p *projParser) finish() (*Projection, error) {
	if p.typ == projUnknown && len(p.root.fields) == 0 && len(p.metas) > 0 {
		return &Projection{empty: true, metas: p.metas}, nil
	}
	if p.typ == projUnknown {
		p.typ = p.defaultType()
	}
	if p.typ == projExclusion && p.hasElemMatch {
		return nil, projError("$elemMatch cannot be used in an exclusion projection").
			WithHint("list the fields to include instead of those to exclude")
	}
	if p.typ == projInclusion && !p.idGiven {
		p.root.fields = append(p.root.fields, pfield{"_id", &pnode{kind: pInclude}})
	}
	if p.typ == projExclusion && p.idIncluded {
		p.root.fields = removeField(p.root.fields, "_id")
	}
	markComputed(p.root)
	return &Projection{
		root: p.root, inclusion: p.typ == projInclusion, post: p.post,
		posName: p.posName, posField: p.posField, metas: p.metas,
	}, nil
}

// defaultType decides projections that name no field to include or
// exclude, as MongoDB does: a $slice alone excludes nothing, unless _id is
// included; $elemMatch includes; {_id:1} includes; {_id:0} excludes.
func (p *projParser) defaultType() int {
	switch {
	case p.hasSlice && p.idIncluded:
		return projInclusion
	case p.hasSlice:
		return projExclusion
	case p.hasElemMatch, p.idIncluded:
		return projInclusion
	}
	return projExclusion
}

func removeField(fields []pfield, name string) []pfield {
	out := fields[:0:0]
	for _, f := range fields {
		if f.name != name {
			out = append(out, f)
		}
	}
	return out
}

// markComputed sets computed on internal nodes whose subtree holds values
// computed from nothing in the document's shape: literals, expressions and
// $elemMatch.
func markComputed(n *pnode) bool {
	any := false
	for _, f := range n.fields {
		switch f.node.kind {
		case pInternal:
			any = markComputed(f.node) || any
		case pLiteral, pExpr, pElemMatch:
			any = true
		}
	}
	n.computed = any
	return any
}

func projError(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "malformed projection: "+format, args...)
}

// element parses one key of a projection (or of a nested projection
// object) under parent. parentPath is the full path of parent.
func (p *projParser) element(parent *pnode, name string, val value.Value, parentPath string) error {
	_, _, positional := findPositional(name)
	switch val.Kind() {
	case value.Object:
		if positional {
			return errs.Errorf(errs.Invalid, "positional projection cannot be used with an expression or sub object")
		}
		return p.subObject(parent, name, val, parentPath)
	case value.Bool, value.Long, value.Double, value.Int, value.Decimal:
		if expr.Truthy(val) || isNaN(val) {
			return p.include(parent, name, parentPath)
		}
		return p.exclude(parent, name)
	}
	if positional {
		return errs.Errorf(errs.Invalid, "positional projection cannot be used with a literal")
	}
	return p.literal(parent, name, val)
}

// findPositional locates the first positional operator in a projection
// key: ".$." inside it, ".$" at its end, or the key "$".
func findPositional(key string) (begin, end int, ok bool) {
	if i := strings.Index(key, ".$."); i >= 0 {
		return i, i + 3, true
	}
	if strings.HasSuffix(key, ".$") {
		return len(key) - 2, len(key), true
	}
	if key == "$" {
		return 0, 1, true
	}
	return 0, 0, false
}

// splitProjPath validates a projection field path and splits it.
func splitProjPath(path string) ([]string, error) {
	if path == "" {
		return nil, projError("field paths cannot be empty")
	}
	parts := strings.Split(path, ".")
	for _, part := range parts {
		if part == "" {
			return nil, projError("invalid field path `%s`: field names may not be empty strings", path)
		}
		if strings.HasPrefix(part, "$") {
			return nil, projError("invalid field path `%s`: field names may not start with '$'", path)
		}
	}
	return parts, nil
}

// addAt adds leaf at the relative path parts under root, creating internal
// nodes; it fails, with MongoDB's message, when the path collides with one
// added before ({"a":1,"a.b":1}).
func addAt(root *pnode, parts []string, leaf *pnode) error {
	n := root
	full := strings.Join(parts, ".")
	for i, part := range parts {
		c := n.child(part)
		if i == len(parts)-1 {
			if c != nil {
				return pathCollision(full, "")
			}
			n.fields = append(n.fields, pfield{part, leaf})
			return nil
		}
		if c == nil {
			c = &pnode{kind: pInternal}
			n.fields = append(n.fields, pfield{part, c})
		} else if c.kind != pInternal {
			return pathCollision(full, strings.Join(parts[1:], "."))
		}
		n = c
	}
	return nil
}

func pathCollision(full, remaining string) error {
	msg := "Path collision at " + full
	if remaining != "" {
		msg += " remaining portion " + remaining
	}
	return errs.Errorf(errs.Invalid, "%s", msg).
		WithHint("project either a field or some of its subfields, not both")
}

// include parses an inclusion (1, true), possibly positional ("arr.$").
func (p *projParser) include(parent *pnode, name, parentPath string) error {
	topID := name == "_id" && parent == p.root
	var err error
	if _, _, positional := findPositional(name); positional {
		err = p.positional(parent, name, parentPath)
	} else {
		err = p.add(parent, name, &pnode{kind: pInclude})
		p.idIncluded = p.idIncluded || topID
	}
	if err != nil || topID {
		return err
	}
	if p.typ == projExclusion {
		return errs.Errorf(errs.Invalid, "Cannot do inclusion on field %s in exclusion projection", name).
			WithHint("a projection either lists fields to include or fields to exclude (except _id, which may be excluded from an inclusion)")
	}
	p.typ = projInclusion
	return nil
}

func (p *projParser) add(parent *pnode, name string, leaf *pnode) error {
	parts, err := splitProjPath(name)
	if err != nil {
		return err
	}
	return addAt(parent, parts, leaf)
}

// exclude parses an exclusion (0, false).
func (p *projParser) exclude(parent *pnode, name string) error {
	if err := p.add(parent, name, &pnode{kind: pExclude}); err != nil {
		return err
	}
	if name == "_id" && parent == p.root {
		p.idExcluded = true
		return nil
	}
	if p.typ == projInclusion {
		return errs.Errorf(errs.Invalid, "Cannot do exclusion on field %s in inclusion projection", name).
			WithHint("a projection either lists fields to include or fields to exclude (except _id, which may be excluded from an inclusion)")
	}
	p.typ = projExclusion
	return nil
}

// positional parses "arr.$": 1.
func (p *projParser) positional(parent *pnode, name, parentPath string) error {
	switch {
	case p.hasPos:
		return errs.Errorf(errs.Invalid, "Cannot specify more than one positional projection per query.")
	case p.hasElemMatch:
		return errs.Errorf(errs.Invalid, "Cannot specify positional operator and $elemMatch.")
	case strings.HasSuffix(name, ".$."):
		return errs.Errorf(errs.Invalid, "Path cannot end with '.$.'")
	}
	begin, end, _ := findPositional(name)
	rest := name[end:]
	if _, _, again := findPositional(rest); again || rest == "$" {
		return errs.Errorf(errs.Invalid, "Cannot use positional operator twice: %s", name)
	}
	prefix := name[:begin]
	if err := p.add(parent, prefix, &pnode{kind: pPositional}); err != nil {
		return err
	}
	full := joinPath(parentPath, prefix)
	p.hasPos, p.posName = true, name
	p.posField, _, _ = strings.Cut(full, ".")
	p.post = append(p.post, postOp{path: strings.Split(full, ".")})
	return nil
}

// literal parses a value that is neither a number, a bool nor an object:
// a constant, or an expression when it refers to fields ("$a").
func (p *projParser) literal(parent *pnode, name string, val value.Value) error {
	leaf := &pnode{kind: pLiteral, value: val}
	if !isConstant(val) {
		e, err := expr.Compile(val)
		if err != nil {
			return err
		}
		leaf = &pnode{kind: pExpr, expr: e}
	}
	if err := p.add(parent, name, leaf); err != nil {
		return err
	}
	if p.typ == projExclusion {
		return errs.Errorf(errs.Invalid, "Cannot use an expression %s in an exclusion projection", value.ObjectValue([]value.Field{{Key: name, Value: val}})).
			WithHint("computed fields need an inclusion projection")
	}
	p.typ = projInclusion
	return nil
}

// isConstant reports whether a projection value holds no field path
// ("$a"), variable ("$$ROOT") or operator ({"$add":…}).
func isConstant(v value.Value) bool {
	switch v.Kind() {
	case value.String:
		return !strings.HasPrefix(v.Str(), "$")
	case value.Array:
		for _, e := range v.Array() {
			if !isConstant(e) {
				return false
			}
		}
	case value.Object:
		for _, f := range v.Fields() {
			if strings.HasPrefix(f.Key, "$") || !isConstant(f.Value) {
				return false
			}
		}
	}
	return true
}
