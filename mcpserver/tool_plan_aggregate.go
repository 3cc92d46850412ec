package mcpserver

import (
	"context"
	"strings"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// plan_aggregate plans the writes of a pipeline that ends in $out or
// $merge (changes.PlanAggregate), as plan_update plans an update. Before
// anything is opened, every collection the pipeline names is checked
// against the policy: the source, the target, and the collections of
// $lookup, $unionWith and $graphLookup at any depth ($facet, sub-pipelines).
// The engine reads those collections itself, so this check is what keeps
// a denied collection out; and a pipeline that reads or writes a
// collection with redacted fields is refused, because its stages could
// copy a redacted value into the target, or match on one ($merge's "on").

func (s *Server) planAggregateTool() *tool {
	return &tool{
		Name: "plan_aggregate", Title: "Plan an aggregation's writes", Scope: ScopeReadWrite,
		Description: sentence("Plan the writes of a pipeline ending in $out or $merge without writing them;",
			"returns a token, counts and before/after samples of the target. Show the user, then apply the token. Example:",
			s.example("collection", "orders", "pipeline", arr(obj("$group", obj("_id", "$city", "n", obj("$sum", 1))), obj("$out", "by_city")))),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "pipeline", Type: "array", Required: true, Description: "The stages; the last is $out or $merge."},
			sampleParam, maxBytesParam},
		Output: planOutput(),
		Run:    runPlanAggregate,
	}
}

func runPlanAggregate(ctx context.Context, c *call) (*output, error) {
	coll, pipeline := c.str("collection"), c.value("pipeline")
	if err := c.aggregatePolicy(coll, pipeline); err != nil {
		return nil, err
	}
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.View(func(tx *store.Tx) error { _, err := c.collection(tx, coll); return err }); err != nil {
		return nil, err // not found, with a did-you-mean among the visible collections only
	}
	res, err := changes.PlanAggregate(ctx, db, coll, pipeline, c.planOptions())
	if err != nil {
		return nil, argError(err, "pipeline")
	}
	return c.planOutput(res)
}

// aggregatePolicy checks every collection a plan_aggregate's pipeline
// names against the policy: allowed, and without redacted fields.
func (c *call) aggregatePolicy(coll string, pipeline value.Value) error {
	if !c.srv.policy.collectionAllowed(coll) {
		return deniedCollection(coll)
	}
	names, err := pipelineCollections(pipeline)
	if err != nil {
		return argError(err, "pipeline")
	}
	for _, name := range append([]string{coll}, names...) {
		if !c.srv.policy.collectionAllowed(name) {
			return deniedCollection(name)
		}
		if c.srv.policy.specRedactor(name) != nil {
			return errorf(CodePolicyDenied, "a pipeline that reads or writes `%s`, which has redacted fields, is refused: its stages could copy a redacted value into the target or match on one",
				truncate(name, 120)).withHint("aggregate (read scope) reads redacted collections with the fields removed; plan writes to other collections with plan_update").
				withContext("argument", "pipeline", "collection", truncate(name, 120))
		}
	}
	return nil
}

// pipelineCollections returns the collections a pipeline names, in the
// order it names them: the targets of $out and $merge, and the
// collections $lookup, $unionWith and $graphLookup read, in sub-pipelines
// and $facet too. A name that is not a plain string is an error: the
// policy could not judge it.
func pipelineCollections(pipeline value.Value) ([]string, error) {
	var names []string
	var walk func(p value.Value, depth int) error
	walk = func(p value.Value, depth int) error {
		if p.Kind() != value.Array {
			return errs.Errorf(errs.Invalid, "a pipeline is an array of stages, found %s", p.TypeName()).
				WithHint(`write [{"$match":{…}}, {"$out":"target"}]`)
		}
		if depth > 20 {
			return errs.Errorf(errs.Limit, "sub-pipelines nest more than 20 deep")
		}
		for _, st := range p.Array() {
			if st.Kind() != value.Object || st.Len() != 1 {
				continue // the engine names the fault
			}
			op, arg := st.Fields()[0].Key, st.Fields()[0].Value
			refs, subs, err := stageCollections(op, arg)
			if err != nil {
				return err
			}
			names = append(names, refs...)
			for _, sub := range subs {
				if err := walk(sub, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return names, walk(pipeline, 0)
}

// stageCollections returns the collections one stage names and its
// sub-pipelines.
func stageCollections(op string, arg value.Value) (refs []string, subs []value.Value, err error) {
	switch op {
	case "$out":
		name, err := collName(op, arg, "coll")
		return []string{name}, nil, err
	case "$merge":
		into := arg
		if arg.Kind() == value.Object {
			into = arg.Get("into")
		}
		name, err := collName(op, into, "coll")
		return []string{name}, nil, err
	case "$unionWith":
		name, err := collName(op, arg, "coll")
		if arg.Kind() == value.Object && arg.Has("pipeline") {
			subs = append(subs, arg.Get("pipeline"))
			if !arg.Has("coll") {
				name, err = "", nil // a $documents pipeline alone
			}
		}
		if name != "" {
			refs = append(refs, name)
		}
		return refs, subs, err
	case "$lookup", "$graphLookup":
		if arg.Kind() != value.Object {
			return nil, nil, nil // the engine names the fault
		}
		if arg.Has("from") || op == "$graphLookup" {
			name, err := collName(op+".from", arg.Get("from"), "coll")
			if err != nil {
				return nil, nil, err
			}
			refs = append(refs, name)
		}
		if arg.Has("pipeline") {
			subs = append(subs, arg.Get("pipeline"))
		}
		return refs, subs, nil
	case "$facet":
		for _, f := range arg.Fields() {
			subs = append(subs, f.Value)
		}
	}
	return refs, subs, nil
}

// collName reads a collection name: a string, or {db?, <key>: string}.
func collName(where string, v value.Value, key string) (string, error) {
	found := v
	if v.Kind() == value.Object {
		v = v.Get(key)
	}
	if v.Kind() != value.String || v.Str() == "" || strings.HasPrefix(v.Str(), "$") {
		return "", errs.Errorf(errs.Invalid, "%s needs a collection name (a string, or an object with %q), found %.80s", where, key, found.String()).
			WithHint(`name the collection as a string, such as {"$out":"summary"}`)
	}
	return v.Str(), nil
}
