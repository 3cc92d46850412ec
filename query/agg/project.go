package agg

import (
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $project, $addFields/$set and $unset, with aggregation's projection
// rules: inclusion or exclusion (never both, except for _id), computed
// fields in inclusion projections, nested specs equal to dotted ones.

type projMode uint8

const (
	projInclude projMode = iota
	projExclude
	projAddFields
)

// projNode is one level of a projection; children in spec order.
type projNode struct {
	names               []string
	children            map[string]*projChild
	anyInclude, anyExpr bool // in this level or below
}

// finish records, for each level, whether it holds inclusions or
// computed fields.
func (n *projNode) finish() {
	for _, ch := range n.children {
		if ch.sub != nil {
			ch.sub.finish()
			n.anyInclude = n.anyInclude || ch.sub.anyInclude
			n.anyExpr = n.anyExpr || ch.sub.anyExpr
		}
		n.anyInclude = n.anyInclude || ch.include
		n.anyExpr = n.anyExpr || ch.expr != nil
	}
}

// projChild is a leaf (include, exclude or a computed expr) or a nested
// level (sub).
type projChild struct {
	include, exclude bool
	expr             expr.Node
	sub              *projNode
}

func newProjNode() *projNode { return &projNode{children: map[string]*projChild{}} }

// projection is a compiled $project, $addFields or $unset.
type projection struct {
	stage string
	mode  projMode
	root  *projNode
}

func compileProjectStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	return compileProjection(c, "$project", spec)
}

func compileAddFieldsStage(c *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	return compileProjection(c, "$addFields", spec)
}

func compileUnsetStage(_ *expr.Compiler, spec value.Value, _ pipeWhere) (stage, error) {
	list := []value.Value{spec}
	if spec.Kind() == value.Array {
		list = spec.Array()
	}
	if len(list) == 0 {
		return nil, errs.Errorf(errs.Invalid, "$unset specification must be a string or an array with at least one field")
	}
	p := &projection{stage: "$unset", mode: projExclude, root: newProjNode()}
	for _, v := range list {
		if v.Kind() != value.String {
			return nil, errs.Errorf(errs.Invalid, "$unset specification must be a string or an array containing only string values, found %s", v.TypeName())
		}
		if err := p.add(nil, v.Str(), value.BoolValue(false)); err != nil {
			return nil, err
		}
	}
	p.root.finish()
	return p, nil
}

func compileProjection(c *expr.Compiler, stage string, spec value.Value) (*projection, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "%s specification must be an object, found %s", stage, spec.TypeName())
	}
	mode := projAddFields
	if stage == "$project" {
		if spec.Len() == 0 {
			return nil, errs.Errorf(errs.Invalid, "$project requires at least one output field").
				WithHint(`name the fields to keep ({"a":1}) or to drop ({"a":0})`)
		}
		var err error
		if mode, err = projectionMode(spec, ""); err != nil {
			return nil, err
		}
	}
	p := &projection{stage: stage, mode: mode, root: newProjNode()}
	for _, f := range spec.Fields() {
		if err := p.add(c, f.Key, f.Value); err != nil {
			return nil, err
		}
	}
	if mode == projInclude && p.root.children["_id"] == nil {
		p.root.names = append(p.root.names, "_id")
		p.root.children["_id"] = &projChild{include: true}
	}
	p.root.finish()
	return p, nil
}

// leafKind classifies a $project value: 'i'nclude, 'e'xclude, 'x'
// (computed), or 'n'ested.
func leafKind(v value.Value) byte {
	switch v.Kind() {
	case value.Bool:
		if v.Bool() {
			return 'i'
		}
		return 'e'
	case value.Long, value.Double, value.Int, value.Decimal:
		if v.Float() == 0 {
			return 'e'
		}
		return 'i'
	case value.Object:
		if v.Len() > 0 && !strings.HasPrefix(v.Fields()[0].Key, "$") {
			return 'n'
		}
	}
	return 'x'
}

// projectionMode decides inclusion or exclusion from the first leaf that
// is not the top-level _id, and rejects mixing.
func projectionMode(spec value.Value, prefix string) (projMode, error) {
	mode, set := projInclude, false
	var walk func(spec value.Value, prefix string) error
	walk = func(spec value.Value, prefix string) error {
		for _, f := range spec.Fields() {
			path := prefix + f.Key
			k := leafKind(f.Value)
			if k == 'n' {
				if err := walk(f.Value, path+"."); err != nil {
					return err
				}
				continue
			}
			if path == "_id" {
				continue
			}
			m := map[byte]projMode{'i': projInclude, 'e': projExclude, 'x': projInclude}[k]
			if !set {
				mode, set = m, true
				continue
			}
			if m != mode {
				return mixError(mode, k, path)
			}
		}
		return nil
	}
	err := walk(spec, prefix)
	if !set && err == nil {
		// Only _id: {_id: 0} is an exclusion, {_id: 1} an inclusion.
		if k := leafKind(spec.Get("_id")); k == 'e' {
			mode = projExclude
		}
	}
	return mode, err
}

func mixError(mode projMode, k byte, path string) error {
	if mode == projInclude && k == 'e' {
		return errs.Errorf(errs.Invalid, "invalid $project: cannot do exclusion on field %s in inclusion projection", path).
			WithHint("a projection either keeps the named fields or drops them; only _id may be dropped from an inclusion")
	}
	if k == 'x' {
		return errs.Errorf(errs.Invalid, "invalid $project: cannot use an expression (field %s) in an exclusion projection", path).
			WithHint("use $addFields to compute fields, then $project or $unset to drop others")
	}
	return errs.Errorf(errs.Invalid, "invalid $project: cannot do inclusion on field %s in exclusion projection", path).
		WithHint("a projection either keeps the named fields or drops them; only _id may be dropped from an inclusion")
}

// add adds one spec field (a dotted path) to the projection.
func (p *projection) add(c *expr.Compiler, key string, v value.Value) error {
	parts, err := projPath(p.stage, key)
	if err != nil {
		return err
	}
	n := p.root
	for i, part := range parts[:len(parts)-1] {
		ch := n.children[part]
		if ch == nil {
			ch = &projChild{sub: newProjNode()}
			n.names = append(n.names, part)
			n.children[part] = ch
		} else if ch.sub == nil {
			return projCollision(p.stage, parts[:i+1], parts)
		}
		n = ch.sub
	}
	last := parts[len(parts)-1]
	if ex := n.children[last]; ex != nil && (ex.sub == nil || leafKind(v) != 'n') {
		return projCollision(p.stage, parts, parts)
	}
	return p.addLeaf(c, n, last, strings.Join(parts, ".")+".", v)
}

func (p *projection) addLeaf(c *expr.Compiler, n *projNode, name, prefix string, v value.Value) error {
	k := leafKind(v)
	if p.mode == projAddFields && k != 'n' {
		k = 'x'
	}
	ch := n.children[name]
	if ch == nil {
		ch = &projChild{}
		n.names = append(n.names, name)
		n.children[name] = ch
	}
	switch k {
	case 'i':
		ch.include = true
	case 'e':
		ch.exclude = true
	case 'n':
		if ch.sub == nil {
			ch.sub = newProjNode()
		}
		for _, f := range v.Fields() {
			if err := p.add(c, prefix+f.Key, f.Value); err != nil {
				return err
			}
		}
	default:
		if v.Kind() == value.Object && v.Len() == 0 && p.stage == "$project" {
			return errs.Errorf(errs.Invalid, "invalid $project: an empty sub-projection is not a valid value; found an empty object at path %s", strings.TrimSuffix(prefix, "."))
		}
		e, err := c.Compile(v)
		if err != nil {
			return err
		}
		ch.expr = e
	}
	return nil
}

func projPath(stage, key string) ([]string, error) {
	parts := strings.Split(key, ".")
	for _, part := range parts {
		if part == "" {
			return nil, errs.Errorf(errs.Invalid, "%s: field path %q has an empty field name", stage, key)
		}
	}
	for _, part := range parts {
		if strings.HasPrefix(part, "$") {
			return nil, errs.Errorf(errs.Invalid, "%s: field names may not start with '$', found %q", stage, key).
				WithHint("an operator must be the only key of its object: {\"total\":{\"$sum\":…}}")
		}
	}
	return parts, nil
}

func projCollision(stage string, at, full []string) error {
	return errs.Errorf(errs.Invalid, "invalid %s: path collision at %s", stage, strings.Join(full, ".")).
		WithHint("`%s` is set both as a whole and in part; keep one of them", strings.Join(at, "."))
}

func (p *projection) run(r *runState, in Source) Source {
	return &funcSource{in: in, next: func() (value.Value, bool, error) {
		doc, ok, err := r.pull(in)
		if err != nil || !ok {
			return value.Value{}, false, err
		}
		out, err := p.apply(r, doc)
		return keepTextScore(doc, out), err == nil, err
	}}
}

// apply projects one document.
func (p *projection) apply(r *runState, doc value.Value) (value.Value, error) {
	switch p.mode {
	case projExclude:
		return p.root.exclude(doc), nil
	case projInclude:
		return p.root.applyExprs(r, doc, p.root.include(doc))
	}
	return p.root.applyExprs(r, doc, doc)
}
