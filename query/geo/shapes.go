package geo

import (
	"github.com/golang/geo/r2"
	"github.com/golang/geo/s2"

	"github.com/omgdb/omgdb/query/value"
)

// positions reads an array of GeoJSON positions, dropping a position equal
// to the one before it (as MongoDB does).
func positions(c value.Value, what string) ([]s2.Point, error) {
	if c.Kind() != value.Array {
		return nil, invalid("GeoJSON %s coordinates must be an array of positions, got %s", what, c.TypeName())
	}
	var pts []s2.Point
	for _, e := range c.Array() {
		p, err := point(e)
		if err != nil {
			return nil, err
		}
		sp := toSphere(p)
		if n := len(pts); n > 0 && pts[n-1] == sp {
			continue
		}
		pts = append(pts, sp)
	}
	return pts, nil
}

func (g *Geometry) addLine(c value.Value) error {
	pts, err := positions(c, "LineString")
	if err != nil {
		return err
	}
	if len(pts) < 2 {
		return invalid("GeoJSON LineString must have at least 2 distinct vertices, got %s", c)
	}
	line := s2.Polyline(pts)
	if err := line.Validate(); err != nil {
		return invalid("invalid GeoJSON LineString %s: %v", c, err)
	}
	g.Lines = append(g.Lines, &line)
	return nil
}

// addPolygon adds a Polygon: its exterior ring, then its holes. Each ring
// is closed (its last position repeats its first), has at least three
// distinct vertices, and no two of its edges cross; each hole lies inside
// the exterior ring and crosses no other ring.
func (g *Geometry) addPolygon(c value.Value) error {
	if c.Kind() != value.Array || len(c.Array()) == 0 {
		return badPolygon("GeoJSON Polygon coordinates must be a nonempty array of rings, got %s", c)
	}
	var loops []*s2.Loop
	for i, ring := range c.Array() {
		l, err := g.loop(ring, i)
		if err != nil {
			return err
		}
		for j, o := range loops {
			if loopsCross(l, o) {
				return badPolygon("GeoJSON Polygon: rings %d and %d cross", j, i)
			}
		}
		if i > 0 && !loops[0].ContainsPoint(l.Vertex(0)) {
			return badPolygon("GeoJSON Polygon: ring %d is not inside the exterior ring (secondary rings must be holes)", i)
		}
		for j := 1; j < len(loops); j++ {
			if loops[j].ContainsPoint(l.Vertex(0)) || l.ContainsPoint(loops[j].Vertex(0)) {
				return badPolygon("GeoJSON Polygon: holes %d and %d overlap or nest (only one level of holes is allowed)", j, i)
			}
		}
		loops = append(loops, l)
	}
	if g.Big && len(loops) > 1 {
		return badPolygon("a big polygon (strict winding CRS) may have one ring only, got %d", len(loops))
	}
	g.Polys = append(g.Polys, s2.PolygonFromLoops(loops))
	return nil
}

// loop reads one ring of a polygon.
func (g *Geometry) loop(ring value.Value, i int) (*s2.Loop, error) {
	if ring.Kind() != value.Array || len(ring.Array()) < 4 {
		return nil, badPolygon("GeoJSON Polygon ring %d must be an array of at least 4 positions (closed: the last repeats the first), got %s", i, ring)
	}
	a := ring.Array()
	first, err1 := point(a[0])
	last, err2 := point(a[len(a)-1])
	if err1 == nil && err2 == nil && first != last {
		return nil, badPolygon("GeoJSON Polygon ring %d is not closed: its first position %s differs from its last %s", i, a[0], a[len(a)-1])
	}
	pts, err := positions(ring, "Polygon")
	if err != nil {
		return nil, err
	}
	pts = pts[:len(pts)-1] // the closing position
	if len(pts) < 3 {
		return nil, badPolygon("GeoJSON Polygon ring %d must have at least 3 distinct vertices", i)
	}
	if a, b, ok := duplicateVertex(pts); ok {
		return nil, badPolygon("GeoJSON Polygon ring %d has vertex %d repeated at %d", i, a, b)
	}
	if a, b, ok := selfCrossing(pts); ok {
		return nil, badPolygon("GeoJSON Polygon ring %d is self-intersecting: edges %d and %d cross", i, a, b)
	}
	l := s2.LoopFromPoints(pts)
	if err := l.Validate(); err != nil {
		return nil, badPolygon("GeoJSON Polygon ring %d is invalid: %v", i, err)
	}
	if !g.Big {
		l.Normalize() // the smaller of the two regions the ring bounds
	}
	return l, nil
}

func duplicateVertex(pts []s2.Point) (int, int, bool) {
	seen := make(map[s2.Point]int, len(pts))
	for i, p := range pts {
		if j, ok := seen[p]; ok {
			return j, i, true
		}
		seen[p] = i
	}
	return 0, 0, false
}

// selfCrossing finds two edges of a ring, not adjacent, that cross.
func selfCrossing(pts []s2.Point) (int, int, bool) {
	n := len(pts)
	for i := 0; i < n; i++ {
		a, b := pts[i], pts[(i+1)%n]
		for j := i + 2; j < n; j++ {
			if i == 0 && j == n-1 {
				continue // adjacent through the closing vertex
			}
			if s2.CrossingSign(a, b, pts[j], pts[(j+1)%n]) != s2.DoNotCross {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// loopsCross reports whether an edge of a crosses an edge of b.
func loopsCross(a, b *s2.Loop) bool {
	for i := 0; i < a.NumEdges(); i++ {
		e := a.Edge(i)
		for j := 0; j < b.NumEdges(); j++ {
			f := b.Edge(j)
			if s2.CrossingSign(e.V0, e.V1, f.V0, f.V1) == s2.Cross {
				return true
			}
		}
	}
	return false
}

// flatInPolygon reports whether p lies inside or on the flat polygon pts
// (even-odd rule).
func flatInPolygon(p r2.Point, pts []r2.Point) bool {
	in := false
	for i, j := 0, len(pts)-1; i < len(pts); j, i = i, i+1 {
		a, b := pts[i], pts[j]
		if onSegment(p, a, b) {
			return true
		}
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

func onSegment(p, a, b r2.Point) bool {
	if (b.X-a.X)*(p.Y-a.Y)-(b.Y-a.Y)*(p.X-a.X) != 0 {
		return false
	}
	return p.X >= min(a.X, b.X) && p.X <= max(a.X, b.X) && p.Y >= min(a.Y, b.Y) && p.Y <= max(a.Y, b.Y)
}
