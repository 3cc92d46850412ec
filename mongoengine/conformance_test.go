package mongoengine

import (
	"context"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/enginetest"
	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query/value"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// ferretUnsupported are the conformance cases the test server (FerretDB
// v1.24.2 on SQLite) cannot run, with the reason.
var ferretUnsupported = map[string]string{
	"collections":                  "the test server cannot store three of the fixtures (decimals, nested, bounds)",
	"indexes":                      "FerretDB v1.24.2 drops the sparse option of an index (listIndexes has no \"sparse\")",
	"type_long_or_string_code":     "FerretDB v1.24.2 refuses numeric type codes in a $type array (\"Invalid numerical type code\")",
	"dotted_ne_null":               "FerretDB v1.24.2 treats arrays of scalars and empty arrays on a dotted path differently from MongoDB 8.x",
	"dotted_eq_null_objects":       "FerretDB v1.24.2 does not count an element without the field as null on a dotted path through an array",
	"elemmatch_one_element":        "FerretDB v1.24.2 refuses field conditions inside $elemMatch (\"unknown operator\")",
	"aggregate_project_field_path": "FerretDB v1.24.2's $project returns a field path as the literal string",
	"aggregate_avg":                "FerretDB v1.24.2 has no $avg accumulator (NotImplemented)",
	"aggregate_lookup":             "FerretDB v1.24.2 has no $lookup stage (NotImplemented)",
	"nested_array_whole_value":     noNested,
	"nested_empty_array_element":   noNested,
	"nested_elemmatch_array":       noNested,
	"type_decimal":                 noDecimal,
	"decimal_gt_long":              noDecimal,
	"decimal_equals_double":        noDecimal,
	"sort_decimals_among_numbers":  noDecimal,
	"sort_minkey_maxkey":           noMinMax,
	"gt_minkey":                    noMinMax,
}

// ferretNoLoad are the fixtures the test server refuses to store.
var ferretNoLoad = map[string]string{"nested": noNested, "decimals": noDecimal, "bounds": noMinMax}

const noDecimal = "FerretDB v1.24.2 has no decimal128 (its handler panics on one and drops the connection)"

const noMinMax = "FerretDB v1.24.2 has no MinKey or MaxKey (its wire decoder refuses the message and drops the connection)"

const noNested = "FerretDB v1.24.2 refuses to store nested arrays (\"nested arrays are not supported\")"

// TestDB_Conformance runs the conformance suite against the MongoDB
// engine on the embedded FerretDB.
func TestDB_Conformance(t *testing.T) {
	enginetest.Run(t, openFerret, ferretUnsupported)
}

// openFerret loads the fixtures into a database of its own on the test
// server, through the same value-to-BSON conversion the engine sends
// queries with, and opens the engine on it.
func openFerret(t *testing.T, fixtures []enginetest.Fixture) engine.Reader {
	_, uri := mongotest.Start(t)
	target, err := Resolve(uri, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	client := mongotest.Client(t, uri)
	for _, fx := range fixtures {
		if why, ok := ferretNoLoad[fx.Name]; ok {
			t.Logf("fixture %s not loaded: %s", fx.Name, why)
			continue
		}
		loadFixture(t, client.Database(target.DB).Collection(fx.Name), fx)
	}
	d, err := Open(context.Background(), target, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func loadFixture(t *testing.T, c *mongo.Collection, fx enginetest.Fixture) {
	ctx := context.Background()
	var docs []any
	for _, js := range fx.Docs {
		d, err := docToBSON(value.MustParse(js))
		if err != nil {
			t.Fatalf("fixture %s: %v", js, err)
		}
		docs = append(docs, d)
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatalf("insert fixture %s: %v", fx.Name, err)
	}
	for _, ix := range fx.Indexes {
		key, err := docToBSON(value.MustParse(ix.Key))
		if err != nil {
			t.Fatal(err)
		}
		opts := options.Index()
		if ix.Unique {
			opts.SetUnique(true)
		}
		if ix.Sparse {
			opts.SetSparse(true)
		}
		if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: key, Options: opts}); err != nil {
			t.Fatalf("create index %s on %s: %v", ix.Key, fx.Name, err)
		}
	}
}

// TestRedacting_Conformance runs the redaction suite against the MongoDB
// engine on the embedded FerretDB: the $unset, $match, … pipelines run
// in the server.
func TestRedacting_Conformance(t *testing.T) {
	enginetest.RunRedacting(t, openFerret, nil)
}

// TestDB_Distinct_Deadline: a distinct under a deadline (as every MCP
// call has) runs on a server that refuses maxTimeMS on distinct, and
// still gives its values.
func TestDB_Distinct_Deadline(t *testing.T) {
	d := openFerret(t, enginetest.RedactFixtures)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	vals, err := d.Distinct(ctx, "visits", "ward", value.MissingValue)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != 2 || vals[0].Str() != "A" || vals[1].Str() != "B" {
		t.Fatalf("distinct ward = %v, want [A B]", vals)
	}
}
