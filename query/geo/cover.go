package geo

import (
	"fmt"
	"math"
	"sort"

	"github.com/golang/geo/r1"
	"github.com/golang/geo/r2"
	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"

	"github.com/omgdb/omgdb/query/value"
)

// Range is an inclusive range of index keys (cell ids as Token writes
// them); Lo == Hi for one cell.
type Range struct{ Lo, Hi string }

// Token writes a cell id as an index key: 16 hexadecimal digits.
func Token(id s2.CellID) string { return fmt.Sprintf("%016x", uint64(id)) }

// The coverers: a stored geometry gets at most 8 cells, a query region 20.
var (
	storeCoverer = &s2.RegionCoverer{MinLevel: 0, MaxLevel: 30, LevelMod: 1, MaxCells: 8}
	queryCoverer = &s2.RegionCoverer{MinLevel: 0, MaxLevel: 30, LevelMod: 1, MaxCells: 20}
)

// slack widens query regions before they are covered, so that a point the
// exact test puts on the boundary is never outside the covering (radians,
// about 6 mm).
const slack = 1e-9

// IndexKeys returns the 2dsphere index keys of the value of a field: the
// cells covering each of its geometries. Missing, null and an empty array
// give none. A value that is not geometry, or a legacy pair out of
// longitude/latitude bounds, is an error, as MongoDB refuses to index it
// ("Can't extract geo keys").
func IndexKeys(v value.Value) ([]string, error) {
	gs, err := ParseStored(v)
	if err != nil {
		return nil, err
	}
	var cells []s2.CellID
	for _, g := range gs {
		if len(g.Points) < len(g.Flat) {
			p := g.Flat[0]
			return nil, invalid("longitude/latitude is out of bounds, lng: %v lat: %v", p.X, p.Y)
		}
		for _, p := range g.Points {
			cells = append(cells, s2.CellFromPoint(p).ID())
		}
		for _, l := range g.Lines {
			cells = append(cells, storeCoverer.Covering(l)...)
		}
		for _, p := range g.Polys {
			cells = append(cells, storeCoverer.Covering(p)...)
		}
	}
	keys := make([]string, 0, len(cells))
	seen := map[s2.CellID]bool{}
	for _, c := range cells {
		if !seen[c] {
			seen[c] = true
			keys = append(keys, Token(c))
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// Cover returns the index key ranges that hold every geometry that may
// match the region. ok is false when the region cannot bound a scan.
func (r *Region) Cover() []Range {
	var cells []s2.CellID
	switch {
	case r.flatShape():
		rect, ok := r.flatBound()
		if !ok {
			return []Range{}
		}
		cells = queryCoverer.Covering(rect)
	case r.Shape == "$centerSphere":
		cells = queryCoverer.Covering(r.cap.Expanded(slack))
	default:
		cells = withNeighbors(geometryCells(r.geom))
	}
	return ranges(cells)
}

// Cover returns the index key ranges that hold every geometry within
// Max of the center, or nil when the whole index must be read.
func (n *Near) Cover() []Range {
	if !n.Spherical || math.IsInf(n.Max, 1) {
		return nil
	}
	rad := n.Max
	if n.Meters {
		rad /= EarthRadiusMeters
	}
	if rad >= math.Pi {
		return nil
	}
	c := s2.CapFromCenterAngle(n.Center, s1.Angle(rad)+slack)
	return ranges(queryCoverer.Covering(c))
}

func geometryCells(g *Geometry) []s2.CellID {
	var cells []s2.CellID
	for _, p := range g.Points {
		// A cell of about 10 m, not the leaf: a line or polygon edge
		// within onLine of the point may lie in the cell beside its leaf.
		cells = append(cells, s2.CellFromPoint(p).ID().Parent(20))
	}
	for _, l := range g.Lines {
		cells = append(cells, queryCoverer.Covering(l)...)
	}
	for _, p := range g.Polys {
		cells = append(cells, queryCoverer.Covering(p)...)
	}
	return cells
}

// withNeighbors adds the neighbours of each cell at its level, so that a
// point the exact test counts as on a boundary (within onLine) but that
// lies just outside it is still inside the covering.
func withNeighbors(cells []s2.CellID) []s2.CellID {
	out := cells
	for _, c := range cells {
		if c.IsLeaf() {
			continue
		}
		out = append(out, c.AllNeighbors(c.Level())...)
	}
	return out
}

// flatBound is the longitude/latitude rectangle around a flat shape,
// clipped to the earth; ok is false when nothing of it is on the earth.
func (r *Region) flatBound() (s2.Rect, bool) {
	var b r2.Rect
	switch r.Shape {
	case "$box":
		b = r.box
	case "$center":
		b = r2.RectFromCenterSize(r.center, r2.Point{X: 2 * r.radius, Y: 2 * r.radius})
	default:
		b = r2.RectFromPoints(r.flat...)
	}
	lo := r2.Point{X: math.Max(b.X.Lo, -180), Y: math.Max(b.Y.Lo, -90)}
	hi := r2.Point{X: math.Min(b.X.Hi, 180), Y: math.Min(b.Y.Hi, 90)}
	if lo.X > hi.X || lo.Y > hi.Y {
		return s2.Rect{}, false
	}
	const d = 1e-7 // degrees of slack, about 1 cm
	lo = r2.Point{X: math.Max(lo.X-d, -180), Y: math.Max(lo.Y-d, -90)}
	hi = r2.Point{X: math.Min(hi.X+d, 180), Y: math.Min(hi.Y+d, 90)}
	rad := math.Pi / 180
	lng := s1.IntervalFromEndpoints(lo.X*rad, hi.X*rad) // eastward from lo to hi
	if hi.X-lo.X >= 359.9999 {
		lng = s1.FullInterval()
	}
	return s2.Rect{Lat: r1.Interval{Lo: lo.Y * rad, Hi: hi.Y * rad}, Lng: lng}, true
}

// ranges turns a covering into key ranges: each cell's descendants (a
// range of ids) and its ancestors (points), since a stored geometry's
// cell intersects the cell when it is one or the other.
func ranges(cells []s2.CellID) []Range {
	u := s2.CellUnion(cells)
	u.Normalize()
	seen := map[s2.CellID]bool{}
	var out []Range
	for _, c := range u {
		out = append(out, Range{Token(c.RangeMin()), Token(c.RangeMax())})
		for l := c.Level() - 1; l >= 0; l-- {
			p := c.Parent(l)
			if seen[p] {
				break
			}
			seen[p] = true
			out = append(out, Range{Token(p), Token(p)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Lo < out[j].Lo })
	return out
}
