package query

import (
	"math"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// Limits on filters. Exceeding one is an *Error of kind Limit that names
// the limit.
const (
	MaxInValues    = 10000               // values in one $in or $nin array
	MaxRegexLength = expr.MaxRegexLength // bytes in one $regex pattern
)

// Operator names, for validation and did-you-mean suggestions.
var (
	topLevelOperators = []string{"$and", "$or", "$nor", "$expr", "$jsonSchema", "$text", "$comment", "$alwaysTrue", "$alwaysFalse"}
	fieldOperators    = []string{
		"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$all", "$exists", "$type",
		"$size", "$mod", "$regex", "$options", "$elemMatch", "$not",
		"$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear",
		"$geoWithin", "$within", "$geoIntersects", "$near", "$nearSphere", "$geoNear", "$maxDistance", "$minDistance",
	}
)

// pathlessRefused are the refused operators that apply to whole documents
// rather than to a field.
var pathlessRefused = []string{"$where", "$function", "$accumulator", "$sampleRate"}

// refusal explains an operator omgdb knowingly does not support.
type refusal struct{ why, hint string }

var refusedOperators = map[string]refusal{
	"$where":       {"omgdb runs no JavaScript", "express the condition with $expr and aggregation operators"},
	"$function":    {"omgdb runs no JavaScript", "express the condition with $expr and aggregation operators"},
	"$accumulator": {"omgdb runs no JavaScript", "express the condition with $expr and aggregation operators"},
	"$sampleRate":  {"omgdb filters are deterministic", "use the aggregation stage $sample"},
}

// malformed returns the error for an invalid operand or construct.
func malformed(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "malformed query: "+format, args...)
}

// unknownOperator returns the error for an operator name omgdb does not
// know, with a did-you-mean among the operators valid in that position.
func unknownOperator(name string, candidates []string) *errs.Error {
	e := errs.Errorf(errs.Invalid, "unknown query operator: %s%s", name, errs.DidYouMean(name, candidates))
	if !strings.HasPrefix(name, "$") {
		return e.WithHint(`operators start with "$"; to match an embedded document exactly, use {"$eq":{…}}`)
	}
	return e.WithHint("see `omgdb docs filters` for the supported operators")
}

func refused(name string) error {
	r, ok := refusedOperators[name]
	if !ok {
		return nil
	}
	return errs.Errorf(errs.Invalid, "unsupported query operator: %s (%s)", name, r.why).WithHint("%s", r.hint)
}

// topLevel compiles a '$' key of a filter document.
func (c *compiler) topLevel(name string, arg value.Value, top bool, prefix string) ([]Predicate, error) {
	switch name {
	case "$and", "$or", "$nor":
		n, err := c.logical(name, arg, top, prefix)
		if err != nil {
			return nil, err
		}
		return []Predicate{{Op: name, Operand: arg, n: n}}, nil
	case "$expr":
		return c.expr(arg, top)
	case "$jsonSchema":
		return c.jsonSchema(arg, top)
	case "$comment":
		return nil, nil
	case "$text":
		return c.text(arg, top)
	case "$ref", "$id", "$db":
		// The fields of a DBRef, matched by equality as MongoDB does.
		c.addField(joinPath(prefix, name))
		fp := value.ParsePath(name)
		n := &pathNode{path: &fp, pred: &cmpPred{op: opEq, rhs: arg}, leafArrays: true}
		return []Predicate{{Path: name, Op: "$eq", Operand: arg, n: n}}, nil
	case "$alwaysTrue", "$alwaysFalse":
		if !value.IsInteger(arg, 1) {
			return nil, malformed("%s must be an integer value of 1", name)
		}
		return []Predicate{{Op: name, Operand: arg, n: constNode(name == "$alwaysTrue")}}, nil
	}
	if err := refused(name); err != nil {
		return nil, err
	}
	if slices.Contains(fieldOperators, name) {
		e := malformed(`%s must be applied to a field, as in {"field":{"%s":…}}`, name, name)
		if name == "$not" {
			return nil, e.WithHint(`to negate a whole filter, use $nor: {"$nor":[{…}]}`)
		}
		return nil, e
	}
	return nil, unknownOperator(name, topLevelOperators)
}

// logical compiles $and, $or and $nor.
func (c *compiler) logical(name string, arg value.Value, top bool, prefix string) (node, error) {
	if arg.Kind() != value.Array || len(arg.Array()) == 0 {
		return nil, malformed("%s needs a nonempty array of filter objects", name).
			WithHint(`write {"%s":[{"a":1},{"b":2}]}`, name)
	}
	kids := make([]node, len(arg.Array()))
	if name != "$and" { // $text may sit in a top-level $and, as in MongoDB
		c.nested++
		defer func() { c.nested-- }()
	}
	for i, e := range arg.Array() {
		if e.Kind() != value.Object {
			return nil, malformed("%s entries need to be objects, got %s at index %d", name, e.TypeName(), i)
		}
		preds, err := c.document(e, top, prefix)
		if err != nil {
			return nil, err
		}
		and := make(andNode, len(preds))
		for j, p := range preds {
			and[j] = p.n
		}
		kids[i] = and
	}
	switch name {
	case "$and":
		return andNode(kids), nil
	case "$or":
		return orNode(kids), nil
	}
	return norNode(kids), nil
}

// expr compiles $expr with the aggregation expression compiler; its errors
// are returned unchanged.
func (c *compiler) expr(arg value.Value, top bool) ([]Predicate, error) {
	if !top {
		return nil, malformed("$expr can only be applied to the top-level document").
			WithHint("$elemMatch conditions apply to array elements; move $expr to the top level")
	}
	e, err := expr.CompileCollation(arg, c.coll)
	if err != nil {
		return nil, err
	}
	c.hasExpr = true
	return []Predicate{{Op: "$expr", Operand: arg, n: exprNode{e}}}, nil
}

// jsonSchema compiles $jsonSchema, which reads the whole document.
func (c *compiler) jsonSchema(arg value.Value, top bool) ([]Predicate, error) {
	if !top {
		return nil, malformed("$jsonSchema can only be applied to the top-level document").
			WithHint("$elemMatch conditions apply to array elements; give the array's schema in an 'items' keyword")
	}
	s, err := compileJSONSchema(arg)
	if err != nil {
		return nil, err
	}
	c.hasExpr = true // reads any field: MatchJSON parses whole documents
	return []Predicate{{Op: "$jsonSchema", Operand: arg, n: schemaNode{s}}}, nil
}

// opPred is one compiled operator of an operator object.
type opPred struct {
	name    string
	operand value.Value
	pred    valuePred
}

// operators compiles an operator object such as {"$gt":1,"$lt":5}; path
// (the field it applies to, "" inside $elemMatch) is used in messages and
// Fields.
func (c *compiler) operators(path string, doc value.Value) ([]opPred, error) {
	ops := make([]opPred, 0, len(doc.Fields()))
	for _, fl := range doc.Fields() {
		if fl.Key == "$options" {
			if !doc.Has("$regex") {
				return nil, malformed("$options needs a $regex")
			}
			continue
		}
		if fl.Key == "$maxDistance" || fl.Key == "$minDistance" {
			if !doc.Has("$near") && !doc.Has("$nearSphere") && !doc.Has("$geoNear") {
				return nil, malformed("%s needs a $near or $nearSphere beside it", fl.Key)
			}
			continue
		}
		if slices.Contains(geoOperators, fl.Key) {
			p, err := c.compileGeo(path, fl.Key, fl.Value, doc)
			if err != nil {
				return nil, err
			}
			ops = append(ops, opPred{fl.Key, fl.Value, p})
			continue
		}
		if fl.Key == "$regex" {
			p, operand, err := regexFromDoc(doc)
			if err != nil {
				return nil, err
			}
			ops = append(ops, opPred{"$regex", operand, p})
			continue
		}
		p, err := c.operator(path, fl.Key, fl.Value)
		if err != nil {
			return nil, err
		}
		ops = append(ops, opPred{fl.Key, fl.Value, p})
	}
	return ops, nil
}

// operator compiles one field operator other than $regex and $options.
func (c *compiler) operator(path, name string, arg value.Value) (valuePred, error) {
	switch name {
	case "$eq":
		return &cmpPred{op: opEq, rhs: arg}, nil
	case "$ne":
		return notPred{&cmpPred{op: opEq, rhs: arg}}, nil
	case "$gt", "$gte", "$lt", "$lte":
		return &cmpPred{op: cmpOps[name], rhs: arg}, nil
	case "$in":
		return compileIn(name, arg)
	case "$nin":
		p, err := compileIn(name, arg)
		return notPred{p}, err
	case "$exists":
		if expr.Truthy(arg) {
			return existsPred{}, nil
		}
		return notPred{existsPred{}}, nil
	case "$type":
		return compileType(arg)
	case "$size":
		return compileSize(arg)
	case "$mod":
		return compileMod(arg)
	case "$all":
		return c.all(path, arg)
	case "$elemMatch":
		return c.elemMatch(path, arg)
	case "$not":
		return c.not(path, arg)
	case "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear":
		return compileBits(name, arg)
	}
	return nil, c.badOperator(path, name)
}

func (c *compiler) badOperator(path, name string) error {
	if err := refused(name); err != nil {
		return err
	}
	if slices.Contains(topLevelOperators, name) {
		return malformed("%s must be at the top level of a filter, not inside the condition on field `%s`", name, path).
			WithHint(`write {"%s":[{"%s":…},…]}`, name, path)
	}
	return unknownOperator(name, fieldOperators)
}

// not compiles $not: the negation of an operator object.
func (c *compiler) not(path string, arg value.Value) (valuePred, error) {
	if arg.Kind() != value.Object {
		return nil, malformed(`$not needs an operator object, such as {"$not":{"$gt":5}} or {"$not":{"$regex":"^a"}}; got %s`, arg.TypeName())
	}
	if len(arg.Fields()) == 0 {
		return nil, malformed("$not cannot be empty")
	}
	for _, fl := range arg.Fields() {
		if !strings.HasPrefix(fl.Key, "$") {
			return nil, unknownOperator(fl.Key, fieldOperators)
		}
	}
	ops, err := c.operators(path, arg)
	if err != nil {
		return nil, err
	}
	return notPred{andOf(ops)}, nil
}

// andOf returns the conjunction of compiled operators.
func andOf(ops []opPred) valuePred {
	if len(ops) == 1 {
		return ops[0].pred
	}
	and := make(andPred, len(ops))
	for i, op := range ops {
		and[i] = op.pred
	}
	return and
}

// compileIn compiles the array of $in or $nin.
func compileIn(name string, arg value.Value) (*inPred, error) {
	if arg.Kind() != value.Array {
		return nil, malformed("%s needs an array", name)
	}
	if len(arg.Array()) > MaxInValues {
		return nil, errs.Errorf(errs.Limit, "malformed query: %s has %d values, over the limit of %d", name, len(arg.Array()), MaxInValues).
			WithHint("split the query into several, or use a range ($gte/$lte) instead of a list")
	}
	p := &inPred{}
	for _, e := range arg.Array() {
		switch {
		case isRegexDoc(e):
			re, _, err := regexFromDoc(e)
			if err != nil {
				return nil, err
			}
			p.regexes = append(p.regexes, re.re)
		case e.Kind() == value.Regex: // matches strings, and equal regexes
			re, err := expr.CompileRegex(e.Pattern(), e.Options())
			if err != nil {
				return nil, err
			}
			p.regexes = append(p.regexes, re)
			p.add(e)
		case isOperatorDoc(e):
			return nil, malformed("cannot nest $ under %s (found `%s`)", name, e.Fields()[0].Key).
				WithHint(`list plain values, or regexes as {"$regex":"…"}`)
		default:
			p.add(e)
		}
	}
	return p, nil
}

// compileMod compiles $mod: [divisor, remainder], numbers truncated toward
// zero.
func compileMod(arg value.Value) (valuePred, error) {
	if arg.Kind() != value.Array {
		return nil, malformed("$mod needs an array [divisor, remainder]")
	}
	switch {
	case len(arg.Array()) < 2:
		return nil, malformed("$mod needs an array [divisor, remainder]: not enough elements")
	case len(arg.Array()) > 2:
		return nil, malformed("$mod needs an array [divisor, remainder]: too many elements")
	}
	div, err := modNumber("divisor", arg.Array()[0])
	if err != nil {
		return nil, err
	}
	rem, err := modNumber("remainder", arg.Array()[1])
	if err != nil {
		return nil, err
	}
	if div == 0 {
		return nil, malformed("$mod divisor cannot be 0")
	}
	return modPred{div: div, rem: rem}, nil
}

func modNumber(what string, v value.Value) (int64, error) {
	switch v.Kind() {
	case value.Long, value.Int:
		return v.Long(), nil
	case value.Double:
		if i, ok := truncToLong(v.Double()); ok {
			return i, nil
		}
		return 0, malformed("$mod %s must be a finite number that fits in 64 bits, got %s", what, v)
	}
	return 0, malformed("$mod %s must be a number, got %s", what, v.TypeName())
}

// truncToLong truncates f toward zero; ok is false for NaN, infinities and
// values outside the int64 range.
func truncToLong(f float64) (int64, bool) {
	if math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return 0, false
	}
	return int64(math.Trunc(f)), true
}
