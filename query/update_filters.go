package query

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// compileArrayFilters compiles the arrayFilters option: one filter per
// identifier. order lists the identifiers as given.
func compileArrayFilters(list []value.Value) (map[string]*Filter, []string, error) {
	filters := map[string]*Filter{}
	var order []string
	for i, spec := range list {
		if spec.Kind() != value.Object {
			return nil, nil, errs.Errorf(errs.Invalid, "arrayFilters[%d] must be an object, got %s", i, spec.TypeName())
		}
		f, err := CompileFilter(spec)
		if err != nil {
			return nil, nil, arrayFilterError(err)
		}
		id, err := filterIdentifier(spec)
		if err != nil {
			return nil, nil, err
		}
		if filters[id] != nil {
			return nil, nil, errs.Errorf(errs.Invalid, "Found multiple array filters with the same top-level field name %s", id).
				WithHint("combine the conditions on %s in one filter", id)
		}
		filters[id] = f
		order = append(order, id)
	}
	return filters, order, nil
}

func arrayFilterError(err error) error {
	e := errs.Errorf(errs.Invalid, "Error parsing array filter :: caused by :: %s", err.Error())
	e.Hint, e.Err = errs.HintOf(err), err
	return e
}

// filterIdentifier returns the identifier an array filter is about: the
// first component of its field names, which must be the same for all.
func filterIdentifier(spec value.Value) (string, error) {
	var names []string
	collectFilterNames(spec, &names)
	if len(names) == 0 {
		return "", errs.Errorf(errs.Invalid, "Cannot use an expression without a top-level field name in arrayFilters").
			WithHint(`name the element in the filter, such as {"x":{"$gt":0}} for $[x]`)
	}
	for _, n := range names[1:] {
		if n != names[0] {
			return "", errs.Errorf(errs.Invalid, "Error parsing array filter :: caused by :: Expected a single top-level field name, found '%s' and '%s'", names[0], n).
				WithHint("give each identifier its own filter")
		}
	}
	if !validFilterIdentifier(names[0]) {
		return "", errs.Errorf(errs.Invalid, "Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '%s'", names[0])
	}
	return names[0], nil
}

// collectFilterNames appends the first path component of every field
// that the filter spec tests, looking into $and, $or and $nor.
func collectFilterNames(spec value.Value, names *[]string) {
	for _, f := range spec.Fields() {
		switch {
		case f.Key == "$and" || f.Key == "$or" || f.Key == "$nor":
			for _, e := range f.Value.Array() {
				collectFilterNames(e, names)
			}
		case strings.HasPrefix(f.Key, "$"):
		default:
			name, _, _ := strings.Cut(f.Key, ".")
			*names = append(*names, name)
		}
	}
}

// validFilterIdentifier reports whether id starts with a lowercase letter and
// is alphanumeric.
func validFilterIdentifier(id string) bool {
	if id == "" || id[0] < 'a' || id[0] > 'z' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// plan turns the update's operators into steps on concrete paths:
// positional components resolved against the input document, array
// filters evaluated on its elements. Steps come sorted in the order
// MongoDB applies them, which decides the order of new fields.
func (ap *applier) plan() ([]*step, error) {
	var steps []*step
	for _, op := range ap.u.ops {
		if op.name == "$setOnInsert" && !ap.ctx.Insert {
			continue
		}
		paths, err := ap.concretePaths(op)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			steps = append(steps, &step{ap: ap, op: op, leaf: op.leaf, path: p, from: op.from})
		}
	}
	if ap.u.dynamic {
		if err := checkStepConflicts(steps); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(steps, func(a, b *step) int { return compareUpdatePaths(a.path, b.path) })
	return steps, nil
}

// concretePaths resolves op's path into the paths it updates.
func (ap *applier) concretePaths(op *fieldOp) ([][]string, error) {
	path := op.path
	if op.posAt >= 0 {
		idx, err := ap.positional(op)
		if err != nil {
			return nil, err
		}
		path = withPathIndex(path, op.posAt, idx)
	}
	if !op.hasArr {
		return [][]string{path}, nil
	}
	var out [][]string
	err := ap.expand(ap.doc, path, 0, nil, &out)
	return out, err
}

// expand appends to out the concrete paths that path[i:] reaches below
// v, the value at prefix: $[] stands for every element of an array,
// $[<identifier>] for the elements its array filter matches.
func (ap *applier) expand(v value.Value, path []string, i int, prefix []string, out *[][]string) error {
	for ; i < len(path) && !isArrayUpdate(path[i]); i++ {
		prefix = append(prefix[:len(prefix):len(prefix)], path[i])
		v = valueAtPath(v, path[i:i+1])
	}
	if i == len(path) {
		*out = append(*out, prefix)
		return nil
	}
	if v.IsMissing() {
		return errs.Errorf(errs.Invalid, "The path '%s' must exist in the document in order to apply array updates.", dottedPath(prefix)).
			WithHint("$[] and $[<identifier>] update existing arrays only; use $set on '%s' to create it", dottedPath(prefix))
	}
	if !v.IsArray() {
		return errs.Errorf(errs.Invalid, "Cannot apply array updates to non-array element %s", mongoElem(prefix[len(prefix)-1], v))
	}
	id := path[i][2 : len(path[i])-1]
	for j, e := range v.Array() {
		if id != "" {
			ok, err := ap.u.filters[id].MatchContext(ap.ctx.Context, value.ObjectValue([]value.Field{{Key: id, Value: e}}))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		p := append(prefix[:len(prefix):len(prefix)], strconv.Itoa(j))
		if err := ap.expand(e, path, i+1, p, out); err != nil {
			return err
		}
	}
	return nil
}

// positional resolves the $ in op's path: the index of the first element
// of the array before it that ctx.Query matched. The query's conditions
// on that array (top level or inside $and) are tested against the
// document with the array cut down to each element in turn.
func (ap *applier) positional(op *fieldOp) (int, error) {
	prefix := op.path[:op.posAt]
	arr := valueAtPath(ap.doc, prefix)
	clauses := queryClauses(ap.ctx.Query, dottedPath(prefix), nil)
	if !arr.IsArray() || len(clauses) == 0 {
		return 0, errPositional(dottedPath(prefix))
	}
	var filters []*Filter
	for _, c := range clauses {
		f, err := CompileFilter(value.ObjectValue([]value.Field{c}))
		if err != nil {
			return 0, err
		}
		filters = append(filters, f)
	}
	for i, e := range arr.Array() {
		probe := replaceAtPath(ap.doc, prefix, value.ArrayValue([]value.Value{e}))
		ok, err := matchAllFilters(ap.ctx.Context, filters, probe)
		if err != nil {
			return 0, err
		}
		if ok {
			return i, nil
		}
	}
	return 0, errPositional(dottedPath(prefix))
}

func errPositional(array string) error {
	return errs.Errorf(errs.Invalid, "The positional operator did not find the match needed from the query.").
		WithHint("the filter must select an element of '%s' (for example {\"%s\": value}); use $[] for every element", array, array)
}

func matchAllFilters(ctx context.Context, filters []*Filter, doc value.Value) (bool, error) {
	for _, f := range filters {
		if ok, err := f.MatchContext(ctx, doc); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// queryClauses appends the clauses of query (top level or inside $and)
// whose field is array or a path inside it.
func queryClauses(query value.Value, array string, out []value.Field) []value.Field {
	for _, f := range query.Fields() {
		switch {
		case f.Key == "$and":
			for _, e := range f.Value.Array() {
				out = queryClauses(e, array, out)
			}
		case f.Key == array || strings.HasPrefix(f.Key, array+"."):
			out = append(out, f)
		}
	}
	return out
}

// replaceAtPath returns doc with the existing value at path replaced by val.
func replaceAtPath(doc value.Value, path []string, val value.Value) value.Value {
	if len(path) == 0 {
		return val
	}
	switch doc.Kind() {
	case value.Object:
		return doc.With(path[0], replaceAtPath(doc.Get(path[0]), path[1:], val))
	case value.Array:
		idx, _ := pathIndex(path[0])
		out := append([]value.Value(nil), doc.Array()...)
		out[idx] = replaceAtPath(out[idx], path[1:], val)
		return value.ArrayValue(out)
	}
	return doc
}

// checkStepConflicts refuses two operators that resolved to the same
// path, or to a path and a path inside it ($[] and 0 of one array, say).
func checkStepConflicts(steps []*step) error {
	owner := map[string]*fieldOp{}  // full paths
	inside := map[string]*fieldOp{} // proper prefixes of full paths
	multi := map[string]bool{}      // prefixes shared by several operators
	for _, s := range steps {
		for _, p := range [][]string{s.from, s.path} {
			if len(p) == 0 {
				continue
			}
			if at, ok := findStepConflict(p, s.op, owner, inside, multi); ok {
				return errs.Errorf(errs.Invalid, "Update created a conflict at '%s'", at).
					WithHint("two operators reach the same array element; split the update in two")
			}
			owner[dottedPath(p)] = s.op
			for k := 1; k < len(p); k++ {
				key := dottedPath(p[:k])
				if o, ok := inside[key]; ok && o != s.op {
					multi[key] = true
				}
				inside[key] = s.op
			}
		}
	}
	return nil
}

func findStepConflict(p []string, op *fieldOp, owner, inside map[string]*fieldOp, multi map[string]bool) (string, bool) {
	for k := 1; k <= len(p); k++ {
		key := dottedPath(p[:k])
		if o, ok := owner[key]; ok && o != op {
			return key, true
		}
	}
	key := dottedPath(p)
	if o, ok := inside[key]; ok && (o != op || multi[key]) {
		return key, true
	}
	return "", false
}
