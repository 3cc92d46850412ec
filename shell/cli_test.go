package shell_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/shell"
)

// seed is loaded into the store of TestShell_SameAsCLI.
const seed = `{"_id":1,"name":"ada","age":36,"city":"London","tags":["math","poetry"]}
{"_id":2,"name":"alan","age":41,"city":"Wilmslow","tags":["math"]}
{"_id":3,"name":"grace","age":9007199254740993,"city":"New York","born":{"$date":-1990137600000}}
{"_id":4,"name":"edsger","age":72.5,"city":"Nuenen","score":null}
{"_id":5,"name":"barbara","city":null,"tags":[]}
`

// TestShell_SameAsCLI runs each read in the shell and as the equivalent
// CLI command on the same store and compares the documents.
func TestShell_SameAsCLI(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, seed, "import", store, "users")
	for _, tc := range []struct {
		shell string
		cli   []string
	}{
		{`db.users.find()`, []string{"find", store, "users"}},
		{`db.users.find({age: {$gt: 40}})`, []string{"find", store, "users", `{"age":{"$gt":40}}`}},
		{`db.users.find({}, {name: 1, _id: 0}).sort({name: -1})`, []string{"find", store, "users", "{}", "--project", `{"name":1,"_id":0}`, "--sort", `{"name":-1}`}},
		{`db.users.find().skip(1).limit(2)`, []string{"find", store, "users", "--skip", "1", "--limit", "2"}},
		{`db.users.find({tags: 'math'})`, []string{"find", store, "users", `{"tags":"math"}`}},
		{`db.users.find({city: null})`, []string{"find", store, "users", `{"city":null}`}},
		{`db.users.find({score: {$exists: true}})`, []string{"find", store, "users", `{"score":{"$exists":true}}`}},
		{`db.users.find({name: /^A/i})`, []string{"find", store, "users", `{"name":{"$regex":"^A","$options":"i"}}`}},
		{`db.users.find({age: NumberLong('9007199254740993')})`, []string{"find", store, "users", `{"age":{"$numberLong":"9007199254740993"}}`}},
		{`db.users.find({born: {$lt: ISODate('1950-01-01')}})`, []string{"find", store, "users", `{"born":{"$lt":{"$date":"1950-01-01T00:00:00Z"}}}`}},
		{`db.users.find({age: {$in: [36, 72.5]}})`, []string{"find", store, "users", `{"age":{"$in":[36,72.5]}}`}},
		{`db.users.find({tags: {$size: 0}})`, []string{"find", store, "users", `{"tags":{"$size":0}}`}},
		{`db.users.find().sort({age: 1})`, []string{"find", store, "users", "{}", "--sort", `{"age":1}`}},
		{`db.users.aggregate([{$group: {_id: null, n: {$sum: 1}, avg: {$avg: '$age'}}}])`, []string{"aggregate", store, "users", `[{"$group":{"_id":null,"n":{"$sum":1},"avg":{"$avg":"$age"}}}]`}},
		{`db.users.aggregate([{$unwind: '$tags'}, {$sortByCount: '$tags'}])`, []string{"aggregate", store, "users", `[{"$unwind":"$tags"},{"$sortByCount":"$tags"}]`}},
		{`db.users.countDocuments({age: {$gte: 36}})`, []string{"count", store, "users", `{"age":{"$gte":36}}`}},
		{`db.users.countDocuments()`, []string{"count", store, "users"}},
		{`db.users.find({'tags.0': 'math'})`, []string{"find", store, "users", `{"tags.0":"math"}`}},
		{`db.users.find({$or: [{age: {$lt: 40}}, {city: 'Nuenen'}]})`, []string{"find", store, "users", `{"$or":[{"age":{"$lt":40}},{"city":"Nuenen"}]}`}},
		{`db.users.find({age: {$type: 'double'}})`, []string{"find", store, "users", `{"age":{"$type":"double"}}`}},
		{`db.users.find({age: {$type: 'long'}}, {_id: 1})`, []string{"find", store, "users", `{"age":{"$type":"long"}}`, "--project", `{"_id":1}`}},
		{`db.users.find({tags: {$all: ['math', 'poetry']}})`, []string{"find", store, "users", `{"tags":{"$all":["math","poetry"]}}`}},
		{`db.users.find({}, {tags: {$slice: 1}, name: 1})`, []string{"find", store, "users", "{}", "--project", `{"tags":{"$slice":1},"name":1}`}},
		{`db.users.find({city: {$ne: null}}).sort({city: 1}).limit(3)`, []string{"find", store, "users", `{"city":{"$ne":null}}`, "--sort", `{"city":1}`, "--limit", "3"}},
		{`db.users.aggregate([{$match: {age: {$exists: true}}}, {$project: {_id: 0, name: 1, older: {$gt: ['$age', 40]}}}])`, []string{"aggregate", store, "users", `[{"$match":{"age":{"$exists":true}}},{"$project":{"_id":0,"name":1,"older":{"$gt":["$age",40]}}}]`}},
		{`db.users.aggregate([{$sort: {name: 1}}, {$limit: 2}, {$addFields: {y: {$year: '$born'}}}])`, []string{"aggregate", store, "users", `[{"$sort":{"name":1}},{"$limit":2},{"$addFields":{"y":{"$year":"$born"}}}]`}},
		{`db.users.distinct('tags')`, []string{"distinct", store, "users", "tags", "--array"}},
		{`db.users.distinct('city', {age: {$lt: 50}})`, []string{"distinct", store, "users", "city", `{"age":{"$lt":50}}`, "--array"}},
		{`db.users.distinct('age')`, []string{"distinct", store, "users", "age", "--array"}},
		{`[db.users.findOne({age: {$gt: 40}})]`, []string{"find", store, "users", `{"age":{"$gt":40}}`, "--limit", "1"}},
		// Collation (jstests/core/collation.js: find, count, distinct and
		// aggregate with a collation).
		{`db.users.find({name: 'ADA'}).collation({locale: 'en', strength: 2})`, []string{"find", store, "users", `{"name":"ADA"}`, "--collation", `{"locale":"en","strength":2}`}},
		{`db.users.find({}, {city: 1}).sort({city: -1}).collation({locale: 'en'})`, []string{"find", store, "users", "{}", "--project", `{"city":1}`, "--sort", `{"city":-1}`, "--collation", `{"locale":"en"}`}},
		{`db.users.countDocuments({city: 'LONDON'}, {collation: {locale: 'en', strength: 1}})`, []string{"count", store, "users", `{"city":"LONDON"}`, "--collation", `{"locale":"en","strength":1}`}},
		{`db.users.countDocuments({city: {$lt: 'n'}}, {collation: {locale: 'en'}})`, []string{"count", store, "users", `{"city":{"$lt":"n"}}`, "--collation", `{"locale":"en"}`}},
		{`db.users.distinct('city', {}, {collation: {locale: 'en', strength: 2}})`, []string{"distinct", store, "users", "city", "--collation", `{"locale":"en","strength":2}`, "--array"}},
		{`db.users.aggregate([{$match: {city: 'new york'}}], {collation: {locale: 'en', strength: 2}})`, []string{"aggregate", store, "users", `[{"$match":{"city":"new york"}}]`, "--collation", `{"locale":"en","strength":2}`}},
		{`[db.users.findOne({name: 'GRACE'}, null, {collation: {locale: 'en', strength: 2}})]`, []string{"find", store, "users", `{"name":"GRACE"}`, "--limit", "1", "--collation", `{"locale":"en","strength":2}`}},
	} {
		got := evalShell(t, store, tc.shell)
		want := asShell(t, runCLI(t, "", tc.cli...))
		if got != want {
			t.Errorf("%s\nshell:\n%s\ncli %v:\n%s", tc.shell, got, tc.cli, want)
		}
	}
}

// TestShell_WritesSameAsCLI makes the same writes in the shell and with
// the CLI on two copies of a store and compares their dumps. The shell
// stores a whole JavaScript number in the int32 range as an int, as
// mongosh does, so the CLI's JSON spells those {"$numberInt":…}.
func TestShell_WritesSameAsCLI(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.omgdb"), filepath.Join(dir, "b.omgdb")
	runCLI(t, seed, "import", a, "users")
	runCLI(t, seed, "import", b, "users")
	for _, tc := range []struct {
		shell string
		cli   [][]string
	}{
		{`db.users.insertOne({_id: 6, name: 'edgar', joined: ISODate('2020-01-02T03:04:05Z')})`, [][]string{{"insert", b, "users", `{"_id":{"$numberInt":"6"},"name":"edgar","joined":{"$date":"2020-01-02T03:04:05Z"}}`}}},
		{`db.users.updateMany({tags: 'math'}, {$push: {tags: 'cs'}})`, [][]string{{"plan-update", b, "users", `{"tags":"math"}`, `{"$push":{"tags":"cs"}}`}}},
		{`db.users.updateOne({age: {$gt: 30}}, {$inc: {age: 1}})`, [][]string{{"plan-update", b, "users", `{"age":{"$gt":30}}`, `{"$inc":{"age":1}}`, "--multi=false"}}},
		{`db.users.deleteMany({city: null})`, [][]string{{"plan-delete", b, "users", `{"city":null}`}}},
		{`db.users.createIndex({age: -1})`, [][]string{{"create-index", b, "users", "age:-1"}}},
		{`db.users.insertMany([{_id: 7, n: NumberLong('9007199254740993')}, {_id: 8, d: 1.5, e: [1, [2, {f: null}]]}])`, [][]string{{"insert", b, "users", `{"_id":{"$numberInt":"7"},"n":{"$numberLong":"9007199254740993"}}`}, {"insert", b, "users", `{"_id":{"$numberInt":"8"},"d":1.5,"e":[{"$numberInt":"1"},[{"$numberInt":"2"},{"f":null}]]}`}}},
		{`db.users.replaceOne({_id: 8}, {name: 'replaced', at: ISODate('2021-01-01')})`, [][]string{{"plan-update", b, "users", `{"_id":8}`, `{"name":"replaced","at":{"$date":"2021-01-01T00:00:00Z"}}`, "--multi=false"}}},
		{`db.users.updateOne({_id: 10}, {$set: {name: 'upserted'}, $setOnInsert: {n: 1}}, {upsert: true})`, [][]string{{"plan-update", b, "users", `{"_id":{"$numberInt":"10"}}`, `{"$set":{"name":"upserted"},"$setOnInsert":{"n":{"$numberInt":"1"}}}`, "--upsert"}}},
		{`db.users.updateMany({tags: 'math'}, {$set: {'tags.$[t]': 'MATH'}}, {arrayFilters: [{t: 'math'}]})`, [][]string{{"plan-update", b, "users", `{"tags":"math"}`, `{"$set":{"tags.$[t]":"MATH"}}`, "--array-filters", `[{"t":"math"}]`}}},
		{`db.users.findOneAndUpdate({_id: 7}, {$inc: {n: NumberLong(1)}, $currentDate: {}})`, [][]string{{"plan-update", b, "users", `{"_id":7}`, `{"$inc":{"n":{"$numberLong":"1"}},"$currentDate":{}}`, "--multi=false"}}},
		{`db.users.deleteOne({_id: {$gt: 6}})`, [][]string{{"plan-delete", b, "users", `{"_id":{"$gt":6}}`, "--multi=false"}}},
		{`db.users.findOneAndDelete({_id: 8})`, [][]string{{"plan-delete", b, "users", `{"_id":8}`, "--multi=false"}}},
		{`db.users.dropIndex({age: -1})`, [][]string{{"drop-index", b, "users", "age_-1"}}},
		{`db.users.updateOne({name: 'ada'}, {$set: {x: 1}})`, [][]string{{"update", b, "users", `{"name":"ada"}`, `{"$set":{"x":{"$numberInt":"1"}}}`, "--one"}}},
		{`db.users.updateMany({}, [{$set: {n: {$size: {$ifNull: ['$tags', []]}}}}])`, [][]string{{"update", b, "users", "{}", `[{"$set":{"n":{"$size":{"$ifNull":["$tags",[]]}}}}]`}}},
		{`db.users.aggregate([{$group: {_id: '$city', n: {$sum: 1}}}, {$out: 'bycity'}])`, [][]string{{"plan-aggregate", b, "users", `[{"$group":{"_id":"$city","n":{"$sum":{"$numberInt":"1"}}}},{"$out":"bycity"}]`}}},
		{`db.users.aggregate([{$match: {city: {$type: 'string'}}}, {$group: {_id: '$city', names: {$push: '$name'}}}, {$merge: {into: 'bycity', let: {who: '$names'}, whenMatched: [{$set: {who: '$$who'}}], whenNotMatched: 'discard'}}])`, [][]string{{"plan-aggregate", b, "users", `[{"$match":{"city":{"$type":"string"}}},{"$group":{"_id":"$city","names":{"$push":"$name"}}},{"$merge":{"into":"bycity","let":{"who":"$names"},"whenMatched":[{"$set":{"who":"$$who"}}],"whenNotMatched":"discard"}}]`}}},
		{`db.users.createIndex({name: 'text', city: 'text'}, {weights: {name: 5}, default_language: 'es'})`, [][]string{{"create-index", b, "users", `{"name":"text","city":"text"}`, "--weights", `{"name":5}`, "--default-language", "es"}}},
		{`db.users.updateMany({$text: {$search: 'ada'}}, {$set: {found: true}})`, [][]string{{"update", b, "users", `{"$text":{"$search":"ada"}}`, `{"$set":{"found":true}}`}}},
		{`db.users.replaceOne({name: 'ada'}, {name: 'ada', v: 2})`, [][]string{{"replace", b, "users", `{"name":"ada"}`, `{"name":"ada","v":{"$numberInt":"2"}}`}}},
		{`db.users.deleteOne({x: 1})`, [][]string{{"delete", b, "users", `{"x":1}`, "--one"}}},
		{`db.users.renameCollection('people')`, [][]string{{"rename", b, "users", "people"}}},
		{`db.people.insertOne({_id: 'tmp'}); db.tmp.insertOne({_id: 1}); db.tmp.drop()`, [][]string{{"insert", b, "people", `{"_id":"tmp"}`}, {"insert", b, "tmp", `{"_id":{"$numberInt":"1"}}`}, {"drop", b, "tmp"}}},
		{`db.people.updateMany({age: {$type: 'number'}}, {$mul: {age: 2}, $unset: {score: ''}, $rename: {city: 'town'}})`, [][]string{{"plan-update", b, "people", `{"age":{"$type":"number"}}`, `{"$mul":{"age":2},"$unset":{"score":""},"$rename":{"city":"town"}}`}}},
	} {
		evalShell(t, a, tc.shell)
		for _, args := range tc.cli {
			out := runCLI(t, "", args...)
			if strings.HasPrefix(args[0], "plan-") {
				token := value.MustParse(strings.TrimSpace(out)).Get("token").Str()
				runCLI(t, "", "apply", b, token)
			}
		}
		if da, db := runCLI(t, "", "dump", a), runCLI(t, "", "dump", b); da != db {
			t.Fatalf("after %s the dumps differ:\nshell:\n%s\ncli:\n%s", tc.shell, da, db)
		}
	}
}

// evalShell runs code as omgdb shell --eval does and returns its output;
// a cursor is read to the end with toArray.
func evalShell(t *testing.T, store, code string) string {
	t.Helper()
	var out, errb bytes.Buffer
	sh := shell.New(&shell.Options{Store: store, Out: &out, Err: &errb, Width: 1 << 20})
	if (strings.Contains(code, ".find(") || strings.Contains(code, ".aggregate(")) && !strings.Contains(code, "forEach") {
		code += ".toArray()"
	}
	if err := sh.Eval(context.Background(), "test", code); err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	return strings.TrimSpace(out.String())
}

// asShell prints the CLI's NDJSON as the shell prints an array, or a
// single number as it is.
func asShell(t *testing.T, ndjson string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(ndjson), "\n")
	if len(lines) == 1 && strings.HasPrefix(lines[0], "[") {
		return pretty.Format(value.MustParse(lines[0]), &pretty.Options{Width: 1 << 20})
	}
	if len(lines) == 1 && !strings.HasPrefix(lines[0], "{") {
		return lines[0]
	}
	var docs []value.Value
	for _, l := range lines {
		if l != "" {
			docs = append(docs, value.MustParse(l))
		}
	}
	return pretty.Format(value.ArrayValue(docs), &pretty.Options{Width: 1 << 20})
}

func runCLI(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Main(args, strings.NewReader(stdin), &out, &errb); code != 0 {
		t.Fatalf("omgdb %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// TestShell_EvalExitCodes: an uncaught error in --eval exits with the
// code of its kind, and a read never creates the store.
func TestShell_EvalExitCodes(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.omgdb")
	store := filepath.Join(dir, "app.omgdb")
	runCLI(t, seed, "import", store, "users")
	for _, tc := range []struct {
		store, code string
		exit        int
		stderr      string
	}{
		{missing, `db.users.find().toArray()`, cli.ExitNotFound, "not found"},
		{store, `db.nope.findOne()`, cli.ExitNotFound, "collection `nope` not found"},
		{store, `db.users.find({`, cli.ExitData, "syntax error"},
		{store, `db.users.find({a: {$gtee: 1}}).toArray()`, cli.ExitData, "did you mean `$gte`?"},
		{store, `throw new Error('boom')`, cli.ExitData, "Error: boom"},
		{store, `db.users.insertOne({_id: 1})`, cli.ExitConflict, ""},
		{store, `db.users.countDocuments()`, 0, ""},
		{store, `if (db.users.countDocuments() > 0) quit(3); print('not reached')`, 3, ""},
		{store, `exit()`, 0, ""},
	} {
		var out, errb bytes.Buffer
		code := cli.Main([]string{"shell", tc.store, "--eval", tc.code}, strings.NewReader(""), &out, &errb)
		if code != tc.exit || !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("--eval %s: exit %d, stderr %q; want exit %d and %q", tc.code, code, errb.String(), tc.exit, tc.stderr)
		}
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("a read in the shell created %s (%v)", missing, err)
	}
}

// TestShell_RollbackUndoesWrite: the change id a shell write prints
// rolls it back to the same dump.
func TestShell_RollbackUndoesWrite(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, seed, "import", store, "users")
	before := runCLI(t, "", "dump", store)
	for _, code := range []string{
		`db.users.updateMany({}, {$set: {x: 1}}).changeId`,
		`db.users.deleteMany({age: {$gt: 40}}).changeId`,
		`db.users.insertOne({name: 'new'}).changeId`,
		`db.users.renameCollection('people').changeId`,
		`db.users.aggregate([{$group: {_id: '$city', n: {$sum: 1}}}, {$out: 'bycity'}])`,
		`db.users.aggregate([{$project: {name: 1}}, {$merge: {into: 'users', let: {n: '$name'}, whenMatched: [{$set: {upper: {$toUpper: '$$n'}}}]}}])`,
		`db.users.createIndex({name: 'text'}, {weights: {name: 3}})`,
	} {
		id := changeID(evalShell(t, store, code))
		if len(id) != 24 {
			t.Fatalf("%s printed %q, not a change id", code, id)
		}
		if runCLI(t, "", "dump", store) == before {
			t.Fatalf("%s changed nothing", code)
		}
		runCLI(t, "", "rollback", store, id)
		if after := runCLI(t, "", "dump", store); after != before {
			t.Fatalf("rollback of %s: dump\n%s\nwant\n%s", code, after, before)
		}
	}
}

// changeID returns the change id a shell write printed: its result's
// changeId, or the id in the note of a write whose result is a cursor
// or a name.
func changeID(out string) string {
	if m := regexp.MustCompile(`// change ([0-9a-f]+) `).FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return strings.Trim(out, "'")
}

// TestShell_ValuesRoundTrip: documents read into JavaScript and written
// back are the same documents: longs past 2^53 stay exact, dates stay
// dates, keys such as __proto__ stay keys, key order is kept.
func TestShell_ValuesRoundTrip(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	docs := `{"_id":1,"big":{"$numberLong":"9223372036854775807"},"neg":{"$numberLong":"-9007199254740993"},"i":7,"f":2.5,"tiny":1e-300,"s":"é\u0000x"}
{"_id":2,"d":{"$date":"1969-07-20T20:17:40.123Z"},"oid":{"$oid":"5f1d7a4b9c8e7d6f5a4b3c2d"},"bin":{"$binary":{"base64":"AQID","subType":"04"}}}
{"_id":3,"__proto__":{"x":1},"z":1,"a":[null,true,[],{}],"nested":{"k":{"$numberLong":"3000000000"}}}
`
	runCLI(t, docs, "import", store, "src")
	evalShell(t, store, `const all = db.src.find(); all.forEach(d => { db.dst.insertOne(d) })`)
	src, dst := runCLI(t, "", "export", store, "src"), runCLI(t, "", "export", store, "dst")
	if src != dst {
		t.Errorf("after a trip through JavaScript:\n%s\nwant\n%s", dst, src)
	}
}

// TestShell_PipedSessionExitCode: statements piped to the shell all run;
// the first error gives the exit code.
func TestShell_PipedSessionExitCode(t *testing.T) {
	store := filepath.Join(t.TempDir(), "app.omgdb")
	runCLI(t, seed, "import", store, "users")
	var out, errb bytes.Buffer
	in := "print('a')\ndb.nope.findOne()\ndb.users.insertOne({_id: 1})\nprint('b')\n"
	code := cli.Main([]string{"shell", store}, strings.NewReader(in), &out, &errb)
	if code != cli.ExitNotFound || out.String() != "a\nb\n" || strings.Count(errb.String(), "error: ") != 2 {
		t.Errorf("exit %d, stdout %q, stderr %q; want %d, a and b, two errors", code, out.String(), errb.String(), cli.ExitNotFound)
	}
	if code := cli.Main([]string{"shell", store}, strings.NewReader("print(1)\n"), &out, &errb); code != 0 {
		t.Errorf("a session without errors: exit %d", code)
	}
}
