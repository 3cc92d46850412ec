package query_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// TestFilter_GeoMatchJSON_EqualsMatch is the raw-vs-decoded property for
// the geospatial operators: on random locations (GeoJSON, legacy pairs in
// both forms, numbers of every type, arrays of them, null, missing,
// strings) and random $geoWithin/$geoIntersects filters, alone or under
// $not, $or, $and and $elemMatch, and $nearSphere distance bounds,
// MatchJSON over canonical JSON answers exactly as Match on the parsed
// document.
func TestFilter_GeoMatchJSON_EqualsMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 18))
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	compiled, matched, missed := 0, 0, 0
	for it := 0; it < iterations; it++ {
		spec, err := value.Parse([]byte(geoRawFilter(r)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := query.CompileFilter(spec)
		if err != nil {
			t.Fatalf("filter %s: %v", spec, err)
		}
		compiled++
		for range 6 {
			d := value.MustParse(geoRawDoc(r))
			want := f.Match(d)
			got, err := f.MatchJSON(value.JSON(d))
			if err != nil || got != want {
				t.Fatalf("filter %s on %s: MatchJSON = %v, %v; Match = %v", spec, d, got, err, want)
			}
			if want {
				matched++
			} else {
				missed++
			}
		}
	}
	if matched < compiled/4 || missed < compiled/4 {
		t.Fatalf("weak test: %d filters, %d matches, %d misses", compiled, matched, missed)
	}
}

// geoRawNum writes a coordinate as one of the four number types.
func geoRawNum(r *rand.Rand, x float64) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf(`{"$numberInt":"%d"}`, int(x))
	case 1:
		return fmt.Sprintf(`{"$numberLong":"%d"}`, int(x))
	case 2:
		return fmt.Sprintf(`{"$numberDecimal":"%.3f"}`, x)
	}
	return fmt.Sprintf("%.3f", x)
}

func geoRawPos(r *rand.Rand) string {
	return "[" + geoRawNum(r, r.Float64()*8-4) + "," + geoRawNum(r, r.Float64()*8-4) + "]"
}

func geoRawLocation(r *rand.Rand, depth int) string {
	switch r.IntN(10) {
	case 0:
		return geoRawPos(r)
	case 1:
		return fmt.Sprintf(`{"lng":%s,"lat":%s}`, geoRawNum(r, r.Float64()*8-4), geoRawNum(r, r.Float64()*8-4))
	case 2:
		return fmt.Sprintf(`{"type":"LineString","coordinates":[%s,%s]}`, geoRawPos(r), geoRawPos(r))
	case 3:
		x, y, s := r.Float64()*6-3, r.Float64()*6-3, 0.2+r.Float64()*2
		return fmt.Sprintf(`{"type":"Polygon","coordinates":[[[%.2f,%.2f],[%.2f,%.2f],[%.2f,%.2f],[%.2f,%.2f]]]}`, x, y, x+s, y, x, y+s, x, y)
	case 4:
		if depth > 0 {
			return fmt.Sprintf("[%s,%s]", geoRawLocation(r, depth-1), geoRawLocation(r, depth-1))
		}
	case 5:
		return []string{"null", `"here"`, "[]", "{}", "true"}[r.IntN(5)]
	case 6:
		return fmt.Sprintf(`{"type":"MultiPoint","coordinates":[%s,%s]}`, geoRawPos(r), geoRawPos(r))
	}
	return fmt.Sprintf(`{"type":"Point","coordinates":%s}`, geoRawPos(r))
}

func geoRawDoc(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`{"_id":1`)
	if r.IntN(8) != 0 {
		b.WriteString(`,"loc":` + geoRawLocation(r, 2))
	}
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, `,"arr":[{"p":%s},{"p":%s}]`, geoRawLocation(r, 1), geoRawLocation(r, 1))
	}
	return b.String() + "}"
}

func geoRawCond(r *rand.Rand) string {
	x, y := r.Float64()*6-3, r.Float64()*6-3
	s := 0.5 + r.Float64()*3
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf(`{"$geoWithin":{"$centerSphere":[[%.2f,%.2f],%.4f]}}`, x, y, s/60)
	case 1:
		return fmt.Sprintf(`{"$geoWithin":{"$box":[[%.2f,%.2f],[%.2f,%.2f]]}}`, x, y, x+s, y+s)
	case 2:
		return fmt.Sprintf(`{"$geoWithin":{"$center":[[%.2f,%.2f],%.2f]}}`, x, y, s)
	case 3:
		return fmt.Sprintf(`{"$geoWithin":{"$polygon":[[%.2f,%.2f],[%.2f,%.2f],[%.2f,%.2f]]}}`, x, y, x+s, y, x, y+s)
	case 4:
		return fmt.Sprintf(`{"$geoIntersects":{"$geometry":{"type":"LineString","coordinates":[[%.2f,%.2f],[%.2f,%.2f]]}}}`, x, y, x+s, y-s)
	}
	return fmt.Sprintf(`{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[%.2f,%.2f],[%.2f,%.2f],[%.2f,%.2f],[%.2f,%.2f],[%.2f,%.2f]]]}}}`,
		x, y, x+s, y, x+s, y+s, x, y+s, x, y)
}

func geoRawFilter(r *rand.Rand) string {
	switch r.IntN(7) {
	case 0:
		return fmt.Sprintf(`{"loc":{"$not":%s}}`, geoRawCond(r))
	case 5:
		// $near's distance test (a store adds the order and the index).
		return fmt.Sprintf(`{"loc":{"$nearSphere":[%.2f,%.2f],"$minDistance":%.4f,"$maxDistance":%.4f}}`,
			r.Float64()*6-3, r.Float64()*6-3, r.Float64()*0.01, 0.01+r.Float64()*0.05)
	case 1:
		return fmt.Sprintf(`{"$or":[{"loc":%s},{"arr.p":%s}]}`, geoRawCond(r), geoRawCond(r))
	case 2:
		return fmt.Sprintf(`{"$and":[{"loc":%s},{"loc":%s}]}`, geoRawCond(r), geoRawCond(r))
	case 3:
		return fmt.Sprintf(`{"arr":{"$elemMatch":{"p":%s}}}`, geoRawCond(r))
	case 4:
		return fmt.Sprintf(`{"arr.p":%s}`, geoRawCond(r))
	}
	return fmt.Sprintf(`{"loc":%s}`, geoRawCond(r))
}
