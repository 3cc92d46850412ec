package geo_test

import (
	"errors"
	"testing"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/geo"
	"github.com/omgdb/omgdb/query/value"
)

// FuzzGeo parses an arbitrary stored value and an arbitrary query operand:
// neither may panic, errors are *errs.Error, and whenever the value
// matches the region, or lies within a $near's distance, one of its index
// keys is in the ranges an index scan reads (so an index can never lose a
// match). The seed corpus is in testdata/fuzz/FuzzGeo.
func FuzzGeo(f *testing.F) {
	f.Add([]byte(`{"type":"Point","coordinates":[40,5]}`), []byte(`{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[40,5],[40,6],[41,6],[41,5],[40,5]]]}}}`))
	f.Add([]byte(`[[1,1],{"type":"LineString","coordinates":[[0,0],[2,2]]}]`), []byte(`{"$geoIntersects":{"$geometry":{"type":"LineString","coordinates":[[0,2],[2,0]]}}}`))
	f.Add([]byte(`{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}`), []byte(`{"$geoWithin":{"$centerSphere":[[0.5,0.5],0.02]}}`))
	f.Add([]byte(`{"lng":179.9,"lat":-0.1}`), []byte(`{"$geoWithin":{"$box":[[170,-10],[180,10]]}}`))
	f.Add([]byte(`[10,10]`), []byte(`{"$nearSphere":[10.001,10],"$maxDistance":0.001}`))
	f.Add([]byte(`{"type":"MultiPoint","coordinates":[[0,89.99],[180,-90]]}`), []byte(`{"$near":{"$geometry":{"type":"Point","coordinates":[0,90]},"$maxDistance":5000}}`))
	f.Fuzz(func(t *testing.T, stored, operand []byte) {
		v, err := value.Parse(stored)
		if err != nil {
			return
		}
		gs, err := geo.ParseStored(v)
		checkErr(t, err)
		keys, kerr := geo.IndexKeys(v)
		checkErr(t, kerr)
		op, err := value.Parse(operand)
		if err != nil || op.Kind() != value.Object || op.Len() == 0 {
			return
		}
		fl := op.Fields()[0]
		var ranges []geo.Range
		var match bool
		switch fl.Key {
		case "$geoWithin":
			r, err := geo.ParseWithin(fl.Key, fl.Value)
			checkErr(t, err)
			if err != nil {
				return
			}
			match, ranges = r.Match(gs), r.Cover()
		case "$geoIntersects":
			r, err := geo.ParseIntersects(fl.Value)
			checkErr(t, err)
			if err != nil {
				return
			}
			match, ranges = r.Match(gs), r.Cover()
		case "$near", "$nearSphere":
			n, err := geo.ParseNear(fl.Key, fl.Value, op)
			checkErr(t, err)
			if err != nil {
				return
			}
			match, ranges = n.Match(gs), n.Cover()
			if ranges == nil {
				return // the whole index is read
			}
		default:
			return
		}
		if !match || kerr != nil || len(keys) == 0 {
			return
		}
		for _, k := range keys {
			for _, r := range ranges {
				if k >= r.Lo && k <= r.Hi {
					return
				}
			}
		}
		t.Fatalf("%s matches %s, but none of its keys %v is in the ranges an index scan reads", stored, operand, keys)
	})
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	var e *errs.Error
	if err != nil && (!errors.As(err, &e) || e.Message == "") {
		t.Fatalf("error %T %q is not an *errs.Error with a message", err, err)
	}
}
