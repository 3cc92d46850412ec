package query

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/geo"
	"github.com/omgdb/omgdb/query/value"
)

// Geospatial operators: $geoWithin (and its old name $within) and
// $geoIntersects select documents by where a field's geometry lies; $near
// and $nearSphere by its distance from a point, and a store returns their
// results nearest first. Package geo parses and matches the geometry; a
// value that is not geometry never matches.

// geoOperators are the field operators of geospatial queries.
// $geoNear in a filter is MongoDB's other name for $near.
var geoOperators = []string{"$geoWithin", "$within", "$geoIntersects", "$near", "$nearSphere", "$geoNear"}

// geoPred matches the geometry at a path: in a region, or within a
// distance of a point. It sees a leaf array whole: [x, y] is one legacy
// pair, an array of GeoJSON objects or pairs several locations.
type geoPred struct {
	region *geo.Region
	near   *geo.Near
}

func (p *geoPred) matchValue(v value.Value, _ *matchCtx) bool {
	gs, err := geo.ParseStored(v)
	if err != nil || len(gs) == 0 {
		return false
	}
	if p.near != nil {
		return p.near.Match(gs)
	}
	return p.region.Match(gs)
}

// compileGeo compiles a geospatial operator; opDoc is its operator object,
// whose $maxDistance and $minDistance a $near reads.
func (c *compiler) compileGeo(path, name string, arg, opDoc value.Value) (valuePred, error) {
	p, err := c.geoPred(name, arg, opDoc)
	if err != nil {
		e := malformed("%s on `%s`: %v", name, path, err)
		e.Hint, e.Err = errs.HintOf(err), err
		return nil, e
	}
	return p, nil
}

func (c *compiler) geoPred(name string, arg, opDoc value.Value) (valuePred, error) {
	switch name {
	case "$geoWithin", "$within":
		r, err := geo.ParseWithin(name, arg)
		if err != nil {
			return nil, err
		}
		return &geoPred{region: r}, nil
	case "$geoIntersects":
		r, err := geo.ParseIntersects(arg)
		if err != nil {
			return nil, err
		}
		return &geoPred{region: r}, nil
	}
	n, err := geo.ParseNear(name, arg, opDoc)
	if err != nil {
		return nil, err
	}
	c.nears++
	return &geoPred{near: n}, nil
}

// checkNear refuses what MongoDB refuses of $near and $nearSphere: more
// than one, or one that is not a condition of the filter's top level.
func (c *compiler) checkNear(preds []Predicate) error {
	top := 0
	for _, p := range preds {
		if p.Op == "$near" || p.Op == "$nearSphere" || p.Op == "$geoNear" {
			top++
		}
	}
	switch {
	case c.nears > 1:
		return malformed("a filter may have one $near or $nearSphere, found %d (too many geoNear expressions)", c.nears).
			WithHint("keep one $near; express other distance limits with $geoWithin and $centerSphere")
	case c.nears > top:
		return malformed("$near and $nearSphere must be conditions of the filter's top level, not inside $and, $or, $nor, $not or $elemMatch").
			WithHint("move the $near condition to the top level of the filter")
	}
	return nil
}

// Near returns the filter's $near or $nearSphere condition and the path
// it applies to, or nil: a store must then return the results nearest
// first, through a geospatial index.
func (f *Filter) Near() (string, *geo.Near) {
	for _, p := range f.preds {
		if g := p.geoPred(); g != nil && g.near != nil {
			return p.Path, g.near
		}
	}
	return "", nil
}

// GeoRegion returns the region of a $geoWithin or $geoIntersects
// predicate, or nil for any other.
func (p Predicate) GeoRegion() *geo.Region {
	if g := p.geoPred(); g != nil {
		return g.region
	}
	return nil
}

// GeoNear returns the Near of a $near or $nearSphere predicate, or nil.
func (p Predicate) GeoNear() *geo.Near {
	if g := p.geoPred(); g != nil {
		return g.near
	}
	return nil
}

func (p Predicate) geoPred() *geoPred {
	if n, ok := p.n.(*pathNode); ok {
		if g, ok := n.pred.(*geoPred); ok {
			return g
		}
	}
	return nil
}

// GeoValues returns the geometries the path yields in doc, each with the
// value it was read from (a store computes $near distances with them).
func GeoValues(doc value.Value, path string) ([]*geo.Geometry, []value.Value) {
	fp := value.ParsePath(path)
	col := &geoCollector{}
	w := pathWalk{path: &fp, pred: col}
	w.run(doc)
	return col.geoms, col.vals
}

// geoCollector is a valuePred that matches nothing and collects the
// geometries it is shown.
type geoCollector struct {
	geoms []*geo.Geometry
	vals  []value.Value
}

func (c *geoCollector) matchValue(v value.Value, _ *matchCtx) bool {
	gs, err := geo.ParseStored(v)
	if err != nil {
		return false
	}
	for _, g := range gs {
		c.geoms = append(c.geoms, g)
		c.vals = append(c.vals, v)
	}
	return false
}
