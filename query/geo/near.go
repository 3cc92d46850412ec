package geo

import (
	"math"

	"github.com/golang/geo/r2"
	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"

	"github.com/omgdb/omgdb/query/value"
)

// Near is the compiled operand of $near, $nearSphere or the $geoNear
// stage: a center, and the distances a document may be at.
type Near struct {
	Op        string // "$near", "$nearSphere" or "$geoNear"
	Center    s2.Point
	Flat      r2.Point
	Spherical bool    // on the sphere; false: flat (legacy $near), which needs a 2d index
	Meters    bool    // distances in meters (a GeoJSON center); else radians, or flat units
	Min, Max  float64 // inclusive; Max is +Inf when not given
	CenterRaw value.Value
}

// ParseNear compiles $near, $nearSphere or $geoNear (MongoDB's other name
// for $near in a filter) with the other fields of its
// operator object (opDoc), which may hold $maxDistance and $minDistance:
// {"$near":{"$geometry":{…},"$maxDistance":m}} or {"$nearSphere":[x,y],
// "$maxDistance":radians}.
func ParseNear(op string, arg, opDoc value.Value) (*Near, error) {
	n := &Near{Op: op, Max: math.Inf(1), Spherical: op == "$nearSphere"}
	center := arg
	if arg.Kind() == value.Object && arg.Has("type") {
		// A GeoJSON point without $geometry, as MongoDB also takes it.
		if err := n.geoJSONCenter(op, arg); err != nil {
			return nil, err
		}
	} else if arg.Kind() == value.Object && arg.Has("$geometry") {
		center = arg.Get("$geometry")
		for _, f := range arg.Fields() {
			if err := n.option(op, f.Key, f.Value); err != nil {
				return nil, err
			}
		}
		if err := n.geoJSONCenter(op, center); err != nil {
			return nil, err
		}
		// MongoDB still reads distances written inside $geometry, the
		// form of its early releases.
		for _, f := range center.Fields() {
			if f.Key == "$maxDistance" || f.Key == "$minDistance" {
				if err := n.option(op, f.Key, f.Value); err != nil {
					return nil, err
				}
			}
		}
	} else if err := n.legacyCenter(op, center); err != nil {
		return nil, err
	}
	withGeometry := arg.Kind() == value.Object && arg.Has("$geometry")
	for _, f := range opDoc.Fields() {
		if f.Key == "$maxDistance" || f.Key == "$minDistance" {
			if withGeometry {
				// MongoDB: "geo near accepts just one argument when
				// querying for a GeoJSON point".
				return nil, badOperand("%s with $geometry takes %s inside its object, not beside it: write {%q:{\"$geometry\":…,%q:%s}}", op, f.Key, op, f.Key, f.Value)
			}
			if err := n.option(op, f.Key, f.Value); err != nil {
				return nil, err
			}
		}
	}
	return n, n.check(op)
}

// NewNear builds the Near of a $geoNear stage: near is a GeoJSON point or
// a legacy pair; spherical asks for distances on the sphere.
func NewNear(near value.Value, spherical bool, min, max float64) (*Near, error) {
	n := &Near{Op: "$geoNear", Max: max, Min: min, Spherical: spherical}
	var err error
	if near.Kind() == value.Object && near.Has("type") {
		err = n.geoJSONCenter("$geoNear near", near)
	} else {
		err = n.legacyCenter("$geoNear near", near)
	}
	if err != nil {
		return nil, err
	}
	return n, n.check("$geoNear")
}

func (n *Near) geoJSONCenter(op string, v value.Value) error {
	g, err := ParseQuery(v)
	if err != nil {
		return err
	}
	if g.Type != "Point" {
		return badOperand("%s needs a GeoJSON Point, got %s", op, g.Type)
	}
	n.Center, n.Flat, n.Spherical, n.Meters, n.CenterRaw = g.Points[0], g.Flat[0], true, true, v
	return nil
}

func (n *Near) legacyCenter(op string, v value.Value) error {
	p, ok := legacyPair(v)
	if !ok {
		return badOperand("%s needs a GeoJSON point ({\"$geometry\":{\"type\":\"Point\",…}}) or a coordinate pair [x, y], got %s", op, v)
	}
	if n.Spherical && !inBounds(p.X, p.Y) {
		return invalid("%s: legacy point %s is out of longitude/latitude bounds", op, v)
	}
	n.Flat, n.CenterRaw = p, v
	if inBounds(p.X, p.Y) {
		n.Center = toSphere(p)
	}
	return nil
}

func (n *Near) option(op, key string, v value.Value) error {
	switch key {
	case "$geometry":
		return nil
	case "$maxDistance", "$minDistance":
		d, ok := number(v)
		if !ok || d < 0 {
			return badOperand("%s %s must be a nonnegative number, got %s", op, key, v)
		}
		if key == "$maxDistance" {
			n.Max = d
		} else {
			n.Min = d
		}
		return nil
	}
	return badOperand("%s: unknown option %s (use $geometry, $maxDistance, $minDistance)", op, key)
}

func (n *Near) check(op string) error {
	if n.Spherical && !n.Meters && n.Max != math.Inf(1) && n.Max > math.Pi {
		// Legacy spherical distances are radians: past pi is everything.
		n.Max = math.Pi
	}
	// A $minDistance above $maxDistance is legal and matches nothing, as
	// in MongoDB.
	return nil
}

// Distance returns the distance from the center to the nearest of gs, in
// the Near's unit, and which of gs it is; ok is false when none of gs has
// a place (a flat pair out of bounds for a spherical query, say).
func (n *Near) Distance(gs []*Geometry) (d float64, at int, ok bool) {
	d, at = math.Inf(1), -1
	for i, g := range gs {
		if e, gok := n.distance(g); gok && e < d {
			d, at, ok = e, i, true
		}
	}
	return d, at, ok
}

// Match reports whether the nearest of gs lies within [Min, Max].
func (n *Near) Match(gs []*Geometry) bool {
	d, _, ok := n.Distance(gs)
	return ok && d >= n.Min && d <= n.Max
}

func (n *Near) distance(g *Geometry) (float64, bool) {
	if !n.Spherical {
		if len(g.Flat) == 0 || len(g.Lines) > 0 || len(g.Polys) > 0 {
			return 0, false
		}
		d := math.Inf(1)
		for _, p := range g.Flat {
			d = math.Min(d, math.Hypot(p.X-n.Flat.X, p.Y-n.Flat.Y))
		}
		return d, true
	}
	if len(g.Points) < len(g.Flat) {
		return 0, false
	}
	a := s1.InfAngle()
	for _, p := range g.Points {
		a = min(a, n.Center.Distance(p))
	}
	for _, l := range g.Lines {
		a = min(a, distanceToLine(n.Center, l))
	}
	for _, p := range g.Polys {
		a = min(a, distanceToPolygon(n.Center, p))
	}
	if n.Meters {
		return a.Radians() * EarthRadiusMeters, true
	}
	return a.Radians(), true
}

func distanceToPolygon(c s2.Point, p *s2.Polygon) s1.Angle {
	if p.ContainsPoint(c) {
		return 0
	}
	d := s1.InfAngle()
	for _, l := range p.Loops() {
		for j := 0; j < l.NumEdges(); j++ {
			e := l.Edge(j)
			d = min(d, s2.DistanceFromSegment(c, e.V0, e.V1))
		}
	}
	return d
}
