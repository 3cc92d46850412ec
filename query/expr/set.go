package expr

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Set operators. Arrays are treated as sets: duplicates are ignored and
// equal numbers of different types (1 and 1.0) are the same element.
// Results keep the order in which elements were first seen.

func registerExprSetOps() {
	registerOps(map[string]opCompiler{
		"$setUnion":        rangeOp(0, -1, setUnion),
		"$setIntersection": rangeOp(0, -1, setIntersection),
		"$setDifference":   fixedOp(2, setDifference),
		"$setEquals":       rangeOp(2, -1, setEquals),
		"$setIsSubset":     fixedOp(2, setIsSubset),
	})
}

// valueSet is a set of values keyed by their order-preserving encoding.
type valueSet map[string]struct{}

func (s valueSet) has(v value.Value) bool {
	_, ok := s[string(value.AppendKey(nil, v))]
	return ok
}

// add reports whether v was new.
func (s valueSet) add(v value.Value) bool {
	k := string(value.AppendKey(nil, v))
	if _, ok := s[k]; ok {
		return false
	}
	s[k] = struct{}{}
	return true
}

func setOf(arr []value.Value) valueSet {
	s := valueSet{}
	for _, v := range arr {
		s.add(v)
	}
	return s
}

// setArgs checks that every argument is an array; ok is false if one is
// null or missing (and nullOK).
func setArgs(op string, args []value.Value, nullOK bool) (bool, error) {
	for _, a := range args {
		if Nullish(a) && nullOK {
			return false, nil
		}
		if a.Kind() != value.Array {
			return false, errs.Errorf(errs.Invalid, "all operands of %s must be arrays; one argument is of type: %s", op, a.TypeName())
		}
	}
	return true, nil
}

func setUnion(args []value.Value) (value.Value, error) {
	if ok, err := setArgs("$setUnion", args, true); !ok {
		return value.NullValue(), err
	}
	seen, out := valueSet{}, []value.Value{}
	for _, a := range args {
		for _, v := range a.Array() {
			if seen.add(v) {
				out = append(out, v)
			}
		}
	}
	return value.ArrayValue(out), nil
}

func setIntersection(args []value.Value) (value.Value, error) {
	if ok, err := setArgs("$setIntersection", args, true); !ok {
		return value.NullValue(), err
	}
	if len(args) == 0 {
		return value.ArrayValue(nil), nil
	}
	others := make([]valueSet, len(args)-1)
	for i, a := range args[1:] {
		others[i] = setOf(a.Array())
	}
	seen, out := valueSet{}, []value.Value{}
	for _, v := range args[0].Array() {
		if inAll(others, v) && seen.add(v) {
			out = append(out, v)
		}
	}
	return value.ArrayValue(out), nil
}

func inAll(sets []valueSet, v value.Value) bool {
	for _, s := range sets {
		if !s.has(v) {
			return false
		}
	}
	return true
}

func setDifference(args []value.Value) (value.Value, error) {
	if ok, err := setArgs("$setDifference", args, true); !ok {
		return value.NullValue(), err
	}
	exclude, seen, out := setOf(args[1].Array()), valueSet{}, []value.Value{}
	for _, v := range args[0].Array() {
		if !exclude.has(v) && seen.add(v) {
			out = append(out, v)
		}
	}
	return value.ArrayValue(out), nil
}

func setEquals(args []value.Value) (value.Value, error) {
	if _, err := setArgs("$setEquals", args, false); err != nil {
		return value.Value{}, err
	}
	first := setOf(args[0].Array())
	for _, a := range args[1:] {
		s := setOf(a.Array())
		if len(s) != len(first) {
			return value.BoolValue(false), nil
		}
		for k := range s {
			if _, ok := first[k]; !ok {
				return value.BoolValue(false), nil
			}
		}
	}
	return value.BoolValue(true), nil
}

func setIsSubset(args []value.Value) (value.Value, error) {
	if _, err := setArgs("$setIsSubset", args, false); err != nil {
		return value.Value{}, err
	}
	super := setOf(args[1].Array())
	for _, v := range args[0].Array() {
		if !super.has(v) {
			return value.BoolValue(false), nil
		}
	}
	return value.BoolValue(true), nil
}
