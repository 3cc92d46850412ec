// Package geo is omgdb's geometry for geospatial queries and 2dsphere
// indexes, built on github.com/golang/geo's S2 library.
//
// It reads what MongoDB reads: GeoJSON objects (Point, LineString,
// Polygon with holes, MultiPoint, MultiLineString, MultiPolygon,
// GeometryCollection) with coordinates [longitude, latitude], legacy
// coordinate pairs ([x, y] or an object of two numbers such as
// {"lng": x, "lat": y}), and in queries the "big polygon" CRS
// urn:x-mongodb:crs:strictwinding:EPSG:4326, whose single ring's winding
// (counter-clockwise) gives its interior, so that it may cover more than
// a hemisphere.
//
// Geometries are on the sphere. Distances are great-circle distances,
// in meters on MongoDB's earth radius (EarthRadiusMeters) for GeoJSON
// queries and in radians for legacy ones. The legacy shapes $box,
// $polygon and $center are flat: they compare the coordinates of points
// as written, in the plane, as MongoDB does.
//
// A Region is the compiled operand of $geoWithin or $geoIntersects, a Near
// that of $near, $nearSphere or the $geoNear stage. Each matches the
// geometries stored at a field (Region.Match, Near.Distance) and gives
// the S2 cell ranges of an index scan that finds every candidate (Cover).
// IndexKeys gives a stored value's index keys. Keys and ranges are cell
// ids written as 16 hexadecimal digits, so that their order as strings is
// the order of the cell ids.
//
// The package does no I/O and keeps no state: everything is safe for
// concurrent use.
package geo
