package query

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Update is a compiled MongoDB update: either update operators
// ({"$set":{…},"$inc":{…}}) or a replacement document (no '$' keys).
// CompileUpdate validates it once; Apply then runs it on any number of
// documents. An Update is immutable and safe for concurrent use.
type Update struct {
	spec        value.Value
	replacement value.Value // the replacement document, when isReplace
	isReplace   bool
	ops         []*fieldOp         // in the order written
	filters     map[string]*Filter // arrayFilters, by identifier
	dynamic     bool               // some path holds $, $[] or $[<identifier>]
	// pipe runs a pipeline-style update (NewPipelineUpdate).
	pipe func(ctx context.Context, doc value.Value, now time.Time) (value.Value, error)
}

// NewPipelineUpdate returns the Update of a pipeline-style update: spec is
// the array of stages ($set/$addFields, $unset, $project,
// $replaceRoot/$replaceWith) and run applies them to one document with
// $$NOW set to now, stopping when ctx is done. Package agg compiles run (agg.CompileUpdatePipeline),
// which this package cannot import; changes.CompileUpdate puts the two
// together. Apply keeps the document's _id: a result without one gets it
// back, first; a result with another fails.
func NewPipelineUpdate(spec value.Value, run func(ctx context.Context, doc value.Value, now time.Time) (value.Value, error)) *Update {
	return &Update{spec: spec, pipe: run}
}

// UpdateOptions are the options of CompileUpdate. A nil *UpdateOptions
// means the zero value.
type UpdateOptions struct {
	// ArrayFilters are the filters that $[<identifier>] path components
	// select array elements with, one per identifier. Each is a filter
	// document whose fields all start with the identifier, such as
	// {"x.score":{"$gte":8}} for $[x]; an identifier starts with a
	// lowercase letter and is alphanumeric. Every identifier used in the
	// update needs a filter and every filter must be used. Default: none.
	ArrayFilters []value.Value
}

// ApplyContext is what Apply needs to know besides the document.
type ApplyContext struct {
	// Now is the time $currentDate writes (to the millisecond). The zero
	// Time means time.Now() at the call.
	Now time.Time
	// Insert is true when the document is a new one made by an upsert
	// (see UpsertSeed). $setOnInsert applies only then. Default: false.
	Insert bool
	// Query is the filter that selected the document. The positional $
	// operator uses it to find the first array element it matched. The
	// zero Value means no query (a $ path then fails).
	Query value.Value
	// Context, when not nil, bounds the update's work on the document: a
	// pipeline-style update's expressions, and the filters of $pull,
	// arrayFilters and the positional $ (a $regex over a long string, a
	// costly $expr) stop when it is done, and Apply returns its error.
	// Default: nil, never done.
	Context context.Context
}

// IsReplacement reports whether the update is a replacement document
// rather than update operators.
func (u *Update) IsReplacement() bool { return u.isReplace }

// Apply runs the update on doc and returns the new document, and whether
// it differs from doc byte for byte (what plans count as "modified").
// doc is not modified: the result shares unchanged parts with it. Errors
// are *Error values of kind Invalid (kind Limit for a result nested too
// deeply); on error the document is returned unchanged.
func (u *Update) Apply(doc value.Value, ctx ApplyContext) (value.Value, bool, error) {
	if doc.Kind() != value.Object {
		return doc, false, errs.Errorf(errs.Invalid, "cannot update a value of type %s: documents are objects", doc.TypeName())
	}
	if u.isReplace {
		return u.replace(doc)
	}
	if u.pipe != nil {
		return u.applyPipeline(doc, ctx)
	}
	ap := newApplier(u, doc, ctx)
	steps, err := ap.plan()
	if err != nil {
		return doc, false, err
	}
	out, changed := doc, false
	for _, s := range steps {
		next, ch, err := s.run(out)
		if err != nil {
			return doc, false, err
		}
		if !ch {
			continue
		}
		if err := ap.checkID(s); err != nil {
			return doc, false, err
		}
		out, changed = next, true
	}
	if !changed {
		return doc, false, nil
	}
	if out, err = ap.finish(out); err != nil {
		return doc, false, err
	}
	return out, true, nil
}

// applyPipeline runs a pipeline-style update.
func (u *Update) applyPipeline(doc value.Value, ctx ApplyContext) (value.Value, bool, error) {
	now := ctx.Now
	if now.IsZero() {
		now = time.Now()
	}
	out, err := u.pipe(ctx.Context, doc, now)
	if err != nil {
		return doc, false, err
	}
	if out.Kind() != value.Object {
		return doc, false, errs.Errorf(errs.Invalid, "the update pipeline made a %s, not a document", out.TypeName())
	}
	id, oid := doc.Get("_id"), out.Get("_id")
	switch {
	case oid.IsMissing() && !id.IsMissing():
		out = value.ObjectValue(append([]value.Field{{Key: "_id", Value: id}}, out.Fields()...))
	case !id.IsMissing() && (value.Compare(id, oid) != 0 || id.Kind() != oid.Kind()):
		return doc, false, errs.Errorf(errs.Invalid, "Performing an update on the path '_id' would modify the immutable field '_id'").
			WithHint("an update pipeline may not change _id; leave it out of $set, $project and $replaceWith")
	}
	if bytes.Equal(value.JSON(out), value.JSON(doc)) {
		return doc, false, nil
	}
	return out, true, nil
}

// replace applies a replacement document: its fields replace doc's, and
// doc's _id is kept (first). A replacement may repeat the _id (an equal
// value keeps the stored one) but not change it.
func (u *Update) replace(doc value.Value) (value.Value, bool, error) {
	id, rid := doc.Get("_id"), u.replacement.Get("_id")
	out := u.replacement
	switch {
	case id.IsMissing():
		out = out.IDFirst()
	case rid.IsMissing():
		out = value.ObjectValue(append([]value.Field{{Key: "_id", Value: id}}, out.Fields()...))
	case value.Equal(id, rid):
		out = out.With("_id", id).IDFirst()
	default:
		return doc, false, errs.Errorf(errs.Invalid, "After applying the update, the (immutable) field '_id' was found to have been altered to %s",
			mongoElem("_id", rid)).WithHint("the _id of a document cannot change; insert a new document and delete the old one instead")
	}
	if err := checkUpdatedDoc(out, id.IsMissing()); err != nil {
		return doc, false, err
	}
	if value.SameCanonical(doc, out) {
		return doc, false, nil
	}
	return out, true, nil
}

// applier holds the state of one Apply call.
type applier struct {
	u   *Update
	doc value.Value // the input document
	ctx ApplyContext
	id  value.Value // doc's _id, or missing
	now value.Value // the date $currentDate writes
}

func newApplier(u *Update, doc value.Value, ctx ApplyContext) *applier {
	now := ctx.Now
	if now.IsZero() {
		now = time.Now()
	}
	return &applier{u: u, doc: doc, ctx: ctx, id: doc.Get("_id"), now: value.DateValue(now.UnixMilli())}
}

// idElem renders the document's _id the way MongoDB's messages do
// ("_id: 1"), or "" when the document has none.
func (ap *applier) idElem() string {
	if ap.id.IsMissing() {
		return ""
	}
	return mongoElem("_id", ap.id)
}

// checkID refuses a step that changed the _id of a document that has one.
func (ap *applier) checkID(s *step) error {
	if ap.id.IsMissing() {
		return nil
	}
	for _, p := range [][]string{s.path, s.from} {
		if len(p) > 0 && p[0] == "_id" {
			return errs.Errorf(errs.Invalid, "Performing an update on the path '%s' would modify the immutable field '_id'", dottedPath(p)).
				WithHint("the _id of a document cannot change; insert a new document and delete the old one instead")
		}
	}
	return nil
}

// finish checks the updated document and moves an _id that the update
// created to the front.
func (ap *applier) finish(out value.Value) (value.Value, error) {
	if ap.id.IsMissing() {
		out = out.IDFirst()
	}
	return out, checkUpdatedDoc(out, ap.id.IsMissing())
}

// checkUpdatedDoc enforces what a stored document must satisfy: an _id that
// is not an array, and nesting of at most MaxDepth.
func checkUpdatedDoc(out value.Value, newID bool) error {
	if newID && out.Get("_id").IsArray() {
		return errs.Errorf(errs.Invalid, "The '_id' value cannot be of type array").
			WithHint("use a scalar or an object as _id")
	}
	if nestingDepth(out) > value.MaxDepth {
		return errs.Errorf(errs.Limit, "the updated document would be nested deeper than %d levels", value.MaxDepth).
			WithHint("flatten the document; omgdb accepts at most %d nested objects and arrays", value.MaxDepth)
	}
	return nil
}

// nestingDepth returns the nesting of objects and arrays in v (0 for a scalar).
func nestingDepth(v value.Value) int {
	d := 0
	switch v.Kind() {
	case value.Object:
		for _, f := range v.Fields() {
			d = max(d, nestingDepth(f.Value))
		}
	case value.Array:
		for _, e := range v.Array() {
			d = max(d, nestingDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// dottedPath joins path components with '.'.
func dottedPath(path []string) string { return strings.Join(path, ".") }

// Paths returns, for an update of operators, the paths it may write: each
// operator's target (both paths of a $rename), cut before the first
// component that may stand for array elements (a positional $, $[],
// $[<identifier>], or a number, which is an index when the field holds an
// array). A document it changes differs from the one it started from only
// at those paths and below them. A replacement or a pipeline may change
// any field: its Paths is nil.
func (u *Update) Paths() []string {
	if u.isReplace || u.pipe != nil {
		return nil
	}
	var paths []string
	add := func(path []string) {
		n := 0
		for n < len(path) && !strings.HasPrefix(path[n], "$") && !isArrayIndex(path[n]) {
			n++
		}
		paths = append(paths, strings.Join(path[:n], "."))
	}
	for _, op := range u.ops {
		add(op.path)
		if op.from != nil {
			add(op.from)
		}
	}
	return paths
}

// isArrayIndex reports whether a path component is a number, which
// addresses an element when the field holds an array.
func isArrayIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// PathsOverlap reports whether a path of a and a path of b are equal or
// one is inside the other ("a" and "a.b" overlap; "a.b" and "a.c" do not).
func PathsOverlap(a, b []string) bool {
	for _, p := range a {
		for _, q := range b {
			if p == q || p == "" || q == "" ||
				strings.HasPrefix(q, p) && q[len(p)] == '.' ||
				strings.HasPrefix(p, q) && p[len(q)] == '.' {
				return true
			}
		}
	}
	return false
}
