package rules

import (
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// Validator translates a collection's validation rules (see omgdb docs
// validation) to a MongoDB validator: "required" and "fields" become a
// $jsonSchema (dotted paths as nested properties), "validator" is kept
// as it is, both together under $and. It also says what has no
// translation (a collation, a min or max that is not a number), which
// the server then does not enforce. Missing rules give a Missing
// validator.
func Validator(rules value.Value) (value.Value, string) {
	if rules.IsMissing() {
		return value.Value{}, ""
	}
	var parts []value.Value
	var untranslated []string
	root := &schemaNode{}
	for _, r := range rules.Get("required").Array() {
		root.require(strings.Split(r.Str(), "."))
	}
	for _, f := range rules.Get("fields").Fields() {
		node := root.at(strings.Split(f.Key, "."))
		if what := node.setRule(f.Value); what != "" && !slices.Contains(untranslated, what) {
			untranslated = append(untranslated, what)
		}
	}
	if !root.empty() {
		parts = append(parts, value.ObjectValue([]value.Field{{Key: "$jsonSchema", Value: root.value()}}))
	}
	if v := rules.Get("validator"); !v.IsMissing() {
		parts = append(parts, v)
	}
	if !rules.Get("collation").IsMissing() {
		untranslated = append(untranslated, "a collation")
	}
	switch len(parts) {
	case 0:
		return value.Value{}, strings.Join(untranslated, " and ")
	case 1:
		return parts[0], strings.Join(untranslated, " and ")
	}
	return value.ObjectValue([]value.Field{{Key: "$and", Value: value.ArrayValue(parts)}}), strings.Join(untranslated, " and ")
}

// schemaNode is one level of a $jsonSchema being built.
type schemaNode struct {
	rule     []value.Field // bsonType, enum, minimum, maximum, pattern
	required []string
	names    []string // properties, in the order first named
	props    map[string]*schemaNode
}

func (n *schemaNode) empty() bool {
	return len(n.rule) == 0 && len(n.required) == 0 && len(n.names) == 0
}

// at returns the node of a path, creating the levels on the way.
func (n *schemaNode) at(path []string) *schemaNode {
	for _, p := range path {
		if n.props == nil {
			n.props = map[string]*schemaNode{}
		}
		next := n.props[p]
		if next == nil {
			next = &schemaNode{}
			n.props[p] = next
			n.names = append(n.names, p)
		}
		n = next
	}
	return n
}

// require marks a path required: each level in its parent.
func (n *schemaNode) require(path []string) {
	for _, p := range path {
		if !slices.Contains(n.required, p) {
			n.required = append(n.required, p)
		}
		n = n.at([]string{p})
	}
}

// setRule sets a field rule (a type name, a list of them, or an object
// with type, enum, min, max, pattern); it returns what it could not
// translate.
func (n *schemaNode) setRule(rule value.Value) string {
	switch rule.Kind() {
	case value.String, value.Array:
		n.rule = append(n.rule, value.Field{Key: "bsonType", Value: bsonTypes(rule)})
		return ""
	}
	var missed string
	for _, f := range rule.Fields() {
		switch f.Key {
		case "type":
			n.rule = append(n.rule, value.Field{Key: "bsonType", Value: bsonTypes(f.Value)})
		case "enum", "pattern":
			n.rule = append(n.rule, f)
		case "min", "max":
			if !f.Value.IsNumber() {
				missed = "a min or max that is not a number"
				continue
			}
			n.rule = append(n.rule, value.Field{Key: map[string]string{"min": "minimum", "max": "maximum"}[f.Key], Value: f.Value})
		}
	}
	return missed
}

// bsonTypes maps rule type names to $jsonSchema bsonType aliases: the
// same names, except that "long" takes an int too.
func bsonTypes(names value.Value) value.Value {
	list := []value.Value{names}
	if names.Kind() == value.Array {
		list = names.Array()
	}
	var out []value.Value
	for _, t := range list {
		out = append(out, t)
		if t.Str() == "long" {
			out = append(out, value.StringValue("int"))
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return value.ArrayValue(out)
}

// value returns the node as a $jsonSchema document.
func (n *schemaNode) value() value.Value {
	fields := append([]value.Field(nil), n.rule...)
	if len(n.required) > 0 {
		req := make([]value.Value, len(n.required))
		for i, r := range n.required {
			req[i] = value.StringValue(r)
		}
		fields = append(fields, value.Field{Key: "required", Value: value.ArrayValue(req)})
	}
	if len(n.names) > 0 {
		props := make([]value.Field, len(n.names))
		for i, p := range n.names {
			props[i] = value.Field{Key: p, Value: n.props[p].value()}
		}
		fields = append(fields, value.Field{Key: "properties", Value: value.ObjectValue(props)})
	}
	return value.ObjectValue(fields)
}
