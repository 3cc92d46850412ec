package store

import (
	"bytes"
	"context"
	"errors"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// prepare readies a document's text on the prefetching goroutine: its
// canonical form for ModeInsert (the fast path), its value otherwise.
func (im *importer) prepare(it *prepared, text []byte) {
	if im.opts.Mode == "" || im.opts.Mode == ModeInsert {
		canonical := value.AppendCanonicalDocument
		if im.opts.Int32 {
			canonical = value.AppendCanonicalInput
		}
		it.val, it.id, it.err = canonical(make([]byte, headerSize, len(text)+48), text)
		return
	}
	parse := value.Parse
	if im.opts.Int32 {
		parse = value.ParseInput
	}
	doc, err := parse(text)
	if err == nil {
		doc, err = value.PrepareDocument(doc)
	}
	it.doc, it.err = doc, err
}

// write writes one document as the mode says.
func (im *importer) write(ctx context.Context, c *Collection, it prepared) error {
	switch im.opts.Mode {
	case "", ModeInsert:
		if err := c.insertPrepared(it.val, it.id); err != nil {
			return err
		}
		im.inserted(it.id)
		return nil
	case ModeDelete:
		return im.delete(ctx, c, it.doc)
	}
	return im.upsert(ctx, c, it.doc)
}

func (im *importer) inserted(id value.Value) {
	im.sum.Inserted++
	if im.opts.OnInsert != nil {
		im.ids = append(im.ids, id)
	}
}

// upsert replaces (ModeUpsert) or merges into (ModeMerge) the document
// that doc matches, or inserts doc when it matches none.
func (im *importer) upsert(ctx context.Context, c *Collection, doc value.Value) error {
	id, found, err := im.match(ctx, c, doc)
	if err != nil {
		return err
	}
	if !found {
		id, err := c.Insert(doc)
		if err == nil {
			im.inserted(id)
		}
		return err
	}
	if newID := doc.Get("_id"); !newID.IsMissing() && !value.Equal(newID, id) {
		return errs.Errorf(errs.Invalid, "the document matches _id %s by %v but has _id %s", id, im.opts.UpsertFields, newID).
			WithHint("_id is immutable: leave _id out of the input, or match on _id")
	}
	if im.opts.Mode == ModeMerge {
		if doc, err = merged(c, id, doc); err != nil {
			return err
		}
	}
	im.sum.Matched++
	same, err := unchanged(c, id, doc)
	if same || err != nil {
		return err
	}
	if err := c.Replace(id, doc); err != nil {
		im.sum.Matched--
		return err
	}
	im.sum.Updated++
	return nil
}

// merged returns the stored document id with doc's top-level fields set
// in it, as mongoimport's merge mode ($set of each field).
func merged(c *Collection, id, doc value.Value) (value.Value, error) {
	out, err := c.Get(id)
	if err != nil {
		return out, err
	}
	for _, f := range doc.Fields() {
		if f.Key != "_id" {
			out = out.With(f.Key, f.Value)
		}
	}
	return out, nil
}

// unchanged reports whether the stored document id already equals doc.
func unchanged(c *Collection, id, doc value.Value) (bool, error) {
	full, err := value.PrepareDocument(doc.With("_id", id).IDFirst())
	if err != nil {
		return false, err
	}
	cur, err := c.GetJSON(id)
	if err != nil {
		return false, err
	}
	return bytes.Equal(cur, value.AppendJSON(nil, full)), nil
}

// delete deletes the document that doc matches, if any.
func (im *importer) delete(ctx context.Context, c *Collection, doc value.Value) error {
	id, found, err := im.match(ctx, c, doc)
	if err != nil || !found {
		return err
	}
	if err := c.Delete(id); err != nil {
		return err
	}
	im.sum.Matched++
	im.sum.Deleted++
	return nil
}

// match finds the stored document that doc matches by the upsert fields
// (the first in _id order). A document without any of them matches none.
func (im *importer) match(ctx context.Context, c *Collection, doc value.Value) (value.Value, bool, error) {
	fields := im.opts.UpsertFields
	if len(fields) == 0 || len(fields) == 1 && fields[0] == "_id" {
		id := doc.Get("_id")
		if id.IsMissing() {
			return id, false, nil
		}
		_, err := c.GetJSON(id)
		if errors.Is(err, ErrNotFound) {
			return id, false, nil
		}
		return id, err == nil, err
	}
	spec, ok := matchSpec(doc, fields)
	if !ok {
		return value.Value{}, false, nil
	}
	f, err := query.CompileFilter(spec)
	if err != nil {
		return value.Value{}, false, err
	}
	src := c.Find(ctx, Query{Filter: f, Limit: 1})
	defer src.Close()
	if src.Next() {
		return src.Doc().Get("_id"), true, nil
	}
	return value.Value{}, false, src.Err()
}

// matchSpec is the filter {field: {$eq: value}} of the upsert fields
// that doc has; false when it has none.
func matchSpec(doc value.Value, fields []string) (value.Value, bool) {
	var conds []value.Field
	for _, name := range fields {
		v := doc.ObjectPath(value.ParsePath(name).Parts)
		if !v.IsMissing() {
			eq := value.ObjectValue([]value.Field{{Key: "$eq", Value: v}})
			conds = append(conds, value.Field{Key: name, Value: eq})
		}
	}
	return value.ObjectValue(conds), len(conds) > 0
}
