package mcpserver

import (
	"context"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The retrieval engine (vector/) and diagnose read documents with
// store.Collection.Find or Scan, without the server's redaction. The
// helpers here keep redacted values out of what they see and return.

// overlapsRedacted reports whether a dotted field path is, is inside, or
// contains a redacted field of the collection (searching `profile` would
// read `profile.ssn`).
func (p *policy) overlapsRedacted(coll, field string) bool {
	path := strings.Split(field, ".")
	for _, r := range p.redactions(coll) {
		n := min(len(path), len(r))
		if slices.Equal(path[:n], r[:n]) {
			return true
		}
	}
	return false
}

// deniedRedactedField is the refusal to search or index a redacted field.
func deniedRedactedField(coll, field, what string) *toolError {
	return errorf(CodePolicyDenied, "field `%s` of `%s` is redacted by this server's policy: it cannot be %s", truncate(field, 120), truncate(coll, 120), what).
		withHint("use a field that is not redacted; describe lists the collection's fields").
		withNext("describe").withContext("collection", truncate(coll, 120), "field", truncate(field, 120))
}

// engineFilter compiles a filter for an engine call that reads documents
// unredacted. Without redaction it is the filter itself. With redaction,
// the filter runs on the redacted documents here, and the engine gets
// {_id: {$in: [the matching _ids]}}, so it cannot test a redacted value.
func (c *call) engineFilter(ctx context.Context, col *store.Collection, spec value.Value) (*query.Filter, error) {
	f, err := compileFilter(spec)
	if err != nil || f == nil || c.redactor(col.Name()) == nil {
		return f, err
	}
	src := c.scan(ctx, col, store.Query{Filter: f})
	defer src.Close()
	var ids []value.Value
	for src.Next() {
		ids = append(ids, src.Doc().Get("_id"))
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	return query.CompileFilter(obj("_id", obj("$in", arr(ids...))))
}

// refuseUniqueRedacted refuses to write a document that sets a redacted
// field covered by a unique index: whether the write fails with a
// duplicate key would tell whether another document holds that value.
func (c *call) refuseUniqueRedacted(col *store.Collection, doc value.Value) error {
	red := c.redactor(col.Name())
	if red == nil || value.Equal(red(doc), doc) {
		return nil
	}
	for _, def := range col.Indexes() {
		if def.Kind != store.BTreeKind {
			continue
		}
		spec, err := store.ParseBTreeSpec(def)
		if err != nil || !spec.Unique {
			continue
		}
		for _, f := range spec.Fields {
			if c.srv.policy.overlapsRedacted(col.Name(), f.Path) {
				return uniqueRedacted(col.Name(), f.Path, def.Name)
			}
		}
	}
	return nil
}

// uniqueRedacted is the refusal of refuseUniqueRedacted.
func uniqueRedacted(coll, path, index string) error {
	return errorf(CodePolicyDenied, "the document sets `%s`, a redacted field of `%s` under the unique index `%s`: this server cannot write it",
		path, truncate(coll, 120), index).
		withHint("whether the write met a duplicate key would reveal other documents' redacted values; leave the field out, or have the user write it").
		withContext("collection", truncate(coll, 120), "index", index)
}
