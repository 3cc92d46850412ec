package geo

import (
	"math"

	"github.com/golang/geo/r2"
	"github.com/golang/geo/s2"

	"github.com/omgdb/omgdb/query/value"
)

// EarthRadiusMeters is the earth radius MongoDB converts radians to meters
// with.
const EarthRadiusMeters = 6378100.0

// BigPolygonCRS names the CRS of a polygon whose winding gives its
// interior (counter-clockwise), which may be larger than a hemisphere.
const BigPolygonCRS = "urn:x-mongodb:crs:strictwinding:EPSG:4326"

// standardCRS are the names of the default CRS (WGS 84) GeoJSON may give.
var standardCRS = map[string]bool{"EPSG:4326": true, "urn:ogc:def:crs:OGC:1.3:CRS84": true, "urn:ogc:def:crs:EPSG::4326": true}

// Geometry is a parsed geometry: the points, lines and polygons of one
// GeoJSON object (a collection is flattened) or one legacy pair.
type Geometry struct {
	Type   string     // the GeoJSON type, or "legacy" for a coordinate pair
	Points []s2.Point // on the sphere; nil for a legacy pair out of lng/lat bounds
	Flat   []r2.Point // the points' coordinates as written: x longitude, y latitude
	Lines  []*s2.Polyline
	Polys  []*s2.Polygon
	Big    bool // a big polygon (strict winding CRS): Polys[0] is its one loop, unnormalised
}

// maxVertices bounds the coordinates one geometry may have, so that
// validating a hostile polygon (quadratic in its edges) stays cheap.
const maxVertices = 10_000

// ParseStored parses the value of a field that holds geometry: a GeoJSON
// object, a legacy pair, or an array of them (several locations). Missing,
// null and an empty array hold none.
func ParseStored(v value.Value) ([]*Geometry, error) {
	switch v.Kind() {
	case value.Missing, value.Null:
		return nil, nil
	case value.Object:
		g, err := parseObject(v, false)
		if err != nil {
			return nil, err
		}
		return []*Geometry{g}, nil
	case value.Array:
		if p, ok := legacyPair(v); ok {
			return []*Geometry{legacyGeometry(p)}, nil
		}
		var out []*Geometry
		for i, e := range v.Array() {
			g, err := parseElement(e)
			if err != nil {
				return nil, invalid("element %d: %v", i, err)
			}
			out = append(out, g)
		}
		return out, nil
	}
	return nil, invalid("geo field holds a %s, not GeoJSON or a coordinate pair", v.TypeName())
}

func parseElement(e value.Value) (*Geometry, error) {
	switch e.Kind() {
	case value.Object:
		return parseObject(e, false)
	case value.Array:
		if p, ok := legacyPair(e); ok {
			return legacyGeometry(p), nil
		}
	}
	return nil, invalid("%s is not GeoJSON or a coordinate pair", e)
}

// ParseQuery parses the GeoJSON object of a query's $geometry, which may
// use the big polygon CRS.
func ParseQuery(v value.Value) (*Geometry, error) {
	if v.Kind() != value.Object {
		return nil, invalid("$geometry needs a GeoJSON object, got %s", v.TypeName())
	}
	return parseObject(v, true)
}

// parseObject parses a GeoJSON object, or an object legacy pair such as
// {"lng":1,"lat":2}.
func parseObject(v value.Value, query bool) (*Geometry, error) {
	t := v.Get("type")
	if t.IsMissing() {
		if p, ok := legacyPair(v); ok {
			return legacyGeometry(p), nil
		}
		return nil, invalid("%s is not GeoJSON (it has no \"type\") nor a coordinate pair", v)
	}
	if t.Kind() != value.String {
		return nil, invalid("GeoJSON \"type\" must be a string, got %s", t.TypeName())
	}
	big, err := parseCRS(v.Get("crs"), t.Str(), query)
	if err != nil {
		return nil, err
	}
	g := &Geometry{Type: t.Str(), Big: big}
	if t.Str() == "GeometryCollection" {
		return g, g.addCollection(v.Get("geometries"))
	}
	coords := v.Get("coordinates")
	if coords.Kind() != value.Array {
		return nil, invalid("GeoJSON %s: \"coordinates\" must be an array, got %s", t.Str(), coords.TypeName())
	}
	if n := countNumbers(coords, 0); n > 2*maxVertices {
		return nil, invalid("GeoJSON %s has %d coordinates, over the limit of %d vertices", t.Str(), n/2, maxVertices)
	}
	return g, g.add(t.Str(), coords)
}

// add adds the shapes of a GeoJSON type with its coordinates.
func (g *Geometry) add(typ string, coords value.Value) error {
	switch typ {
	case "Point":
		p, err := point(coords)
		if err != nil {
			return err
		}
		g.addPoint(p)
	case "MultiPoint":
		for _, c := range coords.Array() {
			p, err := point(c)
			if err != nil {
				return err
			}
			g.addPoint(p)
		}
	case "LineString":
		return g.addLine(coords)
	case "MultiLineString":
		for _, c := range coords.Array() {
			if err := g.addLine(c); err != nil {
				return err
			}
		}
	case "Polygon":
		return g.addPolygon(coords)
	case "MultiPolygon":
		for _, c := range coords.Array() {
			if err := g.addPolygon(c); err != nil {
				return err
			}
		}
	default:
		return invalid("unknown GeoJSON type: %q", typ)
	}
	return nil
}

func (g *Geometry) addCollection(geoms value.Value) error {
	if geoms.Kind() != value.Array || len(geoms.Array()) == 0 {
		return invalid("GeometryCollection needs a nonempty \"geometries\" array")
	}
	for i, e := range geoms.Array() {
		if e.Kind() != value.Object || e.Get("type").Kind() != value.String {
			return invalid("GeometryCollection: geometry %d is not a GeoJSON object", i)
		}
		typ := e.Get("type").Str()
		if typ == "GeometryCollection" {
			return invalid("GeometryCollection: geometry %d is a GeometryCollection, which may not be nested", i)
		}
		if e.Get("coordinates").Kind() != value.Array {
			return invalid("GeometryCollection: geometry %d: \"coordinates\" must be an array", i)
		}
		if err := g.add(typ, e.Get("coordinates")); err != nil {
			return err
		}
	}
	return nil
}

func (g *Geometry) addPoint(p r2.Point) {
	g.Flat = append(g.Flat, p)
	g.Points = append(g.Points, toSphere(p))
}

// parseCRS reads a GeoJSON "crs" member: absent or a name of WGS 84, or
// the big polygon CRS, which only a query's Polygon may use.
func parseCRS(crs value.Value, typ string, query bool) (bool, error) {
	if crs.IsMissing() {
		return false, nil
	}
	name := crs.Get("properties").Get("name")
	if crs.Get("type").Str() != "name" || name.Kind() != value.String {
		return false, invalid(`GeoJSON "crs" must be {"type":"name","properties":{"name":…}}`)
	}
	switch {
	case standardCRS[name.Str()]:
		return false, nil
	case name.Str() != BigPolygonCRS:
		return false, invalid("unknown CRS name: %q", name.Str()).
			WithHint(`omgdb takes WGS 84 ("EPSG:4326", "urn:ogc:def:crs:OGC:1.3:CRS84" or no "crs" at all) and, for query polygons, %q`, BigPolygonCRS)
	case !query:
		return false, invalid("the strict winding CRS (%s) is only for query polygons, not stored documents", BigPolygonCRS).
			WithHint(`store the polygon without "crs" (it is then the smaller region its ring bounds), or split it into polygons smaller than a hemisphere`)
	case typ != "Polygon":
		return false, invalid("the strict winding CRS (%s) is only supported for Polygon, not %s", BigPolygonCRS, typ).
			WithHint(`drop the "crs" member: other geometries need none`)
	}
	return true, nil
}

// number returns v as a float64 when it is a number.
func number(v value.Value) (float64, bool) {
	if !v.IsNumber() {
		return 0, false
	}
	f := v.Float()
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// point reads GeoJSON coordinates [lng, lat].
func point(c value.Value) (r2.Point, error) {
	if c.Kind() != value.Array {
		return r2.Point{}, invalid("GeoJSON position must be an array [lng, lat], got %s", c.TypeName())
	}
	a := c.Array()
	if len(a) != 2 {
		return r2.Point{}, invalid("GeoJSON position %s must have exactly two numbers, longitude and latitude", c)
	}
	x, ok1 := number(a[0])
	y, ok2 := number(a[1])
	if !ok1 || !ok2 {
		return r2.Point{}, invalid("GeoJSON position %s must only contain finite numbers", c)
	}
	if !inBounds(x, y) {
		return r2.Point{}, invalid("longitude/latitude is out of bounds, lng: %v lat: %v", x, y)
	}
	return r2.Point{X: x, Y: y}, nil
}

func inBounds(lng, lat float64) bool {
	return lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90
}

func toSphere(p r2.Point) s2.Point {
	return s2.PointFromLatLng(s2.LatLngFromDegrees(p.Y, p.X))
}

// legacyPair reads a legacy coordinate pair: an array of two numbers, or
// an object whose two fields are numbers ({"lng":x,"lat":y}).
func legacyPair(v value.Value) (r2.Point, bool) {
	var a, b value.Value
	switch v.Kind() {
	case value.Array:
		if len(v.Array()) != 2 {
			return r2.Point{}, false
		}
		a, b = v.Array()[0], v.Array()[1]
	case value.Object:
		if v.Len() != 2 {
			return r2.Point{}, false
		}
		a, b = v.Fields()[0].Value, v.Fields()[1].Value
	default:
		return r2.Point{}, false
	}
	x, ok1 := number(a)
	y, ok2 := number(b)
	return r2.Point{X: x, Y: y}, ok1 && ok2
}

// legacyGeometry is a legacy pair: flat always, on the sphere when its
// coordinates are a valid longitude and latitude.
func legacyGeometry(p r2.Point) *Geometry {
	g := &Geometry{Type: "legacy", Flat: []r2.Point{p}}
	if inBounds(p.X, p.Y) {
		g.Points = []s2.Point{toSphere(p)}
	}
	return g
}

// countNumbers counts the numbers in nested arrays, stopping past limit.
func countNumbers(v value.Value, n int) int {
	for _, e := range v.Array() {
		if n > 2*maxVertices {
			return n
		}
		if e.Kind() == value.Array {
			n = countNumbers(e, n)
		} else {
			n++
		}
	}
	return n
}
