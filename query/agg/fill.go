package agg

import (
	"slices"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/value"
)

// $fill sets null and missing fields, as MongoDB defines it: a field with
// {"value": <expression>} gets the expression's value; one with
// {"method": "locf"} or {"method": "linear"} gets $locf or $linearFill of
// itself over its partition in sortBy order. The stage runs as the
// $setWindowFields of the methods (which orders the documents by
// partition and sortBy) followed by an $addFields of the values.

type fillStage struct{ stages []stage }

var fillFields = []string{"partitionBy", "partitionByFields", "sortBy", "output"}

func compileFillStage(c *expr.Compiler, spec value.Value, where pipeWhere) (stage, error) {
	if spec.Kind() != value.Object {
		return nil, errs.Errorf(errs.Invalid, "the $fill specification must be an object, found %s", spec.TypeName())
	}
	for _, f := range spec.Fields() {
		if !slices.Contains(fillFields, f.Key) {
			return nil, errs.Errorf(errs.Invalid, "$fill: unknown field %s%s", f.Key, errs.DidYouMean(f.Key, fillFields))
		}
	}
	out := spec.Get("output")
	if out.Kind() != value.Object || out.Len() == 0 {
		return nil, errs.Errorf(errs.Invalid, "$fill requires a non-empty 'output' object, found %s", out).
			WithHint(`write {"$fill":{"sortBy":{"t":1},"output":{"price":{"method":"locf"},"qty":{"value":0}}}}`)
	}
	window := []value.Field{}
	var methods, values []value.Field
	if p, pf := spec.Get("partitionBy"), spec.Get("partitionByFields"); !p.IsMissing() || !pf.IsMissing() {
		if !p.IsMissing() && !pf.IsMissing() {
			return nil, errs.Errorf(errs.Invalid, "$fill: give partitionBy or partitionByFields, not both")
		}
		if !pf.IsMissing() {
			var err error
			if p, err = fieldsPartition(pf); err != nil {
				return nil, err
			}
		}
		window = append(window, value.Field{Key: "partitionBy", Value: p})
	}
	if sb := spec.Get("sortBy"); !sb.IsMissing() {
		window = append(window, value.Field{Key: "sortBy", Value: sb})
	}
	for _, f := range out.Fields() {
		how := f.Value
		if how.Kind() != value.Object || how.Len() != 1 {
			return nil, errs.Errorf(errs.Invalid, "$fill: output field %q must be {\"value\": <expression>} or {\"method\": \"locf\"|\"linear\"}, found %s", f.Key, how)
		}
		h := how.Fields()[0]
		switch {
		case h.Key == "value":
			values = append(values, value.Field{Key: f.Key, Value: value.ObjectValue([]value.Field{{Key: "$ifNull", Value: value.ArrayValue([]value.Value{value.StringValue("$" + f.Key), h.Value})}})})
		case h.Key == "method" && h.Value.Kind() == value.String && (h.Value.Str() == "locf" || h.Value.Str() == "linear"):
			op := map[string]string{"locf": "$locf", "linear": "$linearFill"}[h.Value.Str()]
			methods = append(methods, value.Field{Key: f.Key, Value: value.ObjectValue([]value.Field{{Key: op, Value: value.StringValue("$" + f.Key)}})})
		default:
			return nil, errs.Errorf(errs.Invalid, "$fill: output field %q: expected 'value' or 'method' (\"locf\" or \"linear\"), found %s", f.Key, how)
		}
	}
	s := &fillStage{}
	if len(methods) > 0 {
		if spec.Get("sortBy").IsMissing() {
			return nil, errs.Errorf(errs.Invalid, "$fill: a fill 'method' requires a sortBy")
		}
		w, err := compileWindowStage(c, value.ObjectValue(append(window, value.Field{Key: "output", Value: value.ObjectValue(methods)})), where)
		if err != nil {
			return nil, err
		}
		s.stages = append(s.stages, w)
	}
	if len(values) > 0 {
		a, err := compileAddFieldsStage(c, value.ObjectValue(values), where)
		if err != nil {
			return nil, err
		}
		s.stages = append(s.stages, a)
	}
	return s, nil
}

// fieldsPartition turns partitionByFields into the partitionBy object
// of the same fields.
func fieldsPartition(pf value.Value) (value.Value, error) {
	if pf.Kind() != value.Array {
		return value.Value{}, errs.Errorf(errs.Invalid, "$fill: partitionByFields must be an array of field names, found %s", pf)
	}
	var fields []value.Field
	for _, f := range pf.Array() {
		if f.Kind() != value.String || f.Str() == "" || f.Str()[0] == '$' {
			return value.Value{}, errs.Errorf(errs.Invalid, "$fill: partitionByFields must hold field names, found %s", f)
		}
		fields = append(fields, value.Field{Key: f.Str(), Value: value.StringValue("$" + f.Str())})
	}
	return value.ObjectValue(fields), nil
}

func (s *fillStage) run(r *runState, in Source) Source { return r.runStages(s.stages, in) }
