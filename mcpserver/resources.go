package mcpserver

import (
	"context"
	"net/url"
	"strings"

	"github.com/omgdb/omgdb/docs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Resources:
//
//	omgdb://<store>/collections          the store's collections and counts
//	omgdb://<store>/<collection>/schema  a collection's inferred fields (no sample document)
//	omgdb://<store>/history              the last 20 changes (resources_changes.go)
//	omgdb://<store>/snapshots            the snapshots
//	omgdb://<store>/plans/<token>        a plan and its documents
//	omgdb://<store>/exports/<id>[/<n>]   page n of an export (export.go)
//	omgdb://docs/<topic>                 a page of the manual
//
// <store> is the store's path as a tool's `path` argument gives it (the
// pinned store's path with --store). Store resources are read like a
// read-scope tool call: same path rules, collection policy, redaction,
// limits and audit.

const codeResourceNotFound = -32002 // MCP: resource not found

func (ss *session) listResources(_ context.Context, p params) (value.Value, *rpcError) {
	if c, _ := p.str("cursor", false); c != "" {
		return value.Value{}, rpcErrorf(codeInvalidParams, "invalid params: unknown cursor (resources/list has one page)")
	}
	s := ss.srv
	var list []value.Value
	stores := []string{s.cfg.Store}
	switch {
	case s.cfg.Engine != nil:
		stores = nil // the store resources need a store file
	case s.cfg.Store == "":
		stores = s.storesUnderRoot(20)
	}
	for _, st := range stores {
		list = append(list, obj("uri", storeURI(st)+"/collections", "name", st+" collections",
			"description", "Collections of "+st+" with their document counts.", "mimeType", "application/json"))
	}
	for _, t := range docs.Topics() {
		list = append(list, obj("uri", "omgdb://docs/"+t, "name", t, "title", docs.Title(t), "mimeType", "text/markdown"))
	}
	return obj("resources", arr(list...)), nil
}

func (ss *session) listResourceTemplates(context.Context, params) (value.Value, *rpcError) {
	return obj("resourceTemplates", arr(
		obj("uriTemplate", "omgdb://{store}/collections", "name", "collections",
			"description", "Collections of a store (its path, as tools take it) with document counts.", "mimeType", "application/json"),
		obj("uriTemplate", "omgdb://{store}/{collection}/schema", "name", "schema",
			"description", "Inferred fields of a collection: dotted paths, types, presence.", "mimeType", "application/json"),
		obj("uriTemplate", "omgdb://{store}/history", "name", "history",
			"description", "The store's last 20 changes, newest first.", "mimeType", "application/json"),
		obj("uriTemplate", "omgdb://{store}/snapshots", "name", "snapshots",
			"description", "The store's snapshot names and their revisions.", "mimeType", "application/json"),
		obj("uriTemplate", "omgdb://{store}/plans/{token}", "name", "plan",
			"description", "A plan and the documents it changes, before and after.", "mimeType", "application/json"),
		obj("uriTemplate", "omgdb://docs/{topic}", "name", "manual",
			"description", "A page of the omgdb manual (resources/list names the topics).", "mimeType", "text/markdown"),
	)), nil
}

func storeURI(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return "omgdb://" + strings.Join(parts, "/")
}

func (ss *session) readResource(ctx context.Context, p params) (value.Value, *rpcError) {
	uri, e := p.str("uri", true)
	if e != nil {
		return value.Value{}, e
	}
	rest, ok := strings.CutPrefix(uri, "omgdb://")
	if !ok {
		return value.Value{}, resourceNotFound(uri)
	}
	if topic, ok := strings.CutPrefix(rest, "docs/"); ok && !strings.Contains(topic, "/") {
		text, ok := docs.Read(topic)
		if !ok {
			return value.Value{}, resourceNotFound(uri)
		}
		max := ss.srv.cfg.MaxBytes
		cut, ok := fitText(text, topic, max)
		if !ok {
			te := tooBig(uri, len(text), max, "run `omgdb docs "+topic+"` instead, or ask the user to raise --max-bytes")
			return value.Value{}, &rpcError{code: codeInvalidParams, msg: te.text(), data: obj("code", te.code, "uri", truncate(uri, 200))}
		}
		return contents(uri, "text/markdown", cut), nil
	}
	var storePath, coll string
	switch {
	case strings.HasSuffix(rest, "/collections"):
		storePath = strings.TrimSuffix(rest, "/collections")
	case strings.HasSuffix(rest, "/schema"):
		i := strings.LastIndex(strings.TrimSuffix(rest, "/schema"), "/")
		if i < 0 {
			return value.Value{}, resourceNotFound(uri)
		}
		storePath, coll = rest[:i], strings.TrimSuffix(rest[i+1:], "/schema")
	default:
		if storePath, id, page, ok := exportResource(rest); ok {
			return ss.readExport(ctx, uri, storePath, id, page)
		}
		if storePath, run, ok := changeResource(rest); ok {
			return ss.readStoreResourceWith(ctx, uri, storePath, run)
		}
		return value.Value{}, resourceNotFound(uri)
	}
	return ss.readStoreResource(ctx, uri, storePath, coll)
}

func resourceNotFound(uri string) *rpcError {
	return &rpcError{code: codeResourceNotFound, msg: "resource not found: " + truncate(uri, 200),
		data: obj("uri", truncate(uri, 200), "hint", "resources/list and resources/templates/list show the resources")}
}

func contents(uri, mime, text string) value.Value {
	return obj("contents", arr(obj("uri", uri, "mimeType", mime, "text", text)))
}

// readStoreResource reads a store resource as a read-scope call.
func (ss *session) readStoreResource(ctx context.Context, uri, storePath, coll string) (value.Value, *rpcError) {
	coll, err := url.PathUnescape(coll)
	if err != nil {
		return value.Value{}, resourceNotFound(uri)
	}
	return ss.readStoreResourceWith(ctx, uri, storePath, func(ctx context.Context, c *call) (*output, error) {
		return c.storeResource(ctx, coll)
	})
}

// readStoreResourceWith reads a store resource by running run as a
// read-scope call.
func (ss *session) readStoreResourceWith(ctx context.Context, uri, storePath string, run func(context.Context, *call) (*output, error)) (value.Value, *rpcError) {
	storePath, err := url.PathUnescape(storePath)
	if err != nil {
		return value.Value{}, resourceNotFound(uri)
	}
	s := ss.srv
	t := &tool{Name: "resources/read", Scope: ScopeRead, Run: run}
	c := &call{srv: s, sess: ss, tool: t, args: obj("path", storePath)}
	if s.cfg.Store != "" {
		c.args = obj()
		if !s.isPinned(storePath) {
			c.args = obj("path", storePath)
		}
	}
	start := s.cfg.Now()
	out, err := ss.run(ctx, c)
	var te *toolError
	if err != nil {
		te = asToolError(err, t.Name, s.cfg.Timeout.String())
	} else if data, ok := fitJSON(out.data, s.cfg.MaxBytes); ok {
		out.data = data
	} else {
		te = tooBig(uri, len(encodeJSON(nil, out.data)), s.cfg.MaxBytes,
			"the tools page and cap what this resource holds: describe (with collection), history (with limit), plans (with token)")
	}
	if aerr := s.record(ss, t.Name, obj("uri", uri), nil, out, te, start); aerr != nil {
		te = aerr
	}
	if te != nil {
		code := codeInvalidParams
		if te.code == CodeNotFound {
			code = codeResourceNotFound
		}
		return value.Value{}, &rpcError{code: code, msg: te.text(), data: obj("code", te.code, "uri", truncate(uri, 200))}
	}
	return contents(uri, "application/json", string(encodeJSON(nil, out.data))), nil
}

// storeResource is the work of a store resource: the collections, or one
// collection's schema.
func (c *call) storeResource(ctx context.Context, coll string) (*output, error) {
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var data value.Value
	err = db.View(func(tx *store.Tx) error {
		if coll == "" {
			var list []value.Value
			for _, name := range c.srv.policy.collections(tx) {
				col, err := tx.Collection(name)
				if err != nil {
					return err
				}
				list = append(list, obj("name", name, "count", col.Count()))
			}
			data = obj("store", c.storePath(), "collections", list)
			return nil
		}
		col, err := c.collection(tx, coll)
		if err != nil {
			return err
		}
		info, err := c.describeCollection(ctx, col, 100)
		data = obj("store", c.storePath()).With("collection", info.Without("sample"))
		return err
	})
	if err != nil {
		return nil, err
	}
	return newOutput(data), nil
}
