package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
)

// Change records carry values outside documents: a plan's filter, update
// and array filters, and the note of the change that applied it
// ("plan-update users {filter} {update}"). The helpers here pass them
// through the collection's specRedactor before they are shown.

// redactPlan hides the values a plan's filter, update and array filters
// give to redacted paths.
func (c *call) redactPlan(p *changes.Plan) {
	if p.Kind == changes.KindAggregate && p.Pipeline != nil &&
		(c.srv.policy.specRedactor(p.Source) != nil || c.srv.policy.specRedactor(p.Collection) != nil) {
		// A pipeline may read and name any field: hidden whole.
		p.Pipeline = &changes.Doc{Value: value.StringValue(redactedMark)}
	}
	r := c.srv.policy.specRedactor(p.Collection)
	if r == nil || p.Kind == changes.KindRevert {
		return
	}
	var update value.Value
	if p.Update != nil {
		update = p.Update.Value
		p.Update = &changes.Doc{Value: r.update(update)}
	}
	if p.Filter != nil {
		p.Filter = &changes.Doc{Value: r.filter(p.Filter.Value, nil)}
	}
	if len(p.ArrayFilters) > 0 {
		afs := make([]value.Value, len(p.ArrayFilters))
		for i, af := range p.ArrayFilters {
			afs[i] = af.Value
		}
		for i, af := range r.arrayFilters(update, afs) {
			p.ArrayFilters[i] = changes.Doc{Value: af}
		}
	}
}

// redactNote hides the values in the note of a change that applied an
// update or delete plan on a collection with redacted fields. The note
// is "plan-<kind> <collection> <filter> [<update>]", cut at 300 bytes; a
// part that does not parse whole is hidden whole.
func (c *call) redactNote(ch *changes.Change) {
	for _, kind := range []string{changes.KindUpdate, changes.KindDelete} {
		for _, coll := range ch.Collections {
			rest, ok := strings.CutPrefix(ch.Note, "plan-"+kind+" "+coll+" ")
			if r := c.srv.policy.specRedactor(coll); ok && r != nil {
				ch.Note = "plan-" + kind + " " + coll + " " + r.noteSpecs(rest)
				return
			}
		}
	}
}

// noteSpecs redacts the filter and update of a note: two JSON values
// separated by a space.
func (r *specRedactor) noteSpecs(s string) string {
	var vals []value.Value
	dec := json.NewDecoder(strings.NewReader(s))
	for range 2 {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		v, err := value.Parse(bytes.TrimSpace(raw))
		if err != nil {
			break
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return redactedMark
	}
	parts := []string{r.filter(vals[0], nil).String()}
	if len(vals) == 2 {
		parts = append(parts, r.update(vals[1]).String())
	}
	if strings.TrimSpace(s[dec.InputOffset():]) != "" {
		parts = append(parts, redactedMark) // a part cut at 300 bytes
	}
	return strings.Join(parts, " ")
}

// onlyRedacted reports whether a document that changed looks unchanged
// once redacted: only its redacted fields changed.
func onlyRedacted(shownBefore, shownAfter value.Value) bool {
	return !shownBefore.IsMissing() && !shownAfter.IsMissing() && shownBefore.Kind() != value.Null &&
		shownAfter.Kind() != value.Null && bytes.Equal(value.AppendJSON(nil, shownBefore), value.AppendJSON(nil, shownAfter))
}

// shownPair is a plan's sample as the agent sees it, and shownPlanDoc a
// plan's document: only_redacted marks one whose every change is to
// redacted fields.
type (
	shownPair struct {
		changes.BeforeAfter
		OnlyRedacted bool `json:"only_redacted,omitempty"`
	}
	shownPlanDoc struct {
		changes.PlanDoc
		OnlyRedacted bool `json:"only_redacted,omitempty"`
	}
)

// refuseRedactedSpecs refuses a plan whose filter tests, or whose update
// writes, a redacted field: plans run on the stored documents, so their
// counts (matched, modified) would tell whether a guessed value is the
// stored one.
func (c *call) refuseRedactedSpecs(coll string, filter, update value.Value, afs []value.Value) error {
	r := c.srv.policy.specRedactor(coll)
	if r == nil {
		return nil
	}
	r.filter(filter, nil)
	what := "filter"
	if !r.hit && !update.IsMissing() {
		r.update(update)
		r.arrayFilters(update, afs)
		what = "update"
	}
	if !r.hit {
		return nil
	}
	return errorf(CodePolicyDenied, "the %s names a redacted field of `%s` (%s): a plan cannot test or write it", what,
		truncate(coll, 120), strings.Join(c.srv.policy.redactedNames(coll), ", ")).
		withHint("plans run on the stored documents, so their counts would reveal redacted values; leave redacted fields out of the filter and the update").
		withNext("describe").withContext("argument", what)
}

// hideArgValues has rewrite replace, in an error's message and hint, the
// values the call's filter, update and array filters give to redacted
// fields of coll (a compile error may quote one). Values shorter than 3
// characters are left: replacing them would garble the message more
// than it hides.
func (c *call) hideArgValues(coll string) {
	r := c.srv.policy.specRedactor(coll)
	if r == nil {
		return
	}
	r.filter(c.value("filter"), nil)
	if u := c.value("update"); !u.IsMissing() {
		r.update(u)
		r.arrayFilters(u, c.value("array_filters").Array())
	}
	for _, h := range r.hidden {
		if len(h) >= 3 {
			c.rewrites = append(c.rewrites, h, redactedMark)
		}
	}
}
