package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The change lifecycle: plan_update, plan_delete and plan_revert store a
// plan and return its token; apply writes it; rollback undoes any change;
// plans lists or shows plans. Results carry next_valid_actions: the
// listed tools worth calling next.

var (
	multiParam  = param{Name: "multi", Type: "boolean", Default: value.BoolValue(true), Description: "All matches; false: the first in _id order."}
	sampleParam = param{Name: "sample", Type: "integer", Min: i64(0), Max: i64(20), Default: value.LongValue(changes.DefaultSample), Description: "Before/after pairs to show."}
	planOutput  = func() value.Value {
		return outputSchema([]string{"token", "next_valid_actions"}, "token", tStr(), "matched", tInt(), "modified", tInt(),
			"sampleBeforeAfter", tList(), "kind", tStr(), "expires", tStr(), "next_valid_actions", tArr(tStr()))
	}
)

func (s *Server) planUpdateTool() *tool {
	return &tool{
		Name: "plan_update", Title: "Plan an update", Scope: ScopeReadWrite,
		Description: sentence("Plan an update (operators, a replacement or a pipeline) of matching documents without writing them;",
			"returns a token, counts and before/after samples. Show the user, then apply the token. Example:",
			s.example("collection", "users", "filter", obj("_id", 1), "update", obj("$set", obj("age", 37)))),
		Params: []param{s.pathParam(), collectionParam, filterParam,
			{Name: "update", Type: objectOrArray, Required: true, Description: "Update operators, a replacement document, or an update pipeline."},
			{Name: "upsert", Type: "boolean", Description: "Insert a document when nothing matches."},
			multiParam,
			{Name: "array_filters", Type: "array", Description: "Filters for $[<id>] paths."},
			sampleParam, planCollationParam, maxBytesParam},
		Output: planOutput(),
		Run:    runPlanUpdate,
	}
}

func runPlanUpdate(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	po, _, err := c.planUpdateArgs(coll)
	if err != nil {
		return nil, err
	}
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	res, err := changes.PlanUpdate(ctx, db, coll, c.filterArg(), c.value("update"), po)
	if err != nil {
		return nil, planError(err)
	}
	return c.planOutput(res)
}

// planUpdateArgs checks a plan_update's collection against the policy,
// compiles its update, and refuses what would test or write a redacted
// field (an update pipeline on a collection with redactions, a filter,
// update or array filter that names one), on a file as over an engine.
func (c *call) planUpdateArgs(coll string) (*changes.PlanOptions, *query.Update, error) {
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, nil, deniedCollection(coll)
	}
	if _, err := c.collation(); err != nil {
		return nil, nil, err
	}
	po := c.planOptions()
	po.Upsert = c.value("upsert").Bool()
	if v := c.value("array_filters"); !v.IsMissing() {
		po.ArrayFilters = v.Array()
	}
	// A bad update is the update's fault, not the filter's (planError
	// would call it INVALID_FILTER).
	u, err := changes.CompileUpdate(c.value("update"), &query.UpdateOptions{ArrayFilters: po.ArrayFilters})
	if err != nil {
		return nil, nil, argError(err, "update")
	}
	if c.value("update").Kind() == value.Array && c.srv.policy.specRedactor(coll) != nil {
		return nil, nil, errorf(CodePolicyDenied, "an update pipeline on `%s`, which has redacted fields, is refused: its expressions could copy a redacted value into another field",
			truncate(coll, 120)).withHint(leaveRedactedHint).withContext("argument", "update")
	}
	if u := c.value("update"); u.Kind() == value.Object && !isOperatorObject(u) && c.srv.policy.specRedactor(coll) != nil {
		return nil, nil, errorf(CodePolicyDenied, "a replacement document on `%s`, which has redacted fields, is refused: it would remove them, and whether it changes a document would tell whether the document has them",
			truncate(coll, 120)).withHint(leaveRedactedHint).withContext("argument", "update")
	}
	if err := c.refuseRedactedSpecs(coll, c.filterArg(), c.value("update"), po.ArrayFilters); err != nil {
		return nil, nil, err
	}
	return po, u, nil
}

// leaveRedactedHint is the hint of a refused update on a collection
// with redacted fields.
const leaveRedactedHint = "use update operators ({\"$set\":…}) that leave the redacted fields alone"

func (s *Server) planDeleteTool() *tool {
	return &tool{
		Name: "plan_delete", Title: "Plan a deletion", Scope: ScopeReadWrite,
		Description: sentence("Plan the deletion of matching documents without deleting them; returns a token,",
			"counts and samples. Show the user, then apply the token. Example:",
			s.example("collection", "users", "filter", obj("city", "Lyon"))),
		Params: []param{s.pathParam(), collectionParam,
			{Name: "filter", Type: "object", Required: true, Description: "MongoDB filter; {} matches all."},
			multiParam, sampleParam, planCollationParam, maxBytesParam},
		Output: planOutput(),
		Run:    runPlanDelete,
	}
}

func runPlanDelete(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if c.srv.policy.collectionAllowed(coll) {
		if err := c.refuseRedactedSpecs(coll, c.filterArg(), value.MissingValue, nil); err != nil {
			return nil, err
		}
	}
	if _, err := c.collation(); err != nil {
		return nil, err
	}
	db, err := c.openFor(coll, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	res, err := changes.PlanDelete(ctx, db, coll, c.filterArg(), c.planOptions())
	if err != nil {
		return nil, planError(err)
	}
	return c.planOutput(res)
}

func (s *Server) planRevertTool() *tool {
	return &tool{
		Name: "plan_revert", Title: "Plan a revert", Scope: ScopeReadWrite,
		Description: sentence("Plan bringing every document changed since a revision (lsn, snapshot name, change id",
			"or ISO time) back to its state then; returns a token to apply. Example:",
			s.example("revision", "before-import")),
		Params: []param{s.pathParam(),
			{Name: "revision", Type: "string", Required: true, Description: "Lsn, snapshot, change id or ISO time."},
			sampleParam, maxBytesParam},
		Output: planOutput(),
		Run:    runPlanRevert,
	}
}

func runPlanRevert(ctx context.Context, c *call) (*output, error) {
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	res, err := changes.PlanRevert(ctx, db, c.str("revision"), c.planOptions())
	if err != nil {
		return nil, planError(err)
	}
	if err := c.collectionsAllowed(res.Collections); err != nil {
		changes.Discard(ctx, db, res.Token)
		return nil, err
	}
	return c.planOutput(res)
}

func (c *call) planOptions() *changes.PlanOptions {
	sample := int(c.int("sample", changes.DefaultSample))
	if sample == 0 {
		sample = -1
	}
	return &changes.PlanOptions{Sample: sample, First: !c.bool("multi", true), Actor: c.actor(), Collation: c.value("collation")}
}

func (c *call) bool(name string, def bool) bool {
	if v := c.value(name); !v.IsMissing() {
		return v.Bool()
	}
	return def
}

// filterArg returns the filter argument, {} when absent.
func (c *call) filterArg() value.Value {
	if v := c.value("filter"); !v.IsMissing() {
		return v
	}
	return obj()
}

// planError marks a plan's filter error as INVALID_FILTER (a document
// that breaks the collection's rules is not one: INVALID_ARGUMENT).
func planError(err error) error {
	if errs.KindOf(err) == errs.Invalid && !errors.Is(err, store.ErrRuleViolation) {
		return filterError(err)
	}
	return err
}

func (c *call) collectionsAllowed(colls []string) error {
	for _, coll := range colls {
		if !c.srv.policy.collectionAllowed(coll) {
			return deniedCollection(coll)
		}
	}
	return nil
}

func (c *call) planOutput(res *changes.PlanResult) (*output, error) {
	k := &capper{c: c}
	samples := []shownPair{}
	for _, ba := range res.SampleBeforeAfter {
		sp := shownPair{BeforeAfter: ba}
		sp.Before.Value = k.doc(c.redactDoc(res.Collection, ba.Before.Value))
		sp.After.Value = k.doc(c.redactDoc(res.Collection, ba.After.Value))
		sp.OnlyRedacted = c.srv.policy.specRedactor(res.Collection) != nil && onlyRedacted(sp.Before.Value, sp.After.Value)
		if k.fits(sp) {
			samples = append(samples, sp)
		}
	}
	res.SampleBeforeAfter = nil
	res.NextValidActions = c.next(res.NextValidActions, "plans")
	out, err := c.resultOf(struct {
		*changes.PlanResult
		Samples []shownPair `json:"sampleBeforeAfter"`
	}{res, samples}, "planned documents")
	if out != nil {
		out.matched = matchCount{n: res.Matched}
	}
	return withLimits(out, k), err
}

// redactDoc removes the redacted fields of coll from a document. With
// coll empty (a revert plan's samples, which span collections) it
// removes every field any redaction names.
func (c *call) redactDoc(coll string, doc value.Value) value.Value {
	if doc.Kind() != value.Object {
		return doc
	}
	if coll == "" {
		for _, p := range c.srv.policy.redactionsAny() {
			doc = removePath(doc, p)
		}
		return doc
	}
	if red := c.redactor(coll); red != nil {
		return red(doc)
	}
	return doc
}

// next maps the library's next actions to this server's tools, keeping
// the listed ones: show is the given tool (plans, or diff for a change).
func (c *call) next(actions []string, show string) []string {
	out := []string{}
	for _, a := range actions {
		t := a
		switch a {
		case changes.ActionShow:
			t = show
		case changes.ActionDiscard:
			continue // no tool: a pending plan expires on its own
		}
		if c.srv.listed(t) && !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// resultOf converts a library result (a struct with JSON tags) to the
// tool's structured output; fence names the untrusted data it holds, or
// is "" for none.
func (c *call) resultOf(x any, fence string) (*output, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	v, err := value.Parse(b)
	if err != nil {
		return nil, err
	}
	out := newOutput(v)
	out.fence = fence
	return out, nil
}

func (s *Server) plansTool() *tool {
	return &tool{
		Name: "plans", Title: "List or show plans", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: "Pending plans, or with token one plan and the documents it changes, before and after.",
		Params: []param{s.pathParam(),
			{Name: "token", Type: "string", MaxLength: 64, Description: "Show this plan."},
			{Name: "all", Type: "boolean", Description: "Also applied, discarded and expired plans."}, maxBytesParam},
		Output: outputSchema([]string{"next_valid_actions"}, "plans", tList(), "plan", tObj(),
			"documents", tList(), "applied_limits", tObj(), "next_valid_actions", tArr(tStr())),
		Run: runPlans,
	}
}

// EnginePlans reads an engine's plans for the plans tool: it lists and
// shows, and has no method that writes, so a read-scope server may be
// handed one (Config.Plans). Errors' texts are shown as they are.
type EnginePlans interface {
	// Plans lists the plans, oldest first: the pending ones, or with all
	// every plan, with its status as of now.
	Plans(ctx context.Context, all bool) ([]*changes.Plan, error)
	// ShowPlan returns a plan and the documents it changes.
	ShowPlan(ctx context.Context, token string) (*changes.Plan, []changes.PlanDoc, error)
}

// filePlans is a store file's plans.
type filePlans struct{ db *store.DB }

func (f filePlans) Plans(ctx context.Context, all bool) ([]*changes.Plan, error) {
	return changes.Plans(ctx, f.db, all)
}

func (f filePlans) ShowPlan(ctx context.Context, token string) (*changes.Plan, []changes.PlanDoc, error) {
	return changes.ShowPlan(ctx, f.db, token)
}

func runPlans(ctx context.Context, c *call) (*output, error) {
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return c.plansResult(ctx, filePlans{db})
}

// plansResult is the plans tool's answer from a source of plans: one
// plan with its documents (redacted, cut and capped), or the list.
func (c *call) plansResult(ctx context.Context, src EnginePlans) (*output, error) {
	if tok := c.str("token"); tok != "" {
		p, docs, err := src.ShowPlan(ctx, tok)
		if err != nil {
			return nil, err
		}
		if err := c.collectionsAllowed(planColls(p)); err != nil {
			return nil, err
		}
		c.redactPlan(p)
		k := &capper{c: c}
		shown := []shownPlanDoc{}
		for _, d := range docs {
			sd := shownPlanDoc{PlanDoc: d}
			sd.Before.Value = k.doc(c.redactDoc(d.Collection, d.Before.Value))
			sd.After.Value = k.doc(c.redactDoc(d.Collection, d.After.Value))
			if c.redactor(d.Collection) != nil || k.cut {
				sd.Fields = nil // they would show redacted or cut values
			}
			sd.OnlyRedacted = c.redactor(d.Collection) != nil && onlyRedacted(sd.Before.Value, sd.After.Value)
			if !k.fits(sd) {
				break
			}
			shown = append(shown, sd)
		}
		next := []string{}
		switch p.Status {
		case changes.StatusPending:
			next = c.next([]string{changes.ActionApply}, "")
		case changes.StatusApplied:
			next = c.next([]string{changes.ActionRollback, "history"}, "")
		}
		out, err := c.resultOf(struct {
			Plan      *changes.Plan  `json:"plan"`
			Documents []shownPlanDoc `json:"documents"`
			Next      []string       `json:"next_valid_actions"`
		}{p, shown, next}, "planned documents")
		if out != nil {
			out.returned = int64(len(shown))
		}
		return withLimits(out, k), err
	}
	plans, err := src.Plans(ctx, c.value("all").Bool())
	if err != nil {
		return nil, err
	}
	shown := []*changes.Plan{}
	for _, p := range plans {
		if c.collectionsAllowed(planColls(p)) == nil {
			p.Filter, p.Update, p.ArrayFilters, p.Pipeline = nil, nil, nil, nil // may hold data; show one plan for them
			shown = append(shown, p)
		}
	}
	next := []string{}
	if len(shown) > 0 {
		next = c.next([]string{changes.ActionApply}, "")
	}
	out, err := c.resultOf(struct {
		Plans []*changes.Plan `json:"plans"`
		Next  []string        `json:"next_valid_actions"`
	}{shown, next}, "")
	if out != nil {
		out.returned = int64(len(shown))
	}
	return out, err
}

func planColls(p *changes.Plan) []string {
	colls := p.Collections
	if p.Collection != "" {
		colls = append([]string{p.Collection}, colls...)
	}
	if p.Source != "" { // an aggregate plan reads it
		colls = append(colls, p.Source)
	}
	return colls
}

func (s *Server) applyTool() *tool {
	return &tool{
		Name: "apply", Title: "Apply a plan", Scope: ScopeReadWrite, Destructive: true,
		Description: sentence("Apply a pending plan by its token, in one transaction, only after the user confirmed it.",
			"If any planned document changed since, nothing is written (CONFLICT). Undo with rollback. Example:",
			s.example("token", "<token>")),
		Params: []param{s.pathParam(), {Name: "token", Type: "string", Required: true, MaxLength: 64, Description: "The plan's token."}},
		Output: outputSchema([]string{"change_id", "next_valid_actions"}, "token", tStr(), "change_id", tStr(),
			"inserted", tInt(), "updated", tInt(), "deleted", tInt(), "next_valid_actions", tArr(tStr())),
		Run: runApply,
	}
}

func runApply(ctx context.Context, c *call) (*output, error) {
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tok := c.str("token")
	if c.srv.policy.restrictsCollections() {
		if p, _, err := changes.ShowPlan(ctx, db, tok); err == nil {
			if err := c.collectionsAllowed(planColls(p)); err != nil {
				return nil, err
			}
		}
	}
	res, err := changes.Apply(ctx, db, tok, &changes.ApplyOptions{Actor: c.actor()})
	if err != nil {
		return nil, conflictError(err, "plan_update", "plan_delete", "plans")
	}
	res.NextValidActions = c.next(append(res.NextValidActions, "diff", "history"), "diff")
	return c.resultOf(res, "")
}

func (s *Server) rollbackTool() *tool {
	return &tool{
		Name: "rollback", Title: "Roll back a change", Scope: ScopeReadWrite, Destructive: true,
		Description: sentence("Undo a change (an applied plan, an insert, a rollback…) by its change_id, in one transaction.",
			"Refuses with CONFLICT if its documents changed since, unless force. Example:",
			s.example("change_id", "<change id>")),
		Params: []param{s.pathParam(),
			{Name: "change_id", Type: "string", Required: true, MaxLength: 64, Description: "The change to undo (see history)."},
			{Name: "force", Type: "boolean", Description: "Also undo later edits of those documents."}},
		Output: outputSchema([]string{"change_id", "next_valid_actions"}, "change_id", tStr(), "rolled_back", tStr(),
			"inserted", tInt(), "updated", tInt(), "deleted", tInt(), "overwritten", tList(), "next_valid_actions", tArr(tStr())),
		Run: runRollback,
	}
}

func runRollback(ctx context.Context, c *call) (*output, error) {
	db, err := c.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	id := c.str("change_id")
	if c.srv.policy.restrictsCollections() {
		hist, err := changes.History(ctx, db, nil)
		if err != nil {
			return nil, err
		}
		for _, ch := range hist {
			if ch.ID == id {
				if err := c.collectionsAllowed(ch.Collections); err != nil {
					return nil, err
				}
			}
		}
	}
	res, err := changes.Rollback(ctx, db, id, &changes.RollbackOptions{Force: c.value("force").Bool(), Actor: c.actor()})
	if err != nil {
		return nil, conflictError(err, "history", "diff")
	}
	res.NextValidActions = c.next(append(res.NextValidActions, "history"), "diff")
	return c.resultOf(res, "")
}

// conflictError gives a conflict the ids of the documents that changed,
// in context; other errors pass through.
func conflictError(err error, next ...string) error {
	var ce *changes.ConflictError
	if !errors.As(err, &ce) {
		return err
	}
	te := asToolError(err, "", "")
	docs := make([]value.Value, 0, len(ce.Docs))
	for i, d := range ce.Docs {
		if i == 100 {
			break
		}
		docs = append(docs, obj("collection", d.Collection, "_id", d.ID.Value))
	}
	te.code = CodeConflict
	te.context = obj("documents", docs, "conflicts", int64(len(ce.Docs)))
	te.next = append(te.next, next...)
	return te
}

// redactionsAny returns every redacted field path, whatever its
// collection.
func (p *policy) redactionsAny() [][]string {
	var paths [][]string
	for _, g := range p.redactOrder {
		paths = append(paths, p.redact[g]...)
	}
	return paths
}

// restrictsCollections reports whether --collections or
// --deny-collections is in force.
func (p *policy) restrictsCollections() bool { return len(p.allowColl) > 0 || len(p.denyColl) > 0 }

// capper keeps the entries of a lifecycle result (diffs, plan documents,
// versions) within --max-docs and --max-bytes, and cuts their strings at
// --max-string, as find's pages are kept.
type capper struct {
	c      *call
	n      int
	bytes  int
	full   bool
	cut    bool
	limits []value.Field
}

// doc cuts the long strings of a document.
func (k *capper) doc(v value.Value) value.Value {
	v, cut := truncateStrings(v, k.c.srv.cfg.MaxString)
	if cut && !k.cut {
		k.cut = true
		k.limits = append(k.limits, value.Field{Key: "max_string", Value: value.LongValue(int64(k.c.srv.cfg.MaxString))})
	}
	return v
}

// fits reports whether the entry may be added, and counts it if so.
// Once one does not fit, none does.
func (k *capper) fits(entry any) bool {
	if k.full {
		return false
	}
	cfg := k.c.srv.cfg
	if k.n >= cfg.MaxDocs {
		k.full = true
		k.limits = append(k.limits, value.Field{Key: "max_docs", Value: value.LongValue(int64(cfg.MaxDocs))})
		return false
	}
	b, _ := json.Marshal(entry)
	if max := k.c.maxBytes(); k.bytes+len(b) > max {
		k.full = true
		k.limits = append(k.limits, value.Field{Key: "max_bytes", Value: value.LongValue(int64(max))})
		return false
	}
	k.n++
	k.bytes += len(b)
	return true
}

// appliedLimits is the applied_limits of the result: the caps that
// fired, or missing.
func (k *capper) appliedLimits() value.Value {
	if len(k.limits) == 0 {
		return value.MissingValue
	}
	return value.ObjectValue(k.limits)
}

// withLimits adds applied_limits to an output when a cap fired.
func withLimits(out *output, k *capper) *output {
	if out != nil && len(k.limits) > 0 {
		out.data = out.data.With("applied_limits", k.appliedLimits())
	}
	return out
}
