package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// The write scope over an engine (Config.Writer): plan_update,
// plan_delete, apply, rollback and history (and insert and insert_many:
// engine_insert.go). A read-scope server is never
// handed a Writer (New refuses one), so its tools cannot reach a write
// function: the engine's counterpart of a store file opened read-only.
// The policy checks are the file server's own (planUpdateArgs,
// refuseRedactedSpecs, planOutput, collectionAllowed); what differs is
// that an apply without a transaction writes the documents that did not
// conflict, so a conflict is an error that also says what was written.

// EngineWriter is the write half of an engine: reviewable, reversible
// writes (plans in the deployment, an apply under per-document
// preconditions or in a transaction, the journal). Its errors' texts are
// shown to the agent as they are; they must not carry credentials.
type EngineWriter interface {
	// PlanUpdate and PlanDelete store a plan and return it as a store
	// file's planner does, with at most spec.Sample before/after pairs.
	PlanUpdate(ctx context.Context, spec *EnginePlan) (*changes.PlanResult, error)
	PlanDelete(ctx context.Context, spec *EnginePlan) (*changes.PlanResult, error)
	// PlanAggregate stores the plan of the writes of spec.Pipeline (it
	// ends in $out or $merge) over spec.Collection, with the store file's
	// $out and $merge semantics.
	PlanAggregate(ctx context.Context, spec *EnginePlan) (*changes.PlanResult, error)
	// PlanCollection returns the collection a plan (or the change that
	// applied it: its id is the plan's token) writes.
	PlanCollection(ctx context.Context, token string) (string, error)
	// Apply applies a pending plan; Rollback undoes an applied change.
	// Documents that conflicted are listed in the result, not an error.
	// Both stop between documents when ctx ends: then they return what
	// was written with an error (engine_deadline.go).
	Apply(ctx context.Context, token, actor string) (*EngineApplied, error)
	Rollback(ctx context.Context, changeID, actor string, force bool) (*EngineApplied, error)
	// History lists the changes made through omgdb, newest first: those
	// to coll when it is not empty, at most limit.
	History(ctx context.Context, coll string, limit int) ([]EngineChange, error)
}

// EnginePlan says what to plan.
type EnginePlan struct {
	Collection   string
	Filter       value.Value   // checked with omgdb's compiler
	Update       value.Value   // as given; missing for a delete
	Compiled     *query.Update // Update compiled (changes.CompileUpdate); nil for a delete
	ArrayFilters []value.Value
	Upsert       bool        // insert a document when the filter matches none
	First        bool        // only the first match in _id order
	Pipeline     value.Value // plan_aggregate: the pipeline over Collection
	Sample       int         // before/after pairs in the result
	Actor        string      // mcp:<client>
	// Collation is the collation argument (missing: none), checked by
	// omgdb's parser; the plan's documents are read with it.
	Collation value.Value
}

// EngineApplied is what an apply or a rollback did.
type EngineApplied struct {
	Token            string           `json:"token,omitempty"`
	ChangeID         string           `json:"change_id"`
	RolledBack       string           `json:"rolled_back,omitempty"` // a rollback: the change undone
	Kind             string           `json:"kind,omitempty"`
	Collection       string           `json:"collection"`
	Inserted         int64            `json:"inserted"`
	Updated          int64            `json:"updated"`
	Deleted          int64            `json:"deleted"`
	Conflicts        []EngineConflict `json:"conflicts"`           // documents not written, in plan order
	Transaction      bool             `json:"transaction"`         // one transaction: a conflict wrote nothing
	Unwritten        int64            `json:"unwritten,omitempty"` // stopped at the call's deadline: documents not written
	Message          string           `json:"message,omitempty"`
	NextValidActions []string         `json:"next_valid_actions"`
}

// EngineConflict is a planned document that was not written.
type EngineConflict struct {
	ID     changes.Doc `json:"_id"`
	Reason string      `json:"reason"`
}

// EngineChange is an entry of the engine's journal.
type EngineChange struct {
	ID           string    `json:"change"`
	Kind         string    `json:"kind"`
	Collections  []string  `json:"collections"`
	Inserted     int64     `json:"inserted"`
	Updated      int64     `json:"updated"`
	Deleted      int64     `json:"deleted"`
	Conflicts    int64     `json:"conflicts"`
	Time         time.Time `json:"time"`
	Actor        string    `json:"actor"`
	Note         string    `json:"note,omitempty"`
	Status       string    `json:"status"`
	RolledBackBy string    `json:"rolled_back_by,omitempty"`
	RollbackOf   string    `json:"rollback_of,omitempty"`
}

// engineWriteRuns are the tools a server with a Writer serves besides
// the reads of engineRuns.
var engineWriteRuns = map[string]func(context.Context, *call) (*output, error){
	"plan_update": runPlanUpdateEngine, "plan_delete": runPlanDeleteEngine, "apply": runApplyEngine,
	"rollback": runRollbackEngine,
}

// useEngineWriter points the write tools at the Writer: apply and
// rollback with the conflicts and transaction keys in their output.
func (s *Server) useEngineWriter(t *tool) {
	run := engineWriteRuns[t.Name]
	if s.cfg.Writer == nil || run == nil {
		return
	}
	t.Run = run
	switch t.Name {
	case "apply":
		t.Description = sentence("Apply a pending plan by its token, only after the user confirmed it. Each document is written only",
			"if it still equals its planned before-image (in one transaction where the deployment has them); otherwise the others",
			"are written and CONFLICT lists the changed ones with the change_id that rolls back the rest. Example:",
			s.example("token", "<token>"))
	case "rollback":
		t.Description = sentence("Undo a change made through omgdb by its change_id. Documents changed since are left",
			"alone and reported (CONFLICT), unless force. Example:", s.example("change_id", "<change id>"))
	}
	if t.Name == "apply" || t.Name == "rollback" {
		t.Output = t.Output.With("properties", t.Output.Get("properties").With("conflicts", tList()).With("transaction", tBool()))
	}
}

// engineWritable checks the collection a plan writes: allowed by the
// policy and visible, or (an upsert) a new collection that is neither
// omgdb's own nor the server's.
func (c *call) engineWritable(ctx context.Context, coll string, upsert bool) error {
	err := c.engineCollection(ctx, coll)
	if !upsert || err == nil || !isCode(err, CodeNotFound) {
		return err
	}
	if coll == "" || strings.HasPrefix(coll, "omgdb.") || strings.HasPrefix(coll, "system.") {
		return err
	}
	return nil
}

func isCode(err error, code string) bool {
	var te *toolError
	return errors.As(err, &te) && te.code == code
}

func runPlanUpdateEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	po, u, err := c.planUpdateArgs(coll)
	if err != nil {
		return nil, err
	}
	spec, err := c.enginePlan(ctx, coll, po.Upsert)
	if err != nil {
		return nil, err
	}
	spec.Update, spec.Compiled, spec.ArrayFilters, spec.Upsert = c.value("update"), u, po.ArrayFilters, po.Upsert
	res, err := c.srv.cfg.Writer.PlanUpdate(ctx, spec)
	if err != nil {
		return nil, c.engineWriteError(coll, planError(err))
	}
	return c.planOutput(res)
}

func runPlanDeleteEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	if !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	if err := c.refuseRedactedSpecs(coll, c.filterArg(), value.MissingValue, nil); err != nil {
		return nil, err
	}
	spec, err := c.enginePlan(ctx, coll, false)
	if err != nil {
		return nil, err
	}
	res, err := c.srv.cfg.Writer.PlanDelete(ctx, spec)
	if err != nil {
		return nil, c.engineWriteError(coll, planError(err))
	}
	return c.planOutput(res)
}

// enginePlan checks a plan's path, collection and filter, and returns
// its specification.
func (c *call) enginePlan(ctx context.Context, coll string, upsert bool) (*EnginePlan, error) {
	if _, err := compileFilter(c.filterArg()); err != nil {
		return nil, err
	}
	if _, err := c.collation(); err != nil {
		return nil, err
	}
	if err := c.engineWritable(ctx, coll, upsert); err != nil {
		return nil, err
	}
	return &EnginePlan{Collection: coll, Filter: c.filterArg(), First: !c.bool("multi", true),
		Sample: int(c.int("sample", changes.DefaultSample)), Actor: c.actor(), Collation: c.value("collation")}, nil
}

// engineAllowed refuses a plan or change (by token) on a collection the
// policy hides. An unknown or malformed token passes: the apply or
// rollback says so; any other failure to read the plan is the call's.
func (c *call) engineAllowed(ctx context.Context, token string) error {
	if err := c.enginePath(); err != nil || !c.srv.policy.restrictsCollections() {
		return err
	}
	coll, err := c.srv.cfg.Writer.PlanCollection(ctx, token)
	if k := errs.KindOf(err); k == errs.NotFound || k == errs.Invalid {
		return nil
	}
	if err != nil {
		return err
	}
	if !c.srv.policy.collectionAllowed(coll) {
		return deniedCollection(coll)
	}
	return nil
}

func runApplyEngine(ctx context.Context, c *call) (*output, error) {
	tok := c.str("token")
	if err := c.engineAllowed(ctx, tok); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // past its deadline: it does not start
	}
	apply := c.srv.cfg.Writer.Apply
	if c.bool("resume", false) {
		r, ok := c.srv.cfg.Writer.(EngineResumer) // engine_resume.go
		if !ok {
			return nil, errorf(CodeInvalidArgument, "argument `resume` is not supported by this server").withHint("apply the token without resume")
		}
		apply = r.Resume
	}
	res, err := apply(ctx, tok, c.actor())
	if res != nil && err != nil {
		return nil, c.enginePartial(res, err)
	}
	if err != nil {
		return nil, c.engineWriteError("", err)
	}
	return c.engineApplied(res, "apply "+tok, "plan_update", "plan_delete")
}

func runRollbackEngine(ctx context.Context, c *call) (*output, error) {
	id := c.str("change_id")
	if err := c.engineAllowed(ctx, id); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := c.srv.cfg.Writer.Rollback(ctx, id, c.actor(), c.value("force").Bool())
	if res != nil && err != nil {
		return nil, c.enginePartial(res, err)
	}
	if err != nil {
		return nil, c.engineWriteError("", err)
	}
	return c.engineApplied(res, "rollback "+id, "history")
}

// engineApplied is the result of an apply or rollback. Documents that
// conflicted make it a CONFLICT error whose context holds the whole
// result: without a transaction the others were written, and the change
// id is what rolls them back.
func (c *call) engineApplied(res *EngineApplied, what string, next ...string) (*output, error) {
	c.withholdUniqueReasons(res)
	res.NextValidActions = c.next(append(res.NextValidActions, "history"), "")
	if len(res.Conflicts) == 0 {
		return c.resultOf(res, "")
	}
	n := res.Inserted + res.Updated + res.Deleted
	written, next := fmt.Sprintf("the other %d were written (change %s)", n, res.ChangeID), append([]string{"rollback", "find"}, next...)
	switch {
	case res.Transaction:
		written, next = "nothing was written (one transaction)", next[1:]
	case n == 0:
		written, next = "nothing was written", next[1:]
	}
	ids := []string{}
	for i, cf := range res.Conflicts {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(res.Conflicts)-10))
			break
		}
		ids = append(ids, fmt.Sprintf("_id %s (%s)", truncate(cf.ID.Value.String(), 60), cf.Reason))
	}
	ctxv, err := c.resultOf(res, "")
	if err != nil {
		return nil, err
	}
	return nil, errorf(CodeConflict, "%s: %d document(s) in `%s` changed since the plan and were not written, %s: %s",
		what, len(res.Conflicts), truncate(res.Collection, 120), written, strings.Join(ids, ", ")).
		withHint("read them again and plan again for them; roll back the change to undo what was written").
		withNext(c.next(next, "")...).
		withContext("result", ctxv.data)
}

// engineWriteError withholds the server's message from an error of a
// write on a collection with redactions (or of an apply, whose
// collection the error does not say): a unique index's refusal quotes
// the key, which may be a redacted value.
func (c *call) engineWriteError(coll string, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "E11000") && !strings.Contains(msg, "dup key") && !strings.Contains(msg, "duplicate key") {
		return err
	}
	if coll != "" && c.srv.policy.specRedactor(coll) == nil {
		return err
	}
	return errorf(CodeConflict, "the server refused the write: a unique index holds the value already (its message is withheld: it may quote a redacted value)").
		withHint("read the documents again and plan again").withNext("find")
}

func runHistoryEngine(ctx context.Context, c *call) (*output, error) {
	if err := c.enginePath(); err != nil {
		return nil, err
	}
	coll := c.str("collection")
	if coll != "" && !c.srv.policy.collectionAllowed(coll) {
		return nil, deniedCollection(coll)
	}
	limit := int(min(c.int("limit", 20), int64(c.srv.cfg.MaxDocs)))
	if c.has("id") {
		return engineVersions(ctx, c, coll, limit)
	}
	read := limit
	if c.srv.policy.restrictsCollections() {
		read = 0 // all: the hidden ones are left out here
	}
	hist, err := c.srv.engineHistory().History(ctx, coll, read)
	if err != nil {
		return nil, err
	}
	shown, k := []EngineChange{}, &capper{c: c}
	for _, ch := range hist {
		if len(shown) < limit && c.collectionsAllowed(ch.Collections) == nil && k.fits(ch) {
			shown = append(shown, ch)
		}
	}
	out, err := c.resultOf(struct {
		Changes  []EngineChange `json:"changes"`
		Returned int            `json:"returned"`
	}{shown, len(shown)}, "change notes")
	if out != nil {
		out.returned = int64(len(shown))
	}
	return withLimits(out, k), err
}
