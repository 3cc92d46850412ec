package query

import (
	"slices"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// seedEquality is one field that a filter fixes by equality.
type seedEquality struct {
	path  string
	value value.Value
}

// UpsertSeed returns the document an upsert starts from when filter
// matches no document, following MongoDB: the fields the filter fixes by
// equality ({"a": 1}, {"a": {"$eq": 1}}, {"a.b": 1} which makes
// {"a": {"b": 1}}, a single-value $in or $all, and those inside $and or a
// one-clause $or), set in the order of their paths, _id first. Other
// conditions ($gt, $elemMatch, …) add nothing. The update is then applied
// to the seed with ApplyContext.Insert set; a replacement keeps only its
// _id. UpsertSeed never invents an _id: the store does when none is set.
// Two conditions on one path, or on a path and a path inside it, are an
// error, as in MongoDB.
func UpsertSeed(filter value.Value) (value.Value, error) {
	if filter.IsMissing() {
		return value.ObjectValue(nil), nil
	}
	if filter.Kind() != value.Object {
		return value.Value{}, errs.Errorf(errs.Invalid, "malformed query: filter must be an object, got %s", filter.TypeName())
	}
	var eqs []seedEquality
	collectEqualities(filter, &eqs)
	slices.SortStableFunc(eqs, func(a, b seedEquality) int { return strings.Compare(a.path, b.path) })
	if err := checkSeedConflicts(eqs); err != nil {
		return value.Value{}, err
	}
	return buildSeed(eqs)
}

// collectEqualities appends the equality conditions of a filter document.
func collectEqualities(filter value.Value, eqs *[]seedEquality) {
	for _, f := range filter.Fields() {
		switch {
		case f.Key == "$and":
			for _, e := range f.Value.Array() {
				collectEqualities(e, eqs)
			}
		case f.Key == "$or":
			if f.Value.Len() == 1 {
				collectEqualities(f.Value.Index(0), eqs)
			}
		case strings.HasPrefix(f.Key, "$"):
		default:
			collectFieldEqualities(f.Key, f.Value, eqs)
		}
	}
}

// collectFieldEqualities appends the equalities of one field's condition.
func collectFieldEqualities(path string, cond value.Value, eqs *[]seedEquality) {
	fs := cond.Fields()
	if len(fs) == 0 || !strings.HasPrefix(fs[0].Key, "$") {
		*eqs = append(*eqs, seedEquality{path, cond})
		return
	}
	for _, op := range fs {
		switch op.Key {
		case "$eq":
			*eqs = append(*eqs, seedEquality{path, op.Value})
		case "$in":
			if op.Value.Len() == 1 {
				*eqs = append(*eqs, seedEquality{path, op.Value.Index(0)})
			}
		case "$all":
			for _, e := range op.Value.Array() {
				if e.Get("$elemMatch").IsMissing() {
					*eqs = append(*eqs, seedEquality{path, e})
				}
			}
		}
	}
}

// checkSeedConflicts refuses a path fixed twice, or fixed together with a
// path inside it. eqs is sorted by path.
func checkSeedConflicts(eqs []seedEquality) error {
	for i, a := range eqs {
		for _, b := range eqs[i+1:] {
			switch {
			case a.path == b.path:
				return errs.Errorf(errs.Invalid, "cannot infer query fields to set, path '%s' is matched twice", a.path).
					WithHint("an upsert copies the filter's equality conditions into the new document; give each field one value")
			case strings.HasPrefix(b.path, a.path+"."):
				return errs.Errorf(errs.Invalid, "cannot infer query fields to set, both paths '%s' and '%s' are matched", b.path, a.path).
					WithHint("an upsert copies the filter's equality conditions into the new document; fix either '%s' or '%s'", a.path, b.path)
			}
		}
	}
	return nil
}

// buildSeed sets each equality's value at its path in a new document.
func buildSeed(eqs []seedEquality) (value.Value, error) {
	doc := value.ObjectValue(nil)
	for _, e := range eqs {
		path := strings.Split(e.path, ".")
		for _, comp := range path {
			if err := checkUpdateKey(comp, e.path); err != nil {
				return value.Value{}, err
			}
		}
		if err := checkUpdateValue(e.value, e.path); err != nil {
			return value.Value{}, err
		}
		s := &step{leaf: setLeaf{e.value}, path: path}
		next, _, err := s.walk(doc, 0)
		if err != nil {
			return value.Value{}, err
		}
		doc = next
	}
	if err := checkUpdatedDoc(doc, true); err != nil {
		return value.Value{}, err
	}
	return doc.IDFirst(), nil
}

// UpsertDocument returns the document an update upserts when filter
// matches nothing: UpsertSeed, then u applied with ApplyContext.Insert at
// time now, with a new ObjectId _id when neither sets one, prepared for
// storage (value.PrepareDocument).
func UpsertDocument(u *Update, filter value.Value, now time.Time) (value.Value, error) {
	seed, err := UpsertSeed(filter)
	if err != nil {
		return value.Value{}, err
	}
	doc, _, err := u.Apply(seed, ApplyContext{Now: now, Insert: true, Query: filter})
	if err != nil {
		return value.Value{}, err
	}
	if doc.Get("_id").IsMissing() {
		doc = value.ObjectValue(append([]value.Field{{Key: "_id", Value: value.ObjectIDValue(value.NewOID())}}, doc.Fields()...))
	}
	return value.PrepareDocument(doc)
}

// DocumentError names the document of coll an update failed on, keeping
// err's kind and hint (by default: fix the update and plan again).
func DocumentError(coll string, id value.Value, err error) error {
	e := errs.Errorf(errs.KindOf(err), "update of _id %s in `%s`: %v", id, coll, err)
	e.Err, e.Hint = err, errs.HintOf(err)
	if e.Hint == "" {
		e.Hint = "nothing was planned; fix the update (or narrow the filter) and plan again"
	}
	return e
}
