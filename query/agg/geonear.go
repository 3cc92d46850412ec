package agg

import (
	"math"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/expr"
	"github.com/omgdb/omgdb/query/geo"
	"github.com/omgdb/omgdb/query/value"
)

// GeoNear is a $geoNear stage: the documents nearest a point first, each
// with its distance. Only a store can run it, through a 2dsphere index,
// so it must be the first stage of the pipeline (Pipeline.GeoNear).
type GeoNear struct {
	Near               *geo.Near
	NearValue          value.Value   // the "near" option as written
	Query              *query.Filter // nil: every document
	QueryValue         value.Value
	DistanceField      []string // path of the field the distance is written to
	IncludeLocs        []string // path of the field the location is written to, or nil
	DistanceMultiplier float64
	Key                string // the 2dsphere field; "" lets the store find it
}

type geoNearStage struct{ g *GeoNear }

func compileGeoNearStage(_ *expr.Compiler, spec value.Value, where pipeWhere) (stage, error) {
	if where != pipeTop {
		return nil, errs.Errorf(errs.Invalid, "$geoNear is only valid as the first stage of the top-level pipeline, not inside $facet, $lookup or $unionWith")
	}
	g, err := ParseGeoNear(spec)
	if err != nil {
		return nil, err
	}
	return &geoNearStage{g}, nil
}

// ParseGeoNear reads the options of a $geoNear stage.
func ParseGeoNear(spec value.Value) (*GeoNear, error) {
	if spec.Kind() != value.Object {
		return nil, geoNearErr("its argument must be an object, got %s", spec.TypeName())
	}
	g := &GeoNear{DistanceMultiplier: 1}
	spherical, min, max := false, 0.0, math.Inf(1)
	for _, f := range spec.Fields() {
		var err error
		switch f.Key {
		case "near":
			g.NearValue = f.Value
		case "distanceField":
			g.DistanceField, err = geoNearPath(f.Key, f.Value)
		case "includeLocs":
			g.IncludeLocs, err = geoNearPath(f.Key, f.Value)
		case "spherical":
			if f.Value.Kind() != value.Bool {
				err = geoNearErr("spherical must be true or false, got %s", f.Value)
			}
			spherical = f.Value.Bool()
		case "maxDistance", "minDistance":
			d, ok := geoNearNumber(f.Value)
			if !ok {
				err = geoNearErr("%s must be a nonnegative number, got %s", f.Key, f.Value)
			} else if f.Key == "maxDistance" {
				max = d
			} else {
				min = d
			}
		case "distanceMultiplier":
			d, ok := geoNearNumber(f.Value)
			if !ok {
				err = geoNearErr("distanceMultiplier must be a nonnegative number, got %s", f.Value)
			}
			g.DistanceMultiplier = d
		case "query":
			g.QueryValue = f.Value
			g.Query, err = geoNearQuery(f.Value)
		case "key":
			if f.Value.Kind() != value.String || f.Value.Str() == "" {
				err = geoNearErr("key must be a nonempty field path string, got %s", f.Value)
			}
			g.Key = f.Value.Str()
		case "num", "limit":
			err = geoNearErr("the %s option was removed in MongoDB 4.2", f.Key).
				WithHint(`follow $geoNear with {"$limit": n}`)
		default:
			err = geoNearErr("unknown option %q", f.Key).
				WithHint("the options are near, distanceField, spherical, maxDistance, minDistance, query, includeLocs, distanceMultiplier and key")
		}
		if err != nil {
			return nil, err
		}
	}
	if g.NearValue.IsMissing() {
		return nil, geoNearErr("the near option is required").WithHint(`write "near":{"type":"Point","coordinates":[lng,lat]}`)
	}
	if g.DistanceField == nil {
		return nil, geoNearErr("the distanceField option is required").WithHint(`write "distanceField":"dist"`)
	}
	n, err := geo.NewNear(g.NearValue, spherical, min, max)
	if err != nil {
		return nil, err
	}
	g.Near = n
	return g, nil
}

// geoNearErr is a malformed $geoNear stage; the hint points at the
// options' reference unless the caller gives a closer one.
func geoNearErr(format string, args ...any) *errs.Error {
	return errs.Errorf(errs.Invalid, "$geoNear: "+format, args...).
		WithHint("see `omgdb docs aggregation` ($geoNear) for its options")
}

func geoNearNumber(v value.Value) (float64, bool) {
	if !v.IsNumber() {
		return 0, false
	}
	d := v.Float()
	return d, d >= 0 && !math.IsNaN(d)
}

func geoNearPath(opt string, v value.Value) ([]string, error) {
	if v.Kind() != value.String || v.Str() == "" || strings.HasPrefix(v.Str(), "$") {
		return nil, geoNearErr("%s must be a field path string without '$', got %s", opt, v)
	}
	return strings.Split(v.Str(), "."), nil
}

func geoNearQuery(v value.Value) (*query.Filter, error) {
	if v.Kind() != value.Object {
		return nil, geoNearErr("query must be a filter object, got %s", v.TypeName())
	}
	f, err := query.CompileFilter(v)
	if err != nil {
		return nil, err
	}
	if _, n := f.Near(); n != nil {
		return nil, geoNearErr("query may not contain $near or $nearSphere")
	}
	return f, nil
}

// Output returns doc with the distance (times DistanceMultiplier) and,
// with includeLocs, the location written in.
func (g *GeoNear) Output(doc value.Value, dist float64, loc value.Value) value.Value {
	doc = value.SetPath(doc, g.DistanceField, value.DoubleValue(dist*g.DistanceMultiplier))
	if g.IncludeLocs != nil {
		doc = value.SetPath(doc, g.IncludeLocs, loc)
	}
	return doc
}

// GeoNear returns the pipeline's leading $geoNear and the pipeline after
// it, or nil when the pipeline does not start with one.
func (p *Pipeline) GeoNear() (*GeoNear, *Pipeline) {
	if len(p.stages) == 0 {
		return nil, nil
	}
	if s, ok := p.stages[0].(*geoNearStage); ok {
		return s.g, p.rest(1)
	}
	return nil, nil
}

func (s *geoNearStage) run(_ *runState, in Source) Source {
	return errSource(in, errs.Errorf(errs.Invalid, "$geoNear must read a collection with a 2dsphere index, as the first stage of the pipeline"))
}
