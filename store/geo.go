package store

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/geo"
	"github.com/omgdb/omgdb/query/value"
)

// Queries by distance. A filter with $near or $nearSphere, and a pipeline
// that starts with $geoNear, need a 2dsphere index on the field, as in
// MongoDB. The index narrows the candidates to the cells within
// $maxDistance of the center (all of it without one); each candidate is
// matched against the whole filter, its distance computed exactly, and
// the results sorted by distance (ties by _id). They are held in memory
// for the sort, under Query.MaxSortBytes.

// nearHit is a document with its distance from the center and the
// location it was measured to.
type nearHit struct {
	doc  value.Value
	dist float64
	loc  value.Value
}

// geoIndexFor returns the 2dsphere index on path. key, when not empty,
// must name that path ($geoNear's key); when empty, the collection must
// have exactly one 2dsphere index unless path is given.
func (c *Collection) geoIndexFor(path string) (string, error) {
	var names []string
	for _, def := range c.Indexes() {
		if def.Kind != BTreeKind {
			continue
		}
		s, err := ParseBTreeSpec(def)
		if err != nil {
			return "", err
		}
		if s.geoField(path) >= 0 {
			names = append(names, def.Name)
		}
	}
	if len(names) == 0 {
		return "", errs.Errorf(errs.Invalid, "unable to find index for $geoNear query: collection `%s` has no 2dsphere index on `%s`", c.name, path).
			WithHint(`create one: omgdb create-index %s %s '{"%s":"2dsphere"}'`, c.tx.db.path, c.name, path)
	}
	return names[0], nil
}

// geoPaths lists the paths of the collection's 2dsphere fields.
func (c *Collection) geoPaths() []string {
	var paths []string
	for _, def := range c.Indexes() {
		if s, err := ParseBTreeSpec(def); err == nil && def.Kind == BTreeKind {
			for _, f := range s.Fields {
				if f.Type == Geo2DSphere {
					paths = append(paths, f.Path)
				}
			}
		}
	}
	return paths
}

// nearHits returns the documents matching q.Filter, whose $near on path
// is n, nearest first.
func (c *Collection) nearHits(ctx context.Context, q Query, path string, n *geo.Near) ([]nearHit, error) {
	name, err := c.nearIndex(path, n)
	if err != nil {
		return nil, err
	}
	pq := Query{Filter: q.Filter, Hint: name, Redact: q.Redact}
	ch, err := c.planQuery(pq, false)
	if err != nil {
		return nil, err
	}
	src := c.baseSource(ctx, pq, ch.plan)
	defer src.Close()
	budget := q.MaxSortBytes
	if budget <= 0 {
		budget = DefaultMaxSortBytes
	}
	var hits []nearHit
	var held int64
	for src.Next() {
		doc := src.Doc()
		gs, vals := query.GeoValues(doc, path)
		d, at, ok := n.Distance(gs)
		if !ok {
			continue
		}
		if held += approxSize(doc); held > budget {
			return nil, errs.Errorf(errs.Limit, "%s would hold more than %d bytes of documents in memory to sort them by distance", n.Op, budget).
				WithHint("give a $maxDistance, or narrow the filter")
		}
		hits = append(hits, nearHit{doc: doc, dist: d, loc: vals[at]})
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].dist != hits[j].dist {
			return hits[i].dist < hits[j].dist
		}
		return value.Compare(hits[i].doc.Get("_id"), hits[j].doc.Get("_id")) < 0
	})
	return hits, nil
}

// findNear runs a find whose filter has a $near: nearest first, unless
// the query gives a sort of its own.
func (c *Collection) findNear(ctx context.Context, q Query, path string, n *geo.Near) agg.Source {
	hits, err := c.nearHits(ctx, q, path, n)
	if err != nil {
		return &sliceSource{err: err}
	}
	docs := make([]value.Value, len(hits))
	for i, h := range hits {
		docs[i] = h.doc
	}
	return c.wrap(ctx, q, &Plan{}, &sliceSource{docs: docs})
}

// nearIndex returns the index a $near on path runs on.
func (c *Collection) nearIndex(path string, n *geo.Near) (string, error) {
	if !n.Spherical {
		return "", errs.Errorf(errs.Invalid, "unable to find index for $geoNear query: %s with legacy coordinates is flat and needs a 2d index, which omgdb does not have", n.Op).
			WithHint(`use $nearSphere (distances in radians), or a GeoJSON point {"$geometry":{"type":"Point","coordinates":[lng,lat]}} (meters), with a 2dsphere index`)
	}
	return c.geoIndexFor(path)
}

// explainNear makes q, a find with a $near, use the index it runs on,
// and returns the $near's path ("" when there is none, or for a count).
func (c *Collection) explainNear(q *Query, count bool) (string, error) {
	if q.Filter == nil || count {
		return "", nil
	}
	path, n := q.Filter.Near()
	if n == nil {
		return "", nil
	}
	name, err := c.nearIndex(path, n)
	if err != nil {
		return "", err
	}
	if q.Redact == nil {
		q.Hint = name
	}
	return path, nil
}

// geoNear runs a pipeline's leading $geoNear: the documents matching its
// query within its distances, nearest first, each with its distance (and
// location). Without a key, the collection must have exactly one 2dsphere
// field.
func (c *Collection) geoNear(ctx context.Context, g *agg.GeoNear, redact func(value.Value) value.Value) agg.Source {
	path := g.Key
	if path == "" {
		paths := c.geoPaths()
		switch {
		case len(paths) == 0:
			return &sliceSource{err: errs.Errorf(errs.Invalid, "$geoNear requires a 2dsphere index, but collection `%s` has none", c.name).
				WithHint(`create one: omgdb create-index %s %s '{"loc":"2dsphere"}' (with your field)`, c.tx.db.path, c.name)}
		case len(paths) > 1:
			return &sliceSource{err: errs.Errorf(errs.Invalid, "$geoNear: collection `%s` has more than one 2dsphere field (%s); unsure which to use", c.name, strings.Join(paths, ", ")).
				WithHint(`name one with the key option: "key":"%s"`, paths[0])}
		}
		path = paths[0]
	}
	filter, err := geoNearFilter(g, path)
	if err != nil {
		return &sliceSource{err: err}
	}
	hits, err := c.nearHits(ctx, Query{Filter: filter, Redact: redact}, path, g.Near)
	if err != nil {
		return &sliceSource{err: err}
	}
	docs := make([]value.Value, len(hits))
	for i, h := range hits {
		docs[i] = g.Output(h.doc, h.dist, h.loc)
	}
	return &sliceSource{docs: docs}
}

// geoNearFilter is the filter a $geoNear selects with: its query and the
// distance condition on path.
func geoNearFilter(g *agg.GeoNear, path string) (*query.Filter, error) {
	n := g.Near
	op := "$nearSphere"
	if !n.Spherical {
		op = "$near"
	}
	// A GeoJSON center goes bare (not under $geometry), so the distances
	// may stand beside it; its distances are meters all the same.
	cond := []value.Field{{Key: op, Value: n.CenterRaw}}
	if !math.IsInf(n.Max, 1) {
		cond = append(cond, value.Field{Key: "$maxDistance", Value: value.DoubleValue(n.Max)})
	}
	if n.Min > 0 {
		cond = append(cond, value.Field{Key: "$minDistance", Value: value.DoubleValue(n.Min)})
	}
	fields := []value.Field{{Key: path, Value: value.ObjectValue(cond)}}
	if g.Query != nil && len(g.Query.Predicates()) > 0 {
		fields = append(fields, value.Field{Key: "$and", Value: value.ArrayValue([]value.Value{g.QueryValue})})
	}
	return query.CompileFilter(value.ObjectValue(fields))
}
