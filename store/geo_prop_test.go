package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// geoPropIndexes are the 2dsphere indexes of the geo property test.
var geoPropIndexes = []string{`{"loc":"2dsphere"}`, `{"cat":1,"loc":"2dsphere"}`, `{"loc":"2dsphere","cat":-1}`}

// TestPlanner_GeoIndexesNeverChangeResults: for random points, lines,
// polygons and arrays of points, and random $geoWithin, $geoIntersects and
// $near queries (alone or with another condition), every 2dsphere index
// (hinted) and the planner's choice give what a collection scan gives;
// counts too; and a $near, which runs through an index, gives the matching
// documents of a scan sorted by their distance.
func TestPlanner_GeoIndexesNeverChangeResults(t *testing.T) {
	docs, queries := 1500, 300
	switch {
	case testing.Short() || raceEnabled:
		docs, queries = 400, 100
	case os.Getenv("OMGDB_LONG") != "":
		docs, queries = 5000, 2000
	}
	db := storetest.MustOpen(t)
	r := rand.New(rand.NewPCG(21, 22))
	var all []string
	for i := 0; i < docs; i++ {
		all = append(all, geoPropDoc(r, i))
	}
	storetest.Insert(t, db, "c", all[:docs/2]...)
	var names []string
	for _, pattern := range geoPropIndexes {
		err := db.Update(store.Change{}, func(tx *store.Tx) error {
			c, _ := tx.Collection("c")
			fields, err := store.ParseKeyPattern(pattern)
			if err != nil {
				return err
			}
			ix, err := c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: fields}))
			if err == nil {
				names = append(names, ix.Def.Name)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	storetest.Insert(t, db, "c", all[docs/2:]...)
	stats := map[string]int{}
	for i := 0; i < queries; i++ {
		fs := geoPropFilter(r)
		f := mustFilter(t, fs)
		if _, n := f.Near(); n != nil {
			got, err := geoFindIDs(db, store.Query{Filter: f})
			if err != nil {
				t.Fatalf("filter %s: %v", fs, err)
			}
			if want := nearByScan(t, db, f); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("filter %s:\n got %v\nwant %v", fs, got, want)
			}
			stats["near"]++
			if len(got) > 0 {
				stats["non-empty results"]++
			}
			continue
		}
		want, err := geoFindIDs(db, store.Query{Filter: f, Hint: "$natural"})
		if err != nil {
			t.Fatalf("filter %s: %v", fs, err)
		}
		wantCount := countQuery(t, db, store.Query{Filter: f, Hint: "$natural"})
		for _, hint := range append([]string{""}, names...) {
			got, err := geoFindIDs(db, store.Query{Filter: f, Hint: hint})
			if err != nil {
				if strings.Contains(err.Error(), "cannot answer this query") {
					stats["refused"]++
					continue
				}
				t.Fatalf("filter %s hint %q: %v", fs, hint, err)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("filter %s hint %q:\n got %d: %v\nwant %d: %v", fs, hint, len(got), got, len(want), want)
			}
			if n := countQuery(t, db, store.Query{Filter: f, Hint: hint}); n != wantCount && n >= 0 {
				t.Fatalf("count %s hint %q = %d, want %d", fs, hint, n, wantCount)
			}
			stats["compared"]++
		}
		if len(want) > 0 {
			stats["non-empty results"]++
		}
	}
	t.Logf("%d documents, %d queries: %v", docs, queries, stats)
	if stats["non-empty results"] < queries/4 {
		t.Errorf("only %d of %d queries matched anything: the generator is too narrow", stats["non-empty results"], queries)
	}
}

// geoPropCenters are where documents and queries cluster: the equator,
// the antimeridian, a pole, a face corner of the S2 cube.
var geoPropCenters = [][2]float64{{0, 0}, {179.5, 10}, {-30, 89}, {45, 35.26}}

func geoPropPoint(r *rand.Rand, spread float64) [2]float64 {
	c := geoPropCenters[r.IntN(len(geoPropCenters))]
	lng := c[0] + (r.Float64()*2-1)*spread
	lat := c[1] + (r.Float64()*2-1)*spread
	return [2]float64{math.Mod(lng+540, 360) - 180, max(-89.9, min(89.9, lat))}
}

// pt writes a position, its longitude wrapped into [-180, 180).
func pt(p [2]float64) string {
	return fmt.Sprintf("[%.4f,%.4f]", math.Mod(p[0]+540, 360)-180, p[1])
}

// box returns a closed ring around p, half size s.
func box(p [2]float64, s float64) string {
	lo := [2]float64{p[0] - s, max(-89.9, p[1]-s)}
	hi := [2]float64{p[0] + s, min(89.9, p[1]+s)}
	return fmt.Sprintf("[[%s,%s,%s,%s,%s]]", pt(lo), pt([2]float64{hi[0], lo[1]}), pt(hi), pt([2]float64{lo[0], hi[1]}), pt(lo))
}

// reverseRing winds a ring written by box the other way round.
func reverseRing(ring string) string {
	var rings [][][2]float64
	if err := json.Unmarshal([]byte(ring), &rings); err != nil {
		panic(err)
	}
	slices.Reverse(rings[0])
	out, _ := json.Marshal(rings)
	return string(out)
}

func geoPropGeometry(r *rand.Rand, spread float64) string {
	p := geoPropPoint(r, spread)
	switch r.IntN(7) {
	case 0:
		return pt(p) // legacy pair
	case 1:
		return fmt.Sprintf(`{"lng":%.4f,"lat":%.4f}`, p[0], p[1])
	case 2:
		return fmt.Sprintf(`{"type":"LineString","coordinates":[%s,%s]}`, pt(p), pt(geoPropPoint(r, spread)))
	case 3:
		return fmt.Sprintf(`{"type":"Polygon","coordinates":%s}`, box(p, 0.05+r.Float64()*0.5))
	case 4:
		return fmt.Sprintf(`[%s,{"type":"Point","coordinates":%s}]`, pt(p), pt(geoPropPoint(r, spread)))
	}
	return fmt.Sprintf(`{"type":"Point","coordinates":%s}`, pt(p))
}

func geoPropDoc(r *rand.Rand, i int) string {
	doc := fmt.Sprintf(`{"_id":%d,"cat":%d`, i, r.IntN(4))
	switch r.IntN(12) {
	case 0: // no location
	case 1:
		doc += `,"loc":null`
	default:
		doc += `,"loc":` + geoPropGeometry(r, 3)
	}
	return doc + "}"
}

func geoPropFilter(r *rand.Rand) string {
	p := geoPropPoint(r, 3)
	var cond string
	switch r.IntN(11) {
	case 0:
		cond = fmt.Sprintf(`{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":%s}}}`, box(p, 0.2+r.Float64()*3))
	case 8:
		// A big polygon: the box, or (wound clockwise) the rest of the
		// earth.
		ring := box(p, 0.5+r.Float64()*20)
		if r.IntN(2) == 0 {
			ring = reverseRing(ring)
		}
		op := []string{"$geoWithin", "$geoIntersects"}[r.IntN(2)]
		cond = fmt.Sprintf(`{%q:{"$geometry":{"type":"Polygon","coordinates":%s,"crs":{"type":"name","properties":{"name":"urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}}`, op, ring)
	case 9:
		cond = fmt.Sprintf(`{"$geoWithin":{"$polygon":[%s,%s,%s]}}`, pt(p), pt(geoPropPoint(r, 3)), pt(geoPropPoint(r, 3)))
	case 10:
		cond = fmt.Sprintf(`{"$geoWithin":{"$center":[%s,%.4f]}}`, pt(p), r.Float64()*3)
	case 1:
		cond = fmt.Sprintf(`{"$geoWithin":{"$centerSphere":[%s,%.5f]}}`, pt(p), r.Float64()*0.05)
	case 2:
		s := r.Float64() * 3
		cond = fmt.Sprintf(`{"$geoWithin":{"$box":[[%.4f,%.4f],[%.4f,%.4f]]}}`, p[0]-s, p[1]-s, p[0]+s, p[1]+s)
	case 3:
		cond = fmt.Sprintf(`{"$geoIntersects":{"$geometry":{"type":"Polygon","coordinates":%s}}}`, box(p, 0.1+r.Float64()*2))
	case 4:
		cond = fmt.Sprintf(`{"$geoIntersects":{"$geometry":{"type":"LineString","coordinates":[%s,%s]}}}`, pt(p), pt(geoPropPoint(r, 3)))
	case 5:
		cond = fmt.Sprintf(`{"$geoWithin":{"$geometry":{"type":"MultiPolygon","coordinates":[%s,%s]}}}`, box(p, 1), box(geoPropPoint(r, 3), 2))
	case 6:
		cond = fmt.Sprintf(`{"$nearSphere":{"$geometry":{"type":"Point","coordinates":%s},"$maxDistance":%d}}`, pt(p), r.IntN(400_000))
	default:
		cond = fmt.Sprintf(`{"$nearSphere":%s,"$minDistance":%.4f,"$maxDistance":%.4f}`, pt(p), r.Float64()*0.01, 0.01+r.Float64()*0.05)
	}
	fs := `{"loc":` + cond
	if r.IntN(3) == 0 {
		fs += fmt.Sprintf(`,"cat":%d`, r.IntN(4))
	}
	return fs + "}"
}

func geoFindIDs(db *store.DB, q store.Query) ([]string, error) {
	docs, err := findJSON(db, q)
	for i, d := range docs {
		docs[i] = value.MustParse(d).Get("_id").String()
	}
	return docs, err
}

// nearByScan is a $near's result computed without an index: the matching
// documents of a scan, sorted by distance, then _id.
func nearByScan(t *testing.T, db *store.DB, f *query.Filter) []string {
	t.Helper()
	path, n := f.Near()
	type hit struct {
		id   int64
		dist float64
	}
	var hits []hit
	err := db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		src := c.Find(context.Background(), store.Query{Hint: "$natural"})
		defer src.Close()
		for src.Next() {
			d := src.Doc()
			if !f.Match(d) {
				continue
			}
			gs, _ := query.GeoValues(d, path)
			dist, _, _ := n.Distance(gs)
			hits = append(hits, hit{d.Get("_id").Long(), dist})
		}
		return src.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].dist != hits[j].dist {
			return hits[i].dist < hits[j].dist
		}
		return hits[i].id < hits[j].id
	})
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = fmt.Sprint(h.id)
	}
	return slices.Clip(ids)
}
