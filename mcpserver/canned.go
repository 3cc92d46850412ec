package mcpserver

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sync"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Canned tools (--tools-file) let an operator offer fixed, parameterised
// queries instead of free-form filters:
//
//	{"tools": [{
//	  "name": "users_in_city",
//	  "description": "Users of one city, youngest first.",
//	  "scope": "read",                        // optional, default read
//	  "path": "app.omgdb",                    // optional: fixed store, else the tool takes `path`
//	  "collection": "users",
//	  "parameters": {"city": {"type": "string", "description": "City name", "maxLength": 80}},
//	  "filter": {"address.city": {"$param": "city"}},   // or "pipeline": [stages…]
//	  "reject": {"role": "admin"},            // optional: refuse the call if a result matches this
//	  "limit": 50                             // optional: most documents per page, default 100
//	}]}
//
// Parameters are typed (string, integer, number, boolean) and checked
// (minimum, maximum, enum, maxLength, pattern; required unless they have
// a default). A {"$param": "x"} placeholder is replaced by the argument's
// value as a value, never spliced into text, so an argument cannot add
// operators or fields to the filter.

// cannedName is compiled on first use: package initialisation runs on
// every command's start-up, not only the MCP server's.
var cannedName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// cannedSpec is one canned tool as the file defines it.
type cannedSpec struct {
	name, path, coll         string
	filter, pipeline, reject value.Value
	params                   []param
	limit                    int64
}

func (s *Server) loadCanned() ([]*tool, error) {
	if s.cfg.ToolsFile == "" {
		return nil, nil
	}
	fail := func(format string, args ...any) error {
		return errs.Errorf(errs.Usage, "--tools-file %s: %s", s.cfg.ToolsFile, fmt.Sprintf(format, args...)).
			WithHint("see `omgdb docs mcp` for the format of canned tools")
	}
	b, err := os.ReadFile(s.cfg.ToolsFile)
	if err != nil {
		return nil, fail("%v", unwrapPathError(err))
	}
	doc, err := value.Parse(b)
	if err != nil {
		return nil, fail("%v", err)
	}
	if doc.Kind() != value.Object || doc.Get("tools").Kind() != value.Array {
		return nil, fail(`expected an object with a "tools" array`)
	}
	var tools []*tool
	for i, def := range doc.Get("tools").Array() {
		t, err := s.cannedTool(def)
		if err != nil {
			return nil, fail("tool %d: %v", i+1, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func (s *Server) cannedTool(def value.Value) (*tool, error) {
	if def.Kind() != value.Object {
		return nil, fmt.Errorf("a tool must be an object")
	}
	if err := checkKeys(def, "name", "title", "description", "scope", "path", "collection", "parameters", "filter", "reject", "limit", "pipeline"); err != nil {
		return nil, err
	}
	spec := &cannedSpec{name: def.Get("name").Str(), path: def.Get("path").Str(), coll: def.Get("collection").Str(),
		filter: def.Get("filter"), pipeline: def.Get("pipeline"), reject: def.Get("reject"), limit: 100}
	switch {
	case !cannedName().MatchString(spec.name):
		return nil, fmt.Errorf("name %q must be 1 to 64 letters, digits, '_' or '-'", spec.name)
	case def.Get("description").Str() == "":
		return nil, fmt.Errorf("`%s` needs a description", spec.name)
	case spec.filter.IsMissing() == spec.pipeline.IsMissing():
		return nil, fmt.Errorf("`%s` needs a filter or a pipeline (one of them)", spec.name)
	case !spec.filter.IsMissing() && spec.filter.Kind() != value.Object:
		return nil, fmt.Errorf("`%s`: filter must be an object", spec.name)
	case !spec.pipeline.IsMissing() && spec.pipeline.Kind() != value.Array:
		return nil, fmt.Errorf("`%s`: pipeline must be an array of stages", spec.name)
	case !spec.reject.IsMissing() && spec.reject.Kind() != value.Object:
		return nil, fmt.Errorf("`%s`: reject must be a filter (an object)", spec.name)
	case spec.path != "" && s.cfg.Store != "" && !s.isPinned(spec.path):
		return nil, fmt.Errorf("`%s`: path %s is not the pinned store %s", spec.name, spec.path, s.cfg.Store)
	}
	if err := store.ValidateCollectionName(spec.coll); err != nil {
		return nil, fmt.Errorf("`%s`: %v", spec.name, err)
	}
	scope, err := cannedScope(def.Get("scope"))
	if err != nil {
		return nil, fmt.Errorf("`%s`: %v", spec.name, err)
	}
	if v := def.Get("limit"); !v.IsMissing() {
		n, ok := integer(v)
		if !ok || n < 1 || n > MaxLimit {
			return nil, fmt.Errorf("`%s`: limit must be an integer from 1 to %d", spec.name, MaxLimit)
		}
		spec.limit = n
	}
	if spec.params, err = cannedParams(def.Get("parameters")); err != nil {
		return nil, fmt.Errorf("`%s`: %v", spec.name, err)
	}
	if err := spec.check(); err != nil {
		return nil, fmt.Errorf("`%s`: %v", spec.name, err)
	}
	return s.cannedToolFrom(spec, def, scope), nil
}

func cannedScope(v value.Value) (Scope, error) {
	if v.IsMissing() {
		return ScopeRead, nil
	}
	return ParseScope(v.Str())
}

func (s *Server) cannedToolFrom(spec *cannedSpec, def value.Value, scope Scope) *tool {
	params := []param{}
	if spec.path == "" {
		params = append(params, s.pathParam())
	}
	params = append(params, spec.params...)
	limit := limitParam
	limit.Max, limit.Default = i64(spec.limit), value.LongValue(spec.limit)
	params = append(params, limit, cursorParam)
	title := def.Get("title").Str()
	if title == "" {
		title = spec.name
	}
	t := &tool{Name: spec.name, Title: title, Description: def.Get("description").Str(), Scope: scope,
		Params: params, ReadOnly: true, Idempotent: true, canned: true}
	t.Output = s.findTool().Output
	if !spec.pipeline.IsMissing() {
		t.Output = s.aggregateTool().Output
	}
	t.Run = spec.run
	return t
}

// cannedParams parses the "parameters" object, keeping its order.
func cannedParams(v value.Value) ([]param, error) {
	if v.IsMissing() {
		return nil, nil
	}
	if v.Kind() != value.Object {
		return nil, fmt.Errorf("parameters must be an object")
	}
	var params []param
	for _, f := range v.Fields() {
		p, err := cannedParam(f.Key, f.Value)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %v", f.Key, err)
		}
		params = append(params, p)
	}
	return params, nil
}

func cannedParam(name string, d value.Value) (param, error) {
	p := param{Name: name, Type: d.Get("type").Str(), Description: d.Get("description").Str(),
		Default: d.Get("default"), MaxLength: int(d.Get("maxLength").Long()), Pattern: d.Get("pattern").Str()}
	switch {
	case d.Kind() != value.Object:
		return p, fmt.Errorf("must be an object")
	case !cannedName().MatchString(name) || name == "path" || name == "limit" || name == "cursor":
		return p, fmt.Errorf("bad name (letters, digits, '_', '-'; not path, limit or cursor)")
	case !contains([]string{"string", "integer", "number", "boolean"}, p.Type):
		return p, fmt.Errorf("type must be string, integer, number or boolean")
	case p.Description == "":
		return p, fmt.Errorf("needs a description")
	}
	if err := checkKeys(d, "type", "description", "default", "minimum", "maximum", "enum", "maxLength", "pattern"); err != nil {
		return p, err
	}
	for _, b := range []struct {
		key string
		dst **int64
	}{{"minimum", &p.Min}, {"maximum", &p.Max}} {
		if v := d.Get(b.key); !v.IsMissing() {
			n, ok := integer(v)
			if !ok {
				return p, fmt.Errorf("%s must be an integer", b.key)
			}
			*b.dst = i64(n)
		}
	}
	for _, e := range d.Get("enum").Array() {
		p.Enum = append(p.Enum, e.Str())
	}
	if p.Pattern != "" {
		re, err := regexp.Compile("^(?:" + p.Pattern + ")$")
		if err != nil {
			return p, fmt.Errorf("pattern: %v", err)
		}
		p.pattern = re
	}
	p.Required = p.Default.IsMissing()
	if !p.Required {
		if _, err := p.check("", p.Default); err != nil {
			return p, fmt.Errorf("default: %v", err)
		}
	}
	return p, nil
}

func checkKeys(v value.Value, known ...string) error {
	for _, f := range v.Fields() {
		if !contains(known, f.Key) {
			return fmt.Errorf("unknown key %q%s", f.Key, errs.DidYouMean(f.Key, known))
		}
	}
	return nil
}

// check verifies that the templates name only declared parameters, use
// each, and compile with placeholder values.
func (spec *cannedSpec) check() error {
	used := map[string]bool{}
	var bad string
	probe := func(tmpl value.Value) (value.Value, error) {
		return substitute(tmpl, func(name string) (value.Value, bool) {
			used[name] = true
			for _, p := range spec.params {
				if p.Name == name {
					return zeroOf(p.Type), true
				}
			}
			bad = name
			return value.Value{}, false
		})
	}
	for i, tmpl := range []value.Value{spec.filter, spec.pipeline, spec.reject} {
		if tmpl.IsMissing() {
			continue
		}
		v, err := probe(tmpl)
		if err != nil {
			return fmt.Errorf("unknown parameter %q in a template", bad)
		}
		if i == 1 {
			_, err = agg.CompilePipeline(v, nil)
		} else {
			_, err = compileFilter(v)
		}
		if err != nil {
			return err
		}
	}
	for _, p := range spec.params {
		if !used[p.Name] {
			return fmt.Errorf("parameter %s is not used in the filter, pipeline or reject", p.Name)
		}
	}
	return nil
}

func zeroOf(typ string) value.Value {
	switch typ {
	case "integer":
		return value.LongValue(0)
	case "number":
		return value.DoubleValue(0)
	case "boolean":
		return value.BoolValue(false)
	}
	return value.StringValue("")
}

// substitute replaces every {"$param": "name"} in a template by the value
// arg gives for it.
func substitute(tmpl value.Value, arg func(string) (value.Value, bool)) (value.Value, error) {
	switch tmpl.Kind() {
	case value.Object:
		if tmpl.Len() == 1 && tmpl.Fields()[0].Key == "$param" {
			name := tmpl.Fields()[0].Value.Str()
			v, ok := arg(name)
			if !ok {
				return tmpl, fmt.Errorf("unknown parameter %q", name)
			}
			return v, nil
		}
		fields := make([]value.Field, tmpl.Len())
		for i, f := range tmpl.Fields() {
			v, err := substitute(f.Value, arg)
			if err != nil {
				return tmpl, err
			}
			fields[i] = value.Field{Key: f.Key, Value: v}
		}
		return value.ObjectValue(fields), nil
	case value.Array:
		elems := make([]value.Value, tmpl.Len())
		for i, e := range tmpl.Array() {
			v, err := substitute(e, arg)
			if err != nil {
				return tmpl, err
			}
			elems[i] = v
		}
		return value.ArrayValue(elems), nil
	}
	return tmpl, nil
}

// run runs a canned tool: its templates filled with the call's
// arguments, then a find or an aggregate.
func (spec *cannedSpec) run(ctx context.Context, c *call) (*output, error) {
	if spec.path != "" {
		c.path = spec.path
	}
	fill := func(tmpl value.Value) (value.Value, error) {
		return substitute(tmpl, func(name string) (value.Value, bool) {
			if v := c.value(name); !v.IsMissing() {
				return v, true
			}
			return c.tool.param(name).Default, true
		})
	}
	var reject *query.Filter
	if !spec.reject.IsMissing() {
		v, err := fill(spec.reject)
		if err != nil {
			return nil, err
		}
		if reject, err = compileFilter(v); err != nil {
			return nil, err
		}
	}
	key := obj("tool", spec.name, "path", c.storePath(), "args", c.args.Without("cursor").Without("limit"))
	if !spec.pipeline.IsMissing() {
		v, err := fill(spec.pipeline)
		if err != nil {
			return nil, err
		}
		p, err := c.compilePipeline(v)
		if err != nil {
			return nil, err
		}
		return c.aggregate(ctx, spec.coll, p, reject, key)
	}
	v, err := fill(spec.filter)
	if err != nil {
		return nil, err
	}
	filter, err := compileFilter(v)
	if err != nil {
		return nil, err
	}
	return c.find(ctx, findQuery{coll: spec.coll, spec: v, filter: filter, reject: reject, key: key})
}

// countRejecting counts the matches of filter, refusing the call if one
// of them matches reject.
func (c *call) countRejecting(ctx context.Context, col *store.Collection, filter, reject *query.Filter) (int64, error) {
	return drain(&rejectSource{Source: c.scan(ctx, col, store.Query{Filter: filter}), reject: reject, tool: c.tool.Name})
}

// rejectSource stops a canned tool's scan at the first match that also
// matches its reject filter.
type rejectSource struct {
	agg.Source
	reject *query.Filter
	tool   string
	hit    bool
}

func (r *rejectSource) Next() bool {
	if !r.Source.Next() {
		return false
	}
	if r.reject.Match(r.Source.Doc()) {
		r.hit = true
		return false
	}
	return true
}

func (r *rejectSource) Err() error {
	if r.hit {
		return errorf(CodePolicyDenied, "tool `%s` refused: a matching document matches the tool's reject filter", r.tool).
			withHint("this query reaches documents the operator excluded; narrow it").withContext("tool", r.tool)
	}
	return r.Source.Err()
}
