package mcpserver

import (
	"path"
	"slices"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// policy holds the operator's restrictions beyond the scope.
type policy struct {
	allowColl, denyColl   []string              // globs
	allowTools, denyTools []string              // globs
	redact                map[string][][]string // collection glob -> field paths to remove
	redactOrder           []string              // the keys of redact, in flag order
}

func newPolicy(cfg *Config) (*policy, error) {
	p := &policy{allowColl: cfg.Collections, denyColl: cfg.DenyCollections,
		allowTools: cfg.Tools, denyTools: cfg.DenyTools, redact: map[string][][]string{}}
	for _, set := range []struct {
		flag  string
		globs []string
	}{{"--collections", cfg.Collections}, {"--deny-collections", cfg.DenyCollections},
		{"--tools", cfg.Tools}, {"--deny-tools", cfg.DenyTools}} {
		for _, g := range set.globs {
			if _, err := path.Match(g, ""); err != nil || g == "" {
				return nil, errs.Errorf(errs.Usage, "%s: bad name or glob %q", set.flag, g).
					WithHint("use names or globs such as users or log_*")
			}
		}
	}
	for _, spec := range cfg.Redact {
		if err := p.addRedaction(spec); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// addRedaction parses "coll.field.path" (or "coll:field.path" for a
// collection whose name has dots; "*" for every collection).
func (p *policy) addRedaction(spec string) error {
	coll, field, ok := strings.Cut(spec, ":")
	if !ok {
		coll, field, ok = strings.Cut(spec, ".")
	}
	bad := !ok || coll == "" || field == "" || field == "_id" || strings.HasPrefix(field, "_id.") ||
		strings.Contains(field, "..") || strings.HasPrefix(field, ".") || strings.HasSuffix(field, ".")
	if _, err := path.Match(coll, ""); bad || err != nil {
		return errs.Errorf(errs.Usage, "--redact: bad field %q", spec).
			WithHint(`write collection.field (dots for nested fields, "*" for every collection), e.g. users.ssn or *.password; _id cannot be redacted`)
	}
	if p.redact[coll] == nil {
		p.redactOrder = append(p.redactOrder, coll)
	}
	p.redact[coll] = append(p.redact[coll], strings.Split(field, "."))
	return nil
}

func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// collectionAllowed reports whether the agent may see the collection.
func (p *policy) collectionAllowed(name string) bool {
	return (len(p.allowColl) == 0 || matchAny(p.allowColl, name)) && !matchAny(p.denyColl, name)
}

func (p *policy) toolAllowed(name string) bool {
	return (len(p.allowTools) == 0 || matchAny(p.allowTools, name)) && !matchAny(p.denyTools, name)
}

// redactions returns the field paths removed from the collection's
// documents.
func (p *policy) redactions(coll string) [][]string {
	var paths [][]string
	for _, g := range p.redactOrder {
		if ok, _ := path.Match(g, coll); ok {
			paths = append(paths, p.redact[g]...)
		}
	}
	return paths
}

// isRedacted reports whether a field path is, or is inside, a redacted
// field of the collection.
func (p *policy) isRedacted(coll string, path []string) bool {
	for _, r := range p.redactions(coll) {
		if len(path) >= len(r) && slices.Equal(path[:len(r)], r) {
			return true
		}
	}
	return false
}

// redactedNames returns the redacted fields of a collection as dotted
// paths, for results.
func (p *policy) redactedNames(coll string) []string {
	var names []string
	for _, fp := range p.redactions(coll) {
		names = append(names, strings.Join(fp, "."))
	}
	return names
}

// collections returns the store's collections the agent may see.
func (p *policy) collections(tx *store.Tx) []string {
	var names []string
	for _, n := range tx.Collections() {
		if p.collectionAllowed(n) {
			names = append(names, n)
		}
	}
	return names
}

// denied is the refusal for a collection outside the policy. It reads the
// same whether or not the collection exists, so it reveals nothing.
func deniedCollection(name string) *toolError {
	return errorf(CodePolicyDenied, "collection `%s` is not available on this server", truncate(name, 120)).
		withHint("the server's --collections/--deny-collections policy leaves it out; describe lists the collections you can use").
		withNext("describe").withContext("collection", truncate(name, 120))
}

// collection opens a collection the agent may see. A missing one is
// NOT_FOUND with a did-you-mean among the visible collections only.
func (c *call) collection(tx *store.Tx, name string) (*store.Collection, error) {
	p := c.srv.policy
	if !p.collectionAllowed(name) {
		return nil, deniedCollection(name)
	}
	names := p.collections(tx)
	if !contains(names, name) {
		return nil, c.missingCollection(name, names)
	}
	return tx.Collection(name)
}

// missingCollection is NOT_FOUND for a collection that is not among the
// visible ones, names, with a did-you-mean among them only.
func (c *call) missingCollection(name string, names []string) error {
	e := errorf(CodeNotFound, "collection `%s` not found in %s%s", truncate(name, 120), c.storePath(), errs.DidYouMean(name, names)).
		withNext("describe").withContext("collection", truncate(name, 120), "collections", names)
	if len(names) == 0 {
		return e.withHint("the store has no collections yet")
	}
	return e.withHint("collections: %s", strings.Join(names, ", "))
}

// redact removes the given field paths from a document. Paths go through
// arrays: "items.secret" removes secret from every object in items.
func redact(doc value.Value, paths [][]string) value.Value {
	for _, p := range paths {
		doc = removePath(doc, p)
	}
	return doc
}

func removePath(v value.Value, p []string) value.Value {
	switch v.Kind() {
	case value.Object:
		f := v.Get(p[0])
		if f.IsMissing() {
			return v
		}
		if len(p) == 1 {
			return v.Without(p[0])
		}
		return v.With(p[0], removePath(f, p[1:]))
	case value.Array:
		elems := make([]value.Value, v.Len())
		for i, e := range v.Array() {
			elems[i] = removePath(e, p)
		}
		return value.ArrayValue(elems)
	}
	return v
}
