package query

import (
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// updateOperators lists the update operators, most used first (ties in
// did-you-mean suggestions go to the earlier one).
var updateOperators = []string{
	"$set", "$unset", "$inc", "$push", "$pull", "$addToSet", "$rename", "$setOnInsert",
	"$min", "$max", "$mul", "$pop", "$pullAll", "$currentDate", "$bit",
}

// leafMaker validates an operator's argument for one path and returns the
// operator's behaviour. path is the path as written, for messages.
type leafMaker func(arg value.Value, path string) (leafOp, error)

var leafMakers = map[string]leafMaker{
	"$set":         makeSet,
	"$setOnInsert": makeSet,
	"$unset":       makeUnset,
	"$inc":         makeInc,
	"$mul":         makeMul,
	"$min":         makeMin,
	"$max":         makeMax,
	"$currentDate": makeCurrentDate,
	"$bit":         makeBit,
	"$push":        makePush,
	"$addToSet":    makeAddToSet,
	"$pop":         makePop,
	"$pull":        makePull,
	"$pullAll":     makePullAll,
}

// fieldOp is one operator applied to one path.
type fieldOp struct {
	name   string   // the operator, such as "$set"
	path   []string // the target path as written
	from   []string // $rename: the source path
	leaf   leafOp   // nil for $rename
	posAt  int      // index of the positional $ component, or -1
	hasArr bool     // path holds $[] or $[<identifier>]
}

// CompileUpdate validates an update document and compiles it. spec holds
// either update operators or, when its first key does not start with '$',
// a replacement document. opts may be nil. Errors are *Error values of
// kind Invalid with MongoDB's messages (kind Limit for a path nested
// deeper than documents may be).
func CompileUpdate(spec value.Value, opts *UpdateOptions) (*Update, error) {
	if opts == nil {
		opts = &UpdateOptions{}
	}
	if err := checkUpdateShape(spec); err != nil {
		return nil, err
	}
	filters, order, err := compileArrayFilters(opts.ArrayFilters)
	if err != nil {
		return nil, err
	}
	u := &Update{spec: spec, filters: filters}
	c := &updateCompiler{u: u, used: map[string]bool{}}
	if strings.HasPrefix(spec.Fields()[0].Key, "$") {
		err = c.compileOperators(spec)
	} else {
		err = u.compileReplacement(spec)
	}
	if err == nil {
		err = c.checkFiltersUsed(order)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

func checkUpdateShape(spec value.Value) error {
	switch {
	case spec.Kind() == value.Array:
		return errs.Errorf(errs.Invalid, "CompileUpdate takes update operators or a replacement document, not a pipeline").
			WithHint("compile a pipeline-style update with changes.CompileUpdate (or agg.CompileUpdatePipeline and NewPipelineUpdate)")
	case spec.Kind() != value.Object:
		return errs.Errorf(errs.Invalid, "update must be an object, got %s", spec.TypeName()).
			WithHint(`write update operators such as {"$set":{"field":value}}`)
	case spec.Len() == 0:
		return errs.Errorf(errs.Invalid, "Update document requires atomic operators").
			WithHint(`write update operators such as {"$set":{"field":value}}; a replacement document needs at least one field`)
	}
	return nil
}

// compileReplacement validates a replacement document.
func (u *Update) compileReplacement(spec value.Value) error {
	for _, f := range spec.Fields() {
		if strings.HasPrefix(f.Key, "$") {
			return errs.Errorf(errs.Invalid, "The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document.", f.Key, f.Key).
				WithHint(`an update holds either only operators ({"$set":{…}}) or, to replace the document, only fields`)
		}
		if err := checkUpdateKey(f.Key, f.Key); err != nil {
			return err
		}
		if err := checkUpdateValue(f.Value, f.Key); err != nil {
			return err
		}
	}
	if err := checkUpdatedDoc(spec, true); err != nil {
		return err
	}
	u.isReplace, u.replacement = true, spec
	return nil
}

// updateCompiler holds the state of one CompileUpdate call.
type updateCompiler struct {
	u     *Update
	used  map[string]bool // array filter identifiers used so far
	paths [][]string      // every path registered so far, for conflicts
}

func (c *updateCompiler) compileOperators(spec value.Value) error {
	for _, f := range spec.Fields() {
		if err := c.operator(f); err != nil {
			return err
		}
	}
	return nil
}

func (c *updateCompiler) operator(f value.Field) error {
	_, known := leafMakers[f.Key]
	switch {
	case f.Key == "$rename":
	case !strings.HasPrefix(f.Key, "$"):
		return errs.Errorf(errs.Invalid, "unknown update operator: %s%s", f.Key, errs.DidYouMean(f.Key, updateOperators)).
			WithHint(`an update holds either only operators ({"$set":{…}}) or, to replace the document, only fields`)
	case !known:
		return errs.Errorf(errs.Invalid, "unknown update operator: %s%s", f.Key, errs.DidYouMean(f.Key, updateOperators)).
			WithHint("update operators are %s", strings.Join(updateOperators, ", "))
	}
	if f.Value.Kind() != value.Object {
		return errs.Errorf(errs.Invalid, "Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s}",
			f.Value.TypeName(), mongoElem(f.Key, f.Value))
	}
	for _, fl := range f.Value.Fields() {
		var err error
		if f.Key == "$rename" {
			err = c.rename(fl)
		} else {
			err = c.field(f.Key, fl)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// field compiles one path of an operator other than $rename.
func (c *updateCompiler) field(name string, fl value.Field) error {
	path, err := parseUpdatePath(fl.Key)
	if err != nil {
		return err
	}
	leaf, err := leafMakers[name](fl.Value, fl.Key)
	if err != nil {
		return err
	}
	if err := c.register(path); err != nil {
		return err
	}
	c.add(&fieldOp{name: name, path: path, leaf: leaf})
	return nil
}

// rename compiles one {from: to} pair of $rename.
func (c *updateCompiler) rename(fl value.Field) error {
	from, err := parseUpdatePath(fl.Key)
	if err != nil {
		return err
	}
	if err := c.register(from); err != nil {
		return err
	}
	if fl.Value.Kind() != value.String {
		return errs.Errorf(errs.Invalid, "The 'to' field for $rename must be a string: %s", mongoElem(fl.Key, fl.Value))
	}
	to, err := parseUpdatePath(fl.Value.Str())
	if err != nil {
		return err
	}
	if err := checkRename(from, to, fl); err != nil {
		return err
	}
	if err := c.register(to); err != nil {
		return err
	}
	c.add(&fieldOp{name: "$rename", path: to, from: from})
	return nil
}

func checkRename(from, to []string, fl value.Field) error {
	switch {
	case dottedPath(from) == dottedPath(to):
		return errs.Errorf(errs.Invalid, "The source and target field for $rename must differ: %s", mongoElem(fl.Key, fl.Value))
	case pathHasPrefix(from, to) || pathHasPrefix(to, from):
		return errs.Errorf(errs.Invalid, "The source and target field for $rename must not be on the same path: %s", mongoElem(fl.Key, fl.Value))
	case isPositionalPath(from):
		return errs.Errorf(errs.Invalid, "The source field for $rename may not be dynamic: %s", dottedPath(from))
	case isPositionalPath(to):
		return errs.Errorf(errs.Invalid, "The destination field for $rename may not be dynamic: %s", dottedPath(to))
	}
	return nil
}

// add records a compiled operator and where its path is positional.
func (c *updateCompiler) add(op *fieldOp) {
	op.posAt = -1
	for i, comp := range op.path {
		switch {
		case comp == "$":
			op.posAt = i
		case isArrayUpdate(comp):
			op.hasArr = true
		}
	}
	if op.posAt >= 0 || op.hasArr {
		c.u.dynamic = true
	}
	c.u.ops = append(c.u.ops, op)
}

// register checks path's array filter identifiers and that it does not
// conflict with the paths registered before it, then registers it.
func (c *updateCompiler) register(path []string) error {
	if err := c.identifiers(path); err != nil {
		return err
	}
	at := -1
	for _, q := range c.paths {
		if l := conflictLevel(path, q); l >= 0 && (at < 0 || l < at) {
			at = l
		}
	}
	if at >= 0 {
		return errs.Errorf(errs.Invalid, "Updating the path '%s' would create a conflict at '%s'", dottedPath(path), dottedPath(path[:at+1])).
			WithHint("each field may be updated by one operator, and not together with a field inside it; split the update in two")
	}
	c.paths = append(c.paths, path)
	return nil
}

// conflictLevel returns the index of the component of p at which p
// conflicts with q in MongoDB's update tree (one path is a prefix of the
// other, or one continues into an array filter where the other names a
// field), or -1 when they do not conflict.
func conflictLevel(p, q []string) int {
	for i := range p {
		if i >= len(q) || p[i] != q[i] {
			return -1
		}
		if i == len(p)-1 || i == len(q)-1 || isArrayUpdate(p[i+1]) != isArrayUpdate(q[i+1]) {
			return i
		}
	}
	return -1
}

// identifiers checks the $[<identifier>] components of path.
func (c *updateCompiler) identifiers(path []string) error {
	for i, comp := range path {
		if !isArrayUpdate(comp) {
			continue
		}
		if i == 0 {
			return errs.Errorf(errs.Invalid, "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '%s'", dottedPath(path))
		}
		id := comp[2 : len(comp)-1]
		if id == "" {
			continue
		}
		if c.u.filters[id] == nil {
			return errs.Errorf(errs.Invalid, "No array filter found for identifier '%s' in path '%s'", id, dottedPath(path)).
				WithHint(`pass a filter for it in arrayFilters, such as {"%s":{"$gt":0}}`, id)
		}
		c.used[id] = true
	}
	return nil
}

func (c *updateCompiler) checkFiltersUsed(order []string) error {
	for _, id := range order {
		if !c.used[id] {
			return errs.Errorf(errs.Invalid, "The array filter for identifier '%s' was not used in the update %s", id, mongoValue(c.u.spec)).
				WithHint("remove the filter, or use $[%s] in a path", id)
		}
	}
	return nil
}

// parseUpdatePath splits and validates a path of an update operator.
func parseUpdatePath(s string) ([]string, error) {
	if s == "" {
		return nil, errs.Errorf(errs.Invalid, "An empty update path is not valid.")
	}
	path := strings.Split(s, ".")
	positional, first := 0, -1
	for i, comp := range path {
		if comp == "" {
			return nil, errs.Errorf(errs.Invalid, "The update path '%s' contains an empty field name, which is not allowed.", s)
		}
		if comp == "$" {
			if positional++; first < 0 {
				first = i
			}
		}
	}
	switch {
	case positional > 1:
		return nil, errs.Errorf(errs.Invalid, "Too many positional (i.e. '$') elements found in path '%s'", s)
	case first == 0:
		return nil, errs.Errorf(errs.Invalid, "Cannot have positional (i.e. '$') element in the first position in path '%s'", s)
	case len(path) >= value.MaxDepth:
		return nil, errs.Errorf(errs.Limit, "the update path '%s' has %d parts; documents nest at most %d levels", clipMessage(s), len(path), value.MaxDepth)
	}
	for _, comp := range path {
		if comp[0] == '$' && comp != "$" && !isArrayUpdate(comp) {
			return nil, errs.Errorf(errs.Invalid, "The dollar ($) prefixed field '%s' in '%s' is not valid for storage.", comp, s).
				WithHint("omgdb stores no field names that start with '$'; positional operators are $, $[] and $[<identifier>]")
		}
	}
	return path, nil
}

// checkUpdateValue refuses field names that omgdb cannot store or address
// inside a value written at path: names that start with '$' or contain '.'.
func checkUpdateValue(v value.Value, path string) error {
	switch v.Kind() {
	case value.Object:
		for _, f := range v.Fields() {
			full := path + "." + f.Key
			if err := checkUpdateKey(f.Key, full); err != nil {
				return err
			}
			if err := checkUpdateValue(f.Value, full); err != nil {
				return err
			}
		}
	case value.Array:
		for i, e := range v.Array() {
			if err := checkUpdateValue(e, path+"."+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkUpdateKey(key, full string) error {
	if strings.HasPrefix(key, "$") {
		return errs.Errorf(errs.Invalid, "The dollar ($) prefixed field '%s' in '%s' is not valid for storage.", key, full).
			WithHint("omgdb stores no field names that start with '$'; rename the field")
	}
	if strings.Contains(key, ".") {
		return errs.Errorf(errs.Invalid, "The dotted field '%s' in '%s' is not valid for storage: field names cannot contain '.'", key, full).
			WithHint("nest the value instead: a dotted name is read as a path")
	}
	return nil
}
