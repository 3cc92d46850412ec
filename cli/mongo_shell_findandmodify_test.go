package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// shellFindAndModify are findOneAndUpdate, findOneAndReplace and
// findOneAndDelete with each option, over int, long, double, null,
// missing fields and arrays, then a read of what they left.
var shellFindAndModify = []string{
	`db.fam.insertMany([{_id: 1, i: NumberInt(5), l: NumberLong(6), d: 1.5, n: null, a: [1, NumberLong(2), 'x', null], g: 'b'}, {_id: 2, i: NumberInt(1), g: 'a', a: []}, {_id: 3, d: 2.5, g: 'a'}])`,
	`db.fam.findOneAndUpdate({g: 'a'}, {$inc: {i: NumberLong(1)}})`,
	`db.fam.findOneAndUpdate({g: 'a'}, {$inc: {i: NumberInt(1)}}, {returnDocument: 'after'})`,
	`db.fam.findOneAndUpdate({g: 'a'}, {$mul: {d: 2}}, {sort: {_id: -1}, returnNewDocument: true, projection: {d: 1}})`,
	`db.fam.findOneAndUpdate({}, {$set: {top: true}}, {sort: {d: -1, _id: 1}, projection: {_id: 0, top: 1, d: 1}})`,
	`db.fam.findOneAndUpdate({_id: 1}, {$set: {'a.$[e]': 0}}, {arrayFilters: [{e: null}], returnDocument: 'after'})`,
	`db.fam.findOneAndUpdate({n: null, g: 'b'}, {$unset: {n: ''}}, {returnDocument: 'after', projection: {n: 1, a: 1}})`,
	`db.fam.findOneAndUpdate({_id: 7}, {$set: {u: NumberInt(1)}}, {upsert: true, returnDocument: 'after'})`,
	`db.fam.findOneAndUpdate({_id: 8}, {$set: {u: 2}}, {upsert: true})`,
	`db.fam.findOneAndUpdate({_id: 42}, {$set: {x: 1}})`,
	`db.fam.findOneAndUpdate({_id: 1}, {$set: {g: 'b'}})`,
	`db.fam.findOneAndUpdate({_id: 1}, {g: 'c'})`,
	`db.fam.findOneAndUpdate({_id: 1}, {$bogus: {g: 1}})`,
	`db.fam.findOneAndReplace({_id: 2}, {w: NumberInt(3), l: NumberLong(4), a: [null]})`,
	`db.fam.findOneAndReplace({g: 'a'}, {w: 1.0}, {returnDocument: 'after', sort: {_id: -1}})`,
	`db.fam.findOneAndReplace({_id: 9}, {w: null}, {upsert: true, returnNewDocument: true})`,
	`db.fam.findOneAndReplace({_id: 1}, {$set: {w: 1}})`,
	`db.fam.findOneAndDelete({w: {$exists: true}}, {sort: {_id: -1}, projection: {w: 1}})`,
	`db.fam.findOneAndDelete({_id: 8})`,
	`db.fam.findOneAndDelete({_id: 77})`,
	`db.nothere.findOneAndDelete({})`,
	`db.nothere.findOneAndUpdate({}, {$set: {a: 1}})`,
	`db.omgdb.changes.findOneAndDelete({})`,
	`db.fam.find().toArray()`,
}

// TestMongo_ShellFindAndModifyMatchFile runs findOneAndUpdate,
// findOneAndReplace and findOneAndDelete on a store file and on the
// deployment, statement by statement: the same result documents, errors
// and exit codes, and the same documents after. Every change printed is
// in history, and rolling back the last findOneAndUpdate restores the
// document.
func TestMongo_ShellFindAndModifyMatchFile(t *testing.T) {
	t.Parallel()
	uri, outs, after := shellBoth(t, "fam", shellFindAndModify)
	var printed []string
	for _, out := range outs {
		for _, m := range regexp.MustCompile(`// change ([0-9a-f]{24})`).FindAllStringSubmatch(out, -1) {
			printed = append(printed, m[1])
		}
	}
	want := `{"_id":{"$numberInt":"1"},"i":{"$numberInt":"5"},"l":{"$numberLong":"6"},"d":{"$numberDouble":"1.5"},"a":[{"$numberInt":"1"},{"$numberLong":"2"},"x",{"$numberInt":"0"}],"g":"b"}
{"_id":{"$numberInt":"2"},"w":{"$numberInt":"3"},"l":{"$numberLong":"4"},"a":[null]}
{"_id":{"$numberInt":"3"},"w":{"$numberInt":"1"}}
{"_id":{"$numberInt":"7"},"u":{"$numberInt":"1"}}
`
	if after != want {
		t.Errorf("after findOneAnd*:\n%s", after)
	}
	hist := mongoHistoryRows(t, uri)
	if len(printed) != 13 || len(hist) != len(printed)+1 {
		t.Fatalf("%d changes printed, %d in history (with the insertMany)", len(printed), len(hist))
	}
	for i, c := range printed {
		if h := hist[len(printed)-1-i]; h.Change != c || h.Actor != "shell" {
			t.Errorf("change %d: printed %s, history has %+v", i, c, h)
		}
	}
	// The upsert of _id 7 then its rollback: the document is gone again.
	if code, _, stderr := runCLI(t, "", "rollback", uri, printed[6]); code != 0 {
		t.Fatalf("rollback: exit %d %s", code, stderr)
	}
	if out := dumpColl(t, uri, "fam"); strings.Contains(out, `"_id":{"$numberInt":"7"}`) || !strings.Contains(out, `"_id":{"$numberInt":"1"}`) {
		t.Errorf("after the rollback of the upsert:\n%s", out)
	}
}

// TestMongo_ShellFindAndModifyExportCredentials: the change note of
// findOneAnd*, an export and their errors never print the URI's
// credentials.
func TestMongo_ShellFindAndModifyExportCredentials(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	const user, pw = "omgdbadmin", "Hunter2Secret"
	up := strings.Replace(s.URI, "mongodb://", "mongodb://"+user+":"+pw+"@", 1) + "app?authMechanism=PLAIN"
	var all string
	for _, args := range [][]string{
		{"shell", up, "--eval", `db.items.insertOne({_id: 1, v: 1})`},
		{"shell", up, "--eval", `db.items.findOneAndUpdate({_id: 1}, {$inc: {v: 1}}, {returnDocument: 'after'})`},
		{"shell", up, "--eval", `db.items.findOneAndDelete({_id: 1})`},
		{"shell", up, "--eval", `db.itemz.findOneAndDelete({})`},
		{"export", up, "items", "--jsonArray"},
		{"export", up, "itemz"},
	} {
		_, stdout, stderr := runCLI(t, "", args...)
		all += stdout + stderr
	}
	if strings.Contains(all, pw) || strings.Contains(all, user) || strings.Count(all, "// change ") != 2 ||
		!strings.Contains(all, "{ _id: 1, v: 2 }") || !strings.Contains(all, "[]\n") || !strings.Contains(all, "did you mean `items`?") {
		t.Errorf("findOneAnd* or export printed the credentials, or did not run:\n%s", all)
	}
}

// shellBulkWrites are bulkWrite calls with every kind of operation,
// ordered and not, failing half-way and refused before writing.
var shellBulkWrites = []string{
	`db.bw.bulkWrite([{insertOne: {document: {_id: 1, v: NumberInt(1), a: [1, null]}}}, {insertOne: {document: {_id: 2, v: NumberLong(2)}}},
		{updateOne: {filter: {_id: 1}, update: {$inc: {v: NumberLong(1)}}}}, {updateMany: {filter: {}, update: {$set: {t: true}}}},
		{replaceOne: {filter: {_id: 2}, replacement: {w: 2.5}}}, {updateOne: {filter: {_id: 3}, update: {$set: {u: null}}, upsert: true}},
		{updateOne: {filter: {_id: 1}, update: {$set: {'a.$[e]': 0}}, arrayFilters: [{e: null}]}}, {deleteOne: {filter: {_id: 2}}}])`,
	`db.bw.bulkWrite([{updateOne: {filter: {}, update: {$set: {first: 1}}, sort: {_id: -1}}}, {updateMany: {filter: {nothing: 1}, update: {$set: {x: 1}}}}, {deleteMany: {filter: {nothing: 1}}}])`,
	`db.bw.bulkWrite([{insertOne: {document: {_id: 5}}}, {insertOne: {document: {_id: 1}}}, {insertOne: {document: {_id: 6}}}])`,
	`db.bw.bulkWrite([{insertOne: {document: {_id: 7}}}, {insertOne: {document: {_id: 1}}}, {deleteMany: {filter: {_id: {$gte: 5}}}}, {insertOne: {document: {_id: 7}}}], {ordered: false})`,
	`db.bw.bulkWrite([{insertOne: {document: {_id: 9}}}, {updateOne: {filter: {_id: 1}, update: {$bad: 1}}}])`,
	`db.bw.bulkWrite([{insertOne: {document: {_id: 9}}}, {deleteOne: {filter: {_id: {$gtt: 1}}}}])`,
	`db.bw.bulkWrite([{updateMany: {filter: {}, update: {$set: {'a.$[e]': 1}}}}])`,
	`db.bw.bulkWrite([{insertOne: {document: {_id: 8}}}, {insertOne: {doc: {}}}])`,
	`db.bw.bulkWrite([{updateOne: {filter: {}, update: {x: 1}}}])`,
	`db.bw.bulkWrite([{replaceOne: {filter: {}, replacement: {$set: {x: 1}}}}])`,
	`db.bw.bulkWrite([{upsertOne: {}}])`,
	`db.bw.bulkWrite([])`,
	`db.bw.bulkWrite([{deleteMany: {filter: {}}}], {w: 1})`,
	`db.omgdb.plans.bulkWrite([{insertOne: {document: {x: 1}}}])`,
	`db.bw.find().toArray()`,
}

// TestMongo_ShellBulkWriteMatchFile runs bulkWrite on a store file and
// on the deployment: the same results, errors and exit codes, the same
// documents after; each change id it prints is in history.
func TestMongo_ShellBulkWriteMatchFile(t *testing.T) {
	t.Parallel()
	uri, outs, after := shellBoth(t, "bw", shellBulkWrites)
	var printed []string
	for i, out := range outs {
		if want := "insertedCount: 2,\n  insertedIds: { '0': 1, '1': 2 },\n  matchedCount: 5,\n  modifiedCount: 5,\n  deletedCount: 1,\n" +
			"  upsertedCount: 1,\n  upsertedIds: { '5': 3 },"; i == 0 && !strings.Contains(out, want) {
			t.Errorf("the first bulkWrite's result:\n%s\nwant in it:\n%s", out, want)
		}
		printed = append(printed, regexp.MustCompile(`'([0-9a-f]{24})'`).FindAllString(out, -1)...)
	}
	if !strings.Contains(after, `"a":[{"$numberInt":"1"},{"$numberInt":"0"}]`) {
		t.Errorf("after bulkWrite:\n%s", after)
	}
	// 8 changes from the first call, 1 from the second, and the failed
	// calls' written operations (5; 7, the deleteMany and 7 again),
	// listed in the error, not printed.
	hist := mongoHistoryRows(t, uri)
	if len(printed) != 9 || len(hist) != 13 {
		t.Fatalf("%d change ids printed, %d changes in history", len(printed), len(hist))
	}
	for i, c := range printed {
		if h := hist[len(hist)-1-i]; "'"+h.Change+"'" != c || h.Actor != "shell" {
			t.Errorf("change %d: printed %s, history has %+v", i, c, h)
		}
	}
}

// shellBoth runs statements in the shell on a fresh store file and a
// fresh database, each with the same output (shellSameOutput), then
// requires the same documents in coll; it returns the database's URI,
// the outputs over MongoDB and the documents.
func shellBoth(t *testing.T, coll string, statements []string) (uri string, outs []string, after string) {
	t.Helper()
	srv := mongotest.Own(t)
	file := filepath.Join(t.TempDir(), "app.omgdb")
	uri = srv.URI + "app"
	for _, code := range statements {
		outs = append(outs, shellSameOutput(t, file, uri, code))
	}
	if f, m := dumpColl(t, file, coll), dumpColl(t, uri, coll); f != m {
		t.Errorf("after the statements:\nfile:\n%s\nmongo:\n%s", f, m)
	}
	return uri, outs, dumpColl(t, uri, coll)
}
