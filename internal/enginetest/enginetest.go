package enginetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Op is the read a case runs.
type Op int

// The reads of engine.Reader.
const (
	Find Op = iota
	Count
	Distinct
	Aggregate
	Indexes
	Collections
)

// Fixture is a collection to load before the cases run.
type Fixture struct {
	Name    string
	Docs    []string // Extended JSON, in insertion order
	Indexes []Index
}

// Index is an index a fixture creates.
type Index struct {
	Key            string // the key pattern, {"a":1,"b":-1}
	Unique, Sparse bool
}

// Case is one read and its exact result.
type Case struct {
	Name string
	From string // the jstests file or manual page the case comes from
	Op   Op
	Coll string
	// Find and Count (Filter also for Distinct), as JSON; "" leaves it out.
	Filter, Project, Sort string
	Skip, Limit           int64
	Field                 string // Distinct
	Pipeline              string // Aggregate
	// Want is the result, each value as Extended JSON: the documents of
	// Find and Aggregate, the one count of Count ({"$numberLong":…}),
	// the values of Distinct, the names of Collections, and for Indexes
	// {"name","key","unique","sparse"} per index.
	Want []string
	// Err, when not empty, is a text the error must contain, with the
	// kind ErrKind; Want is then ignored.
	Err     string
	ErrKind errs.Kind
}

// Open loads the fixtures into a new, empty store of an engine and
// returns its Reader; the test's cleanup closes it.
type Open func(t *testing.T, fixtures []Fixture) engine.Reader

// Run runs every case of Cases against the engine that open makes.
// unsupported maps a case's name to why the engine cannot run it.
func Run(t *testing.T, open Open, unsupported map[string]string) {
	runCases(t, open(t, Fixtures), Cases, unsupported)
}

// runCases runs cases against r, skipping the unsupported ones (and
// failing one that starts to pass).
func runCases(t *testing.T, r engine.Reader, cases []Case, unsupported map[string]string) {
	for name := range unsupported {
		if !slices.ContainsFunc(cases, func(c Case) bool { return c.Name == name }) {
			t.Errorf("unsupported names case %q, which does not exist", name)
		}
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			problem := check(r, &c)
			why, known := unsupported[c.Name]
			switch {
			case known && problem == "":
				t.Errorf("case passes on this engine, but is declared unsupported (%s): remove it from the list", why)
			case known:
				t.Skipf("unsupported on this engine: %s (from %s); what happens: %s", why, c.From, problem)
			case problem != "":
				t.Errorf("%s (case from %s)", problem, c.From)
			}
		})
	}
}

// check runs c and returns what is wrong with its result, or "".
func check(r engine.Reader, c *Case) string {
	got, err := run(context.Background(), r, c)
	if c.Err != "" {
		if err == nil {
			return fmt.Sprintf("no error, want one containing %q; got %s", c.Err, strings.Join(got, " "))
		}
		if !strings.Contains(err.Error(), c.Err) || errs.KindOf(err) != c.ErrKind {
			return fmt.Sprintf("error %q (%s), want one containing %q (%s)", err, errs.KindOf(err), c.Err, c.ErrKind)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("error: %v", err)
	}
	want := make([]string, len(c.Want))
	for i, w := range c.Want {
		v, err := value.ParseString(w)
		if err != nil {
			return fmt.Sprintf("the case's want %s: %v", w, err)
		}
		want[i] = canonical(v)
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("got %d values\n\t%s\nwant %d\n\t%s", len(got), strings.Join(got, "\n\t"), len(want), strings.Join(want, "\n\t"))
	}
	return ""
}

// run runs the case's read and returns its values as canonical Extended
// JSON.
func run(ctx context.Context, r engine.Reader, c *Case) ([]string, error) {
	var out []string
	add := func(v value.Value) error {
		out = append(out, canonical(v))
		return nil
	}
	switch c.Op {
	case Find:
		q := &engine.Find{Filter: spec(c.Filter), Projection: spec(c.Project), Sort: spec(c.Sort), Skip: c.Skip, Limit: c.Limit}
		return out, r.Find(ctx, c.Coll, q, add)
	case Count:
		n, err := r.Count(ctx, c.Coll, spec(c.Filter))
		return []string{canonical(value.LongValue(n))}, err
	case Distinct:
		vals, err := r.Distinct(ctx, c.Coll, c.Field, spec(c.Filter))
		for _, v := range vals {
			add(v)
		}
		return out, err
	case Aggregate:
		return out, r.Aggregate(ctx, c.Coll, spec(c.Pipeline), add)
	case Indexes:
		ixs, err := r.Indexes(ctx, c.Coll)
		for _, ix := range ixs {
			add(value.ObjectValue([]value.Field{{Key: "name", Value: value.StringValue(ix.Name)}, {Key: "key", Value: ix.Key},
				{Key: "unique", Value: value.BoolValue(ix.Unique)}, {Key: "sparse", Value: value.BoolValue(ix.Sparse)}}))
		}
		return out, err
	case Collections:
		names, err := r.Collections(ctx)
		for _, n := range names {
			add(value.StringValue(n))
		}
		return out, err
	}
	return nil, fmt.Errorf("unknown op %d", c.Op)
}

// spec parses a case's JSON argument; "" is Missing. A case's JSON is
// the test's own, so a parse error is a bug of the table: panic.
func spec(js string) value.Value {
	if js == "" {
		return value.Value{}
	}
	return value.MustParse(js)
}

func canonical(v value.Value) string { return string(value.AppendEJSON(nil, v, value.EJSONCanonical)) }
