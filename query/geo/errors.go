package geo

import "github.com/omgdb/omgdb/query/errs"

// invalid returns an Invalid error about a geometry, with a hint on how
// GeoJSON is written.
func invalid(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, format, args...).
		WithHint(`write GeoJSON as {"type":"Point","coordinates":[lng,lat]} (longitude first, -180..180; latitude -90..90); see omgdb docs filters`)
}

// badOperand returns an Invalid error about a geospatial operator's
// operand other than its geometry.
func badOperand(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, format, args...).
		WithHint("see `omgdb docs filters` (Geospatial) for the forms each operator takes")
}

// badPolygon returns an Invalid error about a polygon's rings, with a hint
// on what a valid one is.
func badPolygon(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, format, args...).
		WithHint(`a Polygon's coordinates are [exterior ring, hole, …], each ring a closed list of [lng,lat] (the last repeats the first) whose edges do not cross; holes lie inside the exterior ring and apart; see omgdb docs filters`)
}
