package changes

import (
	"context"
	"errors"
	"time"

	"github.com/omgdb/omgdb/internal/failpoint"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// ApplyOptions configures Apply. The zero value is the default.
type ApplyOptions struct {
	Actor string // who applies it; the store's actor when empty
}

// ApplyResult is what Apply returns.
type ApplyResult struct {
	Token            string   `json:"token"`
	ChangeID         string   `json:"change_id"` // the token: an applied plan's change id
	Kind             string   `json:"kind"`
	Inserted         int64    `json:"inserted"`
	Updated          int64    `json:"updated"`
	Deleted          int64    `json:"deleted"`
	LSN              uint64   `json:"lsn,omitempty"` // the journal record; absent when nothing was written
	Message          string   `json:"message,omitempty"`
	NextValidActions []string `json:"next_valid_actions"`
}

// Apply applies a pending plan in one transaction. It first checks that
// every planned document is still exactly as planned (the digest of its
// current bytes; still absent for one the plan inserts). If any changed,
// nothing is written and the error is a *ConflictError listing them.
// Otherwise it writes every after-image (indexes, and so unique keys, are
// enforced by the store; any refusal aborts the whole change), marks the
// plan applied, and journals the change under the plan's token, which
// becomes its change id.
func Apply(ctx context.Context, db *store.DB, token string, opts *ApplyOptions) (*ApplyResult, error) {
	if opts == nil {
		opts = &ApplyOptions{}
	}
	if err := checkToken(token, "plan token"); err != nil {
		return nil, err
	}
	var note string
	err := db.View(func(tx *store.Tx) error {
		p, err := loadPlan(tx, token)
		if err == nil {
			note = p.describe()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &ApplyResult{Token: token, ChangeID: token}
	err = db.Update(store.Change{ID: token, Kind: "apply", Actor: opts.Actor, Note: note}, func(tx *store.Tx) error {
		return applyPlan(ctx, tx, token, res)
	})
	if err != nil {
		return nil, err
	}
	res.NextValidActions = []string{ActionRollback, ActionShow}
	if res.LSN == 0 {
		res.Message = "the plan changes nothing: no document was written"
		res.NextValidActions = []string{ActionShow}
	}
	return res, nil
}

func applyPlan(ctx context.Context, tx *store.Tx, token string, res *ApplyResult) error {
	p, err := loadPlan(tx, token)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	if err := checkPending(tx, p, now); err != nil {
		return err
	}
	res.Kind = p.Kind
	if err := applyItems(ctx, tx, p, res); err != nil {
		return err
	}
	created, err := createTarget(tx, p)
	if err != nil {
		return err
	}
	if created || res.Inserted+res.Updated+res.Deleted > 0 {
		res.LSN = tx.LastLSN() + 1 // the record this transaction appends at commit
		p.AppliedLSN = res.LSN
	}
	return retire(tx, p, StatusApplied, now)
}

func checkToken(s, what string) error {
	if _, ok := value.ParseOID(s); !ok {
		return errs.Errorf(errs.Invalid, "invalid %s %q: expected 24 hexadecimal digits", what, s).
			WithHint("copy the token or change id exactly as printed, e.g. 665f1c2e9b1d4a0c8e7f6a5b")
	}
	return nil
}

// checkPending refuses a plan that is not pending, saying what became of it.
func checkPending(tx *store.Tx, p *Plan, now time.Time) error {
	switch p.status(now) {
	case StatusPending:
		return nil
	case StatusApplied:
		return wrap(errs.Conflict, ErrNotPending, "plan %s was already applied at %s as change %s (lsn %d), which is now %s",
			p.Token, p.StatusTime.Format(time.RFC3339), p.Token, p.AppliedLSN, changeStatus(tx, p.Token)).
			WithHint("a plan applies once; to undo it run `omgdb rollback %s %s`, to change more plan again", tx.DB().Path(), p.Token)
	case StatusDiscarded:
		return wrap(errs.Conflict, ErrNotPending, "plan %s was discarded at %s", p.Token, p.StatusTime.Format(time.RFC3339)).
			WithHint("plan the change again")
	}
	return wrap(errs.Conflict, ErrNotPending, "plan %s expired at %s", p.Token, p.Expires.Format(time.RFC3339)).
		WithHint("plans stay pending for 24 h by default; plan the change again and apply the new token")
}

// errStale is what an update's check returns when its document changed
// since the plan.
var errStale = errors.New("document changed since the plan")

// updatePaths returns the paths an update plan's after-images differ from
// their documents at (query.Update.Paths), for ReplaceJSONAt; nil for
// other plans (a revert's images are any earlier state) and when the
// update cannot be compiled again.
func updatePaths(p *Plan) []string {
	if p.Kind != KindUpdate || p.Update == nil {
		return nil
	}
	filters := make([]value.Value, len(p.ArrayFilters))
	for i, f := range p.ArrayFilters {
		filters[i] = f.Value
	}
	u, err := CompileUpdate(p.Update.Value, &query.UpdateOptions{ArrayFilters: filters})
	if err != nil {
		return nil
	}
	return u.Paths()
}

// applyItems checks and writes a plan's items in one pass: each
// document is checked to be exactly as planned (the digest of its current
// bytes; still absent for one the plan inserts) as it is written, an
// update's with the one read that replaces it. Once a document has
// changed, or a write failed, nothing more is written and the remaining
// items are only checked: the plan is then refused with a *ConflictError
// listing every changed document (or, when none changed, the write's
// error), and the caller's transaction aborts, so nothing is written. An
// update's after-image is written as it is stored in the plan (canonical
// JSON, made by AppendJSON from a prepared document when planned): it is
// not parsed and encoded again.
func applyItems(ctx context.Context, tx *store.Tx, p *Plan, res *ApplyResult) error {
	var changed, matching []DocRef
	if p.upsertNew { // before any write: the plan's own insert would match
		var err error
		if matching, err = upsertMatches(ctx, tx, p); err != nil {
			return err
		}
	}
	var failed error // the first write that failed
	tx.Grow(p.items)
	written := updatePaths(p)
	n := 0
	err := eachItem(tx, p.Token, withAfterJSON, func(it *item) error {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		writing := len(changed) == 0 && len(matching) == 0 && failed == nil
		if writing && it.op == opUpdate {
			c, err := tx.Collection(it.coll)
			if err != nil && !isNotFound(err) {
				return err
			}
			if err == nil {
				err = c.ReplaceJSONAt(it.id, it.afterJSON, written, func(cur []byte) error {
					if it.digest == "" || digest(cur) != it.digest {
						return errStale
					}
					return nil
				})
				switch {
				case err == nil:
					res.Updated++
					failpoint.Hit(failpoint.Apply)
					return nil
				case errors.Is(err, errStale):
					changed = append(changed, it.ref())
					return nil
				case !isNotFound(err):
					failed = err
					return nil
				}
			}
			changed = append(changed, it.ref()) // deleted since
			return nil
		}
		js, err := currentJSON(tx, it.coll, it.id)
		if err != nil {
			return err
		}
		if (js == nil) != (it.digest == "") || (js != nil && digest(js) != it.digest) {
			changed = append(changed, it.ref())
			return nil
		}
		if writing {
			failed = writeItem(tx, it, res)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if changed = append(changed, matching...); len(changed) > 0 {
		return newConflict(changed,
			"nothing was written; plan the change again to see the documents as they are now, review it, and apply the new token",
			"plan %s is stale: %d document(s) changed since it was planned", p.Token, len(changed))
	}
	return failed
}

// upsertMatches returns the documents the filter of an upserting plan
// matches now: it planned an insert because nothing matched.
func upsertMatches(ctx context.Context, tx *store.Tx, p *Plan) ([]DocRef, error) {
	c, err := tx.Collection(p.Collection)
	if err != nil {
		return nil, nil // still no collection: still no match
	}
	f, err := compileFilter(p.Filter.Value)
	if err != nil {
		return nil, err
	}
	var refs []DocRef
	err = scanMatches(ctx, c, f, false, func(_ []byte, doc value.Value) error {
		refs = append(refs, DocRef{Collection: p.Collection, ID: Doc{doc.Get("_id")}})
		return nil
	})
	return refs, err
}

// createTarget creates the target of a $out plan that asked for it and
// that still does not exist (the items, when there are any, created it).
func createTarget(tx *store.Tx, p *Plan) (bool, error) {
	if !p.CreateTarget {
		return false, nil
	}
	if _, err := tx.Collection(p.Collection); !isNotFound(err) {
		return false, err
	}
	_, err := tx.CreateCollection(p.Collection)
	return err == nil, err
}

// currentJSON returns a document's canonical JSON, or nil when it (or its
// collection) does not exist.
func currentJSON(tx *store.Tx, coll string, id value.Value) ([]byte, error) {
	c, err := tx.Collection(coll)
	if err != nil {
		if isNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	js, err := c.GetJSON(id)
	if isNotFound(err) {
		return nil, nil
	}
	return js, err
}

// writeItem writes a checked item's after-image (an update's is written
// by applyItems as it checks it).
func writeItem(tx *store.Tx, it *item, res *ApplyResult) error {
	if it.op == opNone {
		return nil
	}
	c, err := tx.CreateCollection(it.coll)
	if err != nil {
		return err
	}
	switch it.op {
	case opInsert:
		var doc value.Value
		if doc, err = parseImage(it.afterJSON); err == nil {
			_, err = c.Insert(doc)
		}
		res.Inserted++
	case opUpdate:
		err = c.ReplaceJSON(it.id, it.afterJSON)
		res.Updated++
	case opDelete:
		err = c.Delete(it.id)
		res.Deleted++
	}
	failpoint.Hit(failpoint.Apply)
	return err
}
