package shell_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/shell"
)

// TestShell_Types: mongosh's type constructors store the BSON types they
// name, a bare whole number in the int32 range is an int (mongosh's
// serialiser), and values read back keep their types when written again.
func TestShell_Types(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, "", "create", store)
	evalShell(t, store, `db.t.insertOne({_id: 1, n: 7, big: 5000000000, f: 1.5, i: NumberInt('12'), i2: Int32(3.9),
		l: NumberLong(5), d: Double(5), dec: Decimal128('0.10'), dec2: NumberDecimal('1E+3'),
		ts: Timestamp({t: 1700000000, i: 2}), ts2: Timestamp(5, 6), lo: MinKey(), hi: MaxKey(), re: /ab+c/gi, bre: BSONRegExp('a b', 'x')})`)
	want := `{"_id":1,"n":"int","big":"double","f":"double","i":"int","i2":"int","l":"long","d":"double","dec":"decimal","dec2":"decimal","ts":"timestamp","ts2":"timestamp","lo":"minKey","hi":"maxKey","re":"regex","bre":"regex"}`
	if got := runCLI(t, "", "aggregate", store, "t", `[{"$replaceWith":{"$arrayToObject":{"$map":{"input":{"$objectToArray":"$$ROOT"},"in":{"k":"$$this.k","v":{"$cond":[{"$eq":["$$this.k","_id"]},"$$this.v",{"$type":"$$this.v"}]}}}}}}]`); strings.TrimSpace(got) != want {
		t.Errorf("types stored:\n got %s\nwant %s", strings.TrimSpace(got), want)
	}
	dump := runCLI(t, "", "dump", store)
	for _, w := range []string{`"n":{"$numberInt":"7"}`, `"i":{"$numberInt":"12"}`, `"i2":{"$numberInt":"3"}`, `"dec":{"$numberDecimal":"0.10"}`,
		`"ts":{"$timestamp":{"t":1700000000,"i":2}}`, `"ts2":{"$timestamp":{"t":5,"i":6}}`, `"re":{"$regularExpression":{"pattern":"ab+c","options":"i"}}`,
		`"bre":{"$regularExpression":{"pattern":"a b","options":"x"}}`} {
		if !strings.Contains(dump, w) {
			t.Errorf("dump lacks %s:\n%s", w, dump)
		}
	}
	// Read back and written again, every type stays but two whole numbers:
	// the double 5 reads as a JavaScript number and is written back as an
	// int, as in mongosh; the long 5 too, because omgdb reads a long in the
	// int32 range as a number (mongosh gives a Long), so that arithmetic
	// and === work on the longs JSON input stores.
	evalShell(t, store, `var d = db.t.findOne({_id: 1}); d._id = 2; db.t.insertOne(d)`)
	want2 := strings.Replace(strings.Replace(want, `"_id":1`, `"_id":2`, 1), `"d":"double"`, `"d":"int"`, 1)
	want2 = strings.Replace(want2, `"l":"long"`, `"l":"int"`, 1)
	got2 := runCLI(t, "", "aggregate", store, "t", `[{"$match":{"_id":2}},{"$replaceWith":{"$arrayToObject":{"$map":{"input":{"$objectToArray":"$$ROOT"},"in":{"k":"$$this.k","v":{"$cond":[{"$eq":["$$this.k","_id"]},"$$this.v",{"$type":"$$this.v"}]}}}}}}]`)
	if strings.TrimSpace(got2) != want2 {
		t.Errorf("types after a round trip through JavaScript:\n got %s\nwant %s", strings.TrimSpace(got2), want2)
	}
}

// TestShell_RegexInIn: a regular expression literal inside $in matches as
// in MongoDB (it was refused when the shell turned regexes into
// {$regex, $options} documents).
func TestShell_RegexInIn(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, seed, "import", store, "users")
	got := evalShell(t, store, `db.users.find({name: {$in: [/^a/, 'grace']}}, {_id: 1}).forEach(d => print(d._id))`)
	if strings.Join(strings.Fields(got), ",") != "1,2,3" {
		t.Errorf("$in with a regex: got %q, want 1,2,3", got)
	}
	got = evalShell(t, store, `db.users.countDocuments({name: {$nin: [/^a/i, /^g/]}})`)
	if strings.TrimSpace(got) != "2" {
		t.Errorf("$nin with regexes: got %q, want 2", got)
	}
}

// TestShell_TypeErrors: bad arguments to the constructors are errors with
// hints, not silent values.
func TestShell_TypeErrors(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{`Decimal128('abc')`, `Decimal128("abc"): not a decimal number`},
		{`Int32.fromString('3000000000')`, `Int32.fromString("3000000000"): not a 32-bit integer`},
		{`Timestamp({t: -1, i: 0})`, `Timestamp: t must be a whole number from 0 to 4294967295, got -1`},
	} {
		err := evalShellErr(t, "", tc.code)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.code, err, tc.want)
		}
	}
}

// evalShellErr runs code without a store and returns its error.
func evalShellErr(t *testing.T, store, code string) error {
	t.Helper()
	var out bytes.Buffer
	sh := shell.New(&shell.Options{Store: store, Out: &out, Err: &out})
	return sh.Eval(context.Background(), "test", code)
}

// TestShell_WriteCollationRefused: a collation given to a write method is
// refused before anything is written, never ignored (the write would
// otherwise match with the collection's default collation).
func TestShell_WriteCollationRefused(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	if err := evalShellErr(t, store, `db.users.insertOne({_id: 1, name: 'Ada'})`); err != nil {
		t.Fatal(err)
	}
	coll := `{collation: {locale: 'en', strength: 2}}`
	for _, code := range []string{
		`db.users.updateOne({name: 'ADA'}, {$set: {x: 1}}, ` + coll + `)`,
		`db.users.updateMany({name: 'ADA'}, {$set: {x: 1}}, ` + coll + `)`,
		`db.users.replaceOne({name: 'ADA'}, {x: 1}, ` + coll + `)`,
		`db.users.deleteOne({name: 'ADA'}, ` + coll + `)`,
		`db.users.deleteMany({name: 'ADA'}, ` + coll + `)`,
		`db.users.findOneAndUpdate({name: 'ADA'}, {$set: {x: 1}}, ` + coll + `)`,
		`db.users.findOneAndReplace({name: 'ADA'}, {x: 1}, ` + coll + `)`,
		`db.users.findOneAndDelete({name: 'ADA'}, ` + coll + `)`,
		`db.users.bulkWrite([{deleteOne: {filter: {name: 'ADA'}, collation: {locale: 'en'}}}])`,
	} {
		err := evalShellErr(t, store, code)
		if err == nil || !strings.Contains(err.Error(), "collation") {
			t.Errorf("%s: %v, want a collation refused", code, err)
		}
	}
	var out bytes.Buffer
	sh := shell.New(&shell.Options{Store: store, Out: &out, Err: &out})
	if err := sh.Eval(context.Background(), "test", `printjson(db.users.find().toArray())`); err != nil || !strings.Contains(out.String(), "Ada") || strings.Contains(out.String(), "x") {
		t.Fatalf("after the refused writes: %v\n%s", err, out.String())
	}
}

// TestShell_IndexOptionsChecked: an index option omgdb does not build is
// refused, never dropped (mongosh's createIndex options,
// as in jstests/core/index/index_partial_create_drop.js, which creates
// partial indexes omgdb does not build).
func TestShell_IndexOptionsChecked(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	if err := evalShellErr(t, store, `db.users.insertOne({_id: 1, age: 30})`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ code, want string }{
		{`db.users.createIndex({age: 1}, {collation: {locale: 'en'}})`, "does not take a collation"},
		{`db.users.createIndex({age: 1}, {partialFilterExpression: {age: {$gt: 5}}})`, "unknown option partialFilterExpression"},
		{`db.users.createIndex({age: 1}, {expireAfterSeconds: 60})`, "unknown option expireAfterSeconds"},
		{`db.users.createIndex({age: 1}, {uniqe: true})`, "did you mean `unique`?"},
		{`db.users.createIndex({age: 1}, {unique: 'yes'})`, "unique must be true or false"},
		{`db.users.createIndex({age: 1}, {name: 5})`, "name must be a string"},
		{`db.users.createIndexes([{age: 1}], {sparse: 1})`, "sparse must be true or false"},
	} {
		err := evalShellErr(t, store, tc.code)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.code, err, tc.want)
		}
	}
	var out bytes.Buffer
	sh := shell.New(&shell.Options{Store: store, Out: &out, Err: &out})
	if err := sh.Eval(context.Background(), "test", `db.users.createIndex({age: 1}, {background: true, unique: true}); printjson(db.users.getIndexes().map(i => i.name))`); err != nil ||
		!strings.Contains(out.String(), "[ '_id_', 'age_1' ]") {
		t.Fatalf("background and unique: %v\n%s", err, out.String())
	}
}
