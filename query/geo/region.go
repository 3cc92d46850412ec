package geo

import (
	"math"

	"github.com/golang/geo/r2"
	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"

	"github.com/omgdb/omgdb/query/value"
)

// Region is the compiled operand of $geoWithin or $geoIntersects.
type Region struct {
	Within bool // $geoWithin; else $geoIntersects
	Shape  string
	geom   *Geometry // $geometry
	cap    s2.Cap    // $centerSphere
	box    r2.Rect   // $box
	flat   []r2.Point
	center r2.Point // $center
	radius float64  // $center
}

// ParseWithin compiles the operand of $geoWithin: {"$geometry": Polygon or
// MultiPolygon}, {"$centerSphere": [[x,y], radians]}, or the flat legacy
// shapes {"$box": [[x1,y1],[x2,y2]]}, {"$polygon": [[x,y],…]} and
// {"$center": [[x,y], radius]}.
func ParseWithin(op string, v value.Value) (*Region, error) {
	if v.Kind() != value.Object || v.Len() != 1 {
		return nil, badOperand("%s needs an object of one shape: $geometry, $centerSphere, $box, $polygon or $center; got %s", op, v)
	}
	f := v.Fields()[0]
	r := &Region{Within: true, Shape: f.Key}
	var err error
	switch f.Key {
	case "$geometry":
		r.geom, err = ParseQuery(f.Value)
		if err == nil && (r.geom.Type != "Polygon" && r.geom.Type != "MultiPolygon") {
			err = badOperand("%s $geometry must be a Polygon or MultiPolygon, got %s", op, r.geom.Type)
		}
	case "$centerSphere":
		var c r2.Point
		c, r.radius, err = circle(f.Key, f.Value)
		if err == nil && !inBounds(c.X, c.Y) {
			err = invalid("$centerSphere center %v is out of longitude/latitude bounds", f.Value.Array()[0])
		}
		r.cap = s2.CapFromCenterAngle(toSphere(c), s1.Angle(r.radius))
	case "$center":
		r.center, r.radius, err = circle(f.Key, f.Value)
	case "$box":
		err = r.parseBox(f.Value)
	case "$polygon":
		err = r.parseFlatPolygon(f.Value)
	default:
		err = badOperand("unknown %s shape %s: use $geometry, $centerSphere, $box, $polygon or $center", op, f.Key)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ParseIntersects compiles the operand of $geoIntersects:
// {"$geometry": any GeoJSON object}.
func ParseIntersects(v value.Value) (*Region, error) {
	if v.Kind() != value.Object || v.Len() != 1 || v.Fields()[0].Key != "$geometry" {
		return nil, badOperand("$geoIntersects needs {\"$geometry\": GeoJSON}, got %s", v)
	}
	g, err := ParseQuery(v.Fields()[0].Value)
	if err != nil {
		return nil, err
	}
	return &Region{Shape: "$geometry", geom: g}, nil
}

// circle reads [[x, y], radius].
func circle(name string, v value.Value) (r2.Point, float64, error) {
	a := v.Array()
	if v.Kind() != value.Array || len(a) != 2 {
		return r2.Point{}, 0, badOperand("%s needs [[x, y], radius], got %s", name, v)
	}
	c, ok := legacyPair(a[0])
	if !ok {
		return r2.Point{}, 0, badOperand("%s center must be a coordinate pair, got %s", name, a[0])
	}
	r, ok := number(a[1])
	if !ok || r < 0 {
		return r2.Point{}, 0, badOperand("%s radius must be a nonnegative number, got %s", name, a[1])
	}
	return c, r, nil
}

func (r *Region) parseBox(v value.Value) error {
	a := v.Array()
	if v.Kind() != value.Array || len(a) != 2 {
		return badOperand("$box needs [[x1, y1], [x2, y2]] (bottom left, top right), got %s", v)
	}
	p, ok1 := legacyPair(a[0])
	q, ok2 := legacyPair(a[1])
	if !ok1 || !ok2 {
		return badOperand("$box corners must be coordinate pairs, got %s", v)
	}
	r.box = r2.RectFromPoints(p, q)
	return nil
}

func (r *Region) parseFlatPolygon(v value.Value) error {
	var pts []value.Value
	switch v.Kind() {
	case value.Array:
		pts = v.Array()
	case value.Object: // {"a":[x,y],"b":[x,y],…}, as MongoDB also takes it
		for _, f := range v.Fields() {
			pts = append(pts, f.Value)
		}
	}
	if len(pts) < 3 {
		return badOperand("$polygon needs an array of at least 3 coordinate pairs, got %s", v)
	}
	for _, e := range pts {
		p, ok := legacyPair(e)
		if !ok {
			return badOperand("$polygon vertices must be coordinate pairs, got %s", e)
		}
		r.flat = append(r.flat, p)
	}
	return nil
}

// flatShape reports whether the region is one of the flat legacy shapes.
func (r *Region) flatShape() bool {
	return r.Shape == "$box" || r.Shape == "$polygon" || r.Shape == "$center"
}

// Match reports whether some geometry of gs is within (or intersects) the
// region.
func (r *Region) Match(gs []*Geometry) bool {
	for _, g := range gs {
		if r.matches(g) {
			return true
		}
	}
	return false
}

func (r *Region) matches(g *Geometry) bool {
	if r.flatShape() {
		return r.flatContains(g)
	}
	if len(g.Points) < len(g.Flat) {
		return false // a legacy pair that is no place on the sphere
	}
	if r.Within {
		return r.contains(g)
	}
	return intersects(g, r.geom)
}

// flatContains: the flat shapes hold points only.
func (r *Region) flatContains(g *Geometry) bool {
	if len(g.Flat) == 0 || len(g.Lines) > 0 || len(g.Polys) > 0 {
		return false
	}
	for _, p := range g.Flat {
		var in bool
		switch r.Shape {
		case "$box":
			in = r.box.ContainsPoint(p)
		case "$center":
			in = math.Hypot(p.X-r.center.X, p.Y-r.center.Y) <= r.radius
		default:
			in = flatInPolygon(p, r.flat)
		}
		if !in {
			return false
		}
	}
	return true
}

// contains reports whether every part of g lies in the region.
func (r *Region) contains(g *Geometry) bool {
	if r.Shape == "$centerSphere" {
		return capContains(r.cap, g)
	}
	for _, p := range g.Points {
		if !anyPoly(r.geom.Polys, func(q *s2.Polygon) bool { return polyHasPoint(q, p) }) {
			return false
		}
	}
	for _, l := range g.Lines {
		if !anyPoly(r.geom.Polys, func(q *s2.Polygon) bool { return polyContainsLine(q, l) }) {
			return false
		}
	}
	for _, p := range g.Polys {
		if !anyPoly(r.geom.Polys, func(q *s2.Polygon) bool { return q.Contains(p) }) {
			return false
		}
	}
	return true
}

func anyPoly(ps []*s2.Polygon, f func(*s2.Polygon) bool) bool {
	for _, p := range ps {
		if f(p) {
			return true
		}
	}
	return false
}

// capContains reports whether g lies in the cap: its points in it, and
// its lines and polygon boundaries nowhere nearer the cap's antipode than
// pi minus its radius (a cap over a hemisphere is not convex: a line
// between two of its points may leave it); a polygon must also not hold
// the antipode.
func capContains(c s2.Cap, g *Geometry) bool {
	for _, p := range g.Points {
		if !c.ContainsPoint(p) {
			return false
		}
	}
	anti := s2.Point{Vector: c.Center().Mul(-1)}
	limit := math.Pi - c.Radius().Radians() - onLine
	for _, l := range g.Lines {
		if !capHasVertices(c, *l) || distanceToLine(anti, l).Radians() < limit {
			return false
		}
	}
	for _, p := range g.Polys {
		if polyHasPoint(p, anti) && c.Radius().Radians() < math.Pi {
			return false
		}
		for _, l := range p.Loops() {
			ring := s2.Polyline(append(append([]s2.Point(nil), l.Vertices()...), l.Vertex(0)))
			if !capHasVertices(c, ring) || distanceToLine(anti, &ring).Radians() < limit {
				return false
			}
		}
	}
	return true
}

func capHasVertices(c s2.Cap, pts []s2.Point) bool {
	for _, p := range pts {
		if !c.ContainsPoint(p) {
			return false
		}
	}
	return true
}

// polyContainsLine: every vertex of l in q, and no edge of l crossing q's
// boundary.
func polyContainsLine(q *s2.Polygon, l *s2.Polyline) bool {
	for _, v := range *l {
		if !polyHasPoint(q, v) {
			return false
		}
	}
	return !crossesBoundary(q, l, s2.Cross)
}

// crossesBoundary reports whether an edge of l crosses an edge of q with
// at least the crossing strength want (Cross, or MaybeCross for touching).
func crossesBoundary(q *s2.Polygon, l *s2.Polyline, want s2.Crossing) bool {
	for i := 0; i+1 < len(*l); i++ {
		a, b := (*l)[i], (*l)[i+1]
		for _, loop := range q.Loops() {
			for j := 0; j < loop.NumEdges(); j++ {
				e := loop.Edge(j)
				c := s2.CrossingSign(a, b, e.V0, e.V1)
				if c == s2.Cross || (want == s2.MaybeCross && c == s2.MaybeCross) {
					return true
				}
			}
		}
	}
	return false
}

// intersects reports whether geometries g and h share a point.
func intersects(g, h *Geometry) bool {
	for _, p := range g.Points {
		if pointIntersects(p, h) {
			return true
		}
	}
	for _, l := range g.Lines {
		if lineIntersects(l, h) {
			return true
		}
	}
	for _, p := range g.Polys {
		if polyIntersects(p, h) {
			return true
		}
	}
	return false
}

// onLine is how close, in radians, a point must be to a line to lie on it
// (about 6 mm on the earth).
const onLine = 1e-9

func pointIntersects(p s2.Point, h *Geometry) bool {
	for _, q := range h.Points {
		if p == q {
			return true
		}
	}
	for _, l := range h.Lines {
		if distanceToLine(p, l) <= onLine {
			return true
		}
	}
	for _, q := range h.Polys {
		if polyHasPoint(q, p) {
			return true
		}
	}
	return false
}

// polyHasPoint reports whether p lies in q or on its boundary (within
// onLine), as MongoDB counts a point on a polygon's edge as inside it.
func polyHasPoint(q *s2.Polygon, p s2.Point) bool {
	if q.ContainsPoint(p) {
		return true
	}
	for _, l := range q.Loops() {
		for j := 0; j < l.NumEdges(); j++ {
			e := l.Edge(j)
			if s2.DistanceFromSegment(p, e.V0, e.V1) <= onLine {
				return true
			}
		}
	}
	return false
}

func lineIntersects(l *s2.Polyline, h *Geometry) bool {
	for _, p := range h.Points {
		if distanceToLine(p, l) <= onLine {
			return true
		}
	}
	for _, m := range h.Lines {
		if l.Intersects(m) {
			return true
		}
	}
	for _, q := range h.Polys {
		if polyTouchesLine(q, l) {
			return true
		}
	}
	return false
}

func polyIntersects(p *s2.Polygon, h *Geometry) bool {
	for _, q := range h.Points {
		if polyHasPoint(p, q) {
			return true
		}
	}
	for _, l := range h.Lines {
		if polyTouchesLine(p, l) {
			return true
		}
	}
	for _, q := range h.Polys {
		if p.Intersects(q) {
			return true
		}
	}
	return false
}

func polyTouchesLine(q *s2.Polygon, l *s2.Polyline) bool {
	for _, v := range *l {
		if polyHasPoint(q, v) {
			return true
		}
	}
	return crossesBoundary(q, l, s2.MaybeCross)
}

func distanceToLine(p s2.Point, l *s2.Polyline) s1.Angle {
	if len(*l) == 1 {
		return p.Distance((*l)[0])
	}
	d := s1.InfAngle()
	for i := 0; i+1 < len(*l); i++ {
		if e := s2.DistanceFromSegment(p, (*l)[i], (*l)[i+1]); e < d {
			d = e
		}
	}
	return d
}
