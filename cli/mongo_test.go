package cli_test

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// mongoUsers are the documents both stores of the MongoDB CLI tests hold.
var mongoUsers = []string{
	`{"_id":1,"name":"ana","age":30,"tags":["a","b"],"city":"Paris"}`,
	`{"_id":2,"name":"bob","age":25,"tags":["b"],"city":"Lyon"}`,
	`{"_id":3,"name":"cy","age":35,"tags":[],"city":"Paris"}`,
	`{"_id":4,"name":"dee","score":{"$numberLong":"9007199254740993"}}`,
}

// mongoStores returns a store file and a MongoDB URI (on a FerretDB of
// the test's own) that hold the same users collection.
func mongoStores(t *testing.T) (file, uri string) { return mongoStoresWith(t, mongoUsers) }

// mongoStoresWith is mongoStores with other users.
func mongoStoresWith(t *testing.T, users []string) (file, uri string) {
	s := mongotest.Own(t)
	uri = s.URI + "app"
	mongotest.Insert(t, mongotest.Client(t, s.URI), "app", "users", users...)
	file = filepath.Join(t.TempDir(), "app.omgdb")
	if code, _, stderr := runCLI(t, strings.Join(users, "\n"), "insert", file, "users", "-"); code != 0 {
		t.Fatalf("insert into the file: exit %d: %s", code, stderr)
	}
	return file, uri
}

// runCLI runs the CLI in this process.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestMongo_ReadsMatchFile runs each read command on the store file and
// on the MongoDB database: the output must be the same, byte for byte.
func TestMongo_ReadsMatchFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"find", "STORE", "users", `{"age":{"$gte":30}}`, "--sort", `{"age":-1}`, "--project", `{"name":1,"_id":0}`},
			"{\"name\":\"cy\"}\n{\"name\":\"ana\"}\n"},
		{[]string{"find", "STORE", "users", `{"tags":"b"}`, "--skip", "1", "--limit", "5"},
			"{\"_id\":2,\"name\":\"bob\",\"age\":25,\"tags\":[\"b\"],\"city\":\"Lyon\"}\n"},
		{[]string{"find", "STORE", "users", `{"score":{"$gt":{"$numberLong":"9007199254740992"}}}`, "--ejson", "canonical", "--project", `{"score":1,"_id":0}`},
			"{\"score\":{\"$numberLong\":\"9007199254740993\"}}\n"},
		{[]string{"find", "STORE", "users", `{"age":null}`, "--project", `{"_id":1}`}, "{\"_id\":4}\n"},
		{[]string{"count", "STORE", "users", `{"city":"Paris"}`}, "2\n"},
		{[]string{"count", "STORE", "users"}, "4\n"},
		{[]string{"distinct", "STORE", "users", "tags"}, "\"a\"\n\"b\"\n"},
		{[]string{"distinct", "STORE", "users", "city", `{"age":{"$lt":35}}`, "--array"}, "[\"Lyon\",\"Paris\"]\n"},
		{[]string{"aggregate", "STORE", "users", `[{"$match":{"city":{"$exists":true}}},{"$group":{"_id":"$city","n":{"$sum":1}}},{"$sort":{"_id":1}}]`},
			"{\"_id\":\"Lyon\",\"n\":1}\n{\"_id\":\"Paris\",\"n\":2}\n"},
		{[]string{"collections", "STORE"}, "users\n"},
		{[]string{"collections", "STORE", "--json"}, "[\"users\"]\n"},
	}
	for _, c := range cases {
		for _, store := range []string{file, uri} {
			args := append([]string(nil), c.args...)
			args[1] = store
			code, stdout, stderr := runCLI(t, "", args...)
			if code != 0 || stdout != c.want {
				t.Errorf("omgdb %s\n exit %d, stdout %q, stderr %q\nwant exit 0, stdout %q", strings.Join(args, " "), code, stdout, stderr, c.want)
			}
		}
	}
}

// TestMongo_Indexes lists the indexes the server has: _id_ first.
func TestMongo_Indexes(t *testing.T) {
	t.Parallel()
	_, uri := mongoStores(t)
	code, stdout, stderr := runCLI(t, "", "indexes", uri, "users")
	want := `{"name":"_id_","kind":"btree","key":{"_id":1},"unique":true}` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	code, stdout, _ = runCLI(t, "", "indexes", uri, "users", "--format", "table")
	if code != 0 || !strings.Contains(stdout, "_id_  {\"_id\":1}  unique") {
		t.Errorf("table: exit %d, stdout %q", code, stdout)
	}
}

// TestMongo_Errors checks that the errors over MongoDB are omgdb's: the
// same message and exit code as on the file for a bad query, a
// did-you-mean for a missing collection, and a clear refusal (exit 64,
// with the hint) for every command that does not run over MongoDB yet.
func TestMongo_Errors(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	for _, args := range [][]string{
		{"find", "STORE", "users", `{"age":{"$gtt":1}}`},
		{"find", "STORE", "users", "--project", `{"name":1,"age":0}`},
		{"count", "STORE", "users", `{"$where":"1"}`},
		{"distinct", "STORE", "users", "$age"},
		{"aggregate", "STORE", "users", `[{"$out":"x"}]`},
		{"aggregate", "STORE", "users", `[{"$bogus":1}]`},
		{"find", "STORE", "users", `{"a":`},
	} {
		fa := append([]string(nil), args...)
		fa[1] = file
		fcode, _, fstderr := runCLI(t, "", fa...)
		ma := append([]string(nil), args...)
		ma[1] = uri
		mcode, mstdout, mstderr := runCLI(t, "", ma...)
		if fcode == 0 || mcode != fcode || mstderr != fstderr || mstdout != "" {
			t.Errorf("omgdb %s:\n file  exit %d: %q\n mongo exit %d: %q (stdout %q)", strings.Join(args, " "), fcode, fstderr, mcode, mstderr, mstdout)
		}
	}

	code, _, stderr := runCLI(t, "", "find", uri, "usrs")
	if code != cli.ExitNotFound || !strings.Contains(stderr, "did you mean `users`?") {
		t.Errorf("missing collection: exit %d, stderr %q; want 66 with a did-you-mean", code, stderr)
	}

	for _, args := range [][]string{
		{"import", uri, "users", "--drop", "--mode", "merge"},
		{"mcp", "--root", uri},
		{"revert", "x.omgdb", "s0", "--coll", "users"},
		{"count", uri, "users", "--hint", "_id_"},
		{"find", uri, "users", "--collation", `{"locale":"en","strength":2}`},
		{"count", uri, "users", "--collation", `{"locale":"en"}`},
		{"distinct", uri, "users", "name", "--collation", `{"locale":"en"}`},
		{"aggregate", uri, "users", "[]", "--collation", `{"locale":"en"}`},
		{"shell", uri, "--eval", "db.users.find().collation({locale: 'en'}).toArray()"},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != cli.ExitUsage || stdout != "" || !strings.Contains(stderr, "MongoDB") || !strings.Contains(stderr, "hint: ") {
			t.Errorf("omgdb %s: exit %d, stdout %q, stderr %q; want 64 and a hint", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	_, _, stderr = runCLI(t, "", "mcp", "--root", uri)
	if want := "error: `omgdb mcp` does not run over MongoDB yet: it needs a store file\nhint: not yet supported over MongoDB"; !strings.HasPrefix(stderr, want) {
		t.Errorf("mcp --root over MongoDB: stderr %q, want it to start with %q", stderr, want)
	}
}

// TestMongo_EnvURI takes the URI from $OMGDB_MONGODB_URI for the store
// argument "mongodb:" (or "mongodb:DB").
func TestMongo_EnvURI(t *testing.T) {
	_, uri := mongoStores(t)
	t.Setenv("OMGDB_MONGODB_URI", uri)
	for _, store := range []string{"mongodb:", "mongodb:app"} {
		code, stdout, stderr := runCLI(t, "", "count", store, "users")
		if code != 0 || stdout != "4\n" {
			t.Errorf("count %s: exit %d, stdout %q, stderr %q", store, code, stdout, stderr)
		}
	}
	code, _, stderr := runCLI(t, "", "count", "mongodb:other", "users")
	if code != cli.ExitNotFound || !strings.Contains(stderr, "/other") {
		t.Errorf("count in another database: exit %d, stderr %q; want 66 naming it", code, stderr)
	}
}

// TestMongo_CredentialsNeverPrinted gives URIs with a user and password
// to failing commands of every kind: unreachable server, refused command,
// usage errors, the environment URI. Neither may appear on stdout or
// stderr.
func TestMongo_CredentialsNeverPrinted(t *testing.T) {
	s := mongotest.Own(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	const user, pw = "omgdbadmin", "Hunter2Secret"
	down := "mongodb://" + user + ":" + pw + "@" + closed + "/app?serverSelectionTimeoutMS=300"
	up := strings.Replace(s.URI, "mongodb://", "mongodb://"+user+":"+pw+"@", 1) + "app?authMechanism=PLAIN"
	runs := [][]string{
		{"find", down, "users"},
		{"count", down, "users", "{}"},
		{"collections", down},
		{"find", up, "users"},
		{"find", up, "users", `{"a":{"$gtt":1}}`},
		{"import", up, "users", "--drop", "--mode", "merge"},
		{"insert", up, "users", `[1]`},
		{"find", up},
		{"find", up, "a", "b", "c", "d"},
		{"find", up, "users", "--no-such-flag"},
		{"describe", down},
		{"inspect", down},
		{"explain", up, "users", "{}"},
		{"diagnose", up, "users", `{"a":1}`},
		{"mcp", "--store", up, "--scope", "all", "--index-check"},
		{"mcp", "--store", down},
		{"shell", up, "--eval", "db.users.drop()"},
		{"shell", up, "--eval", "db.users.insertOne([1])"},
		{"shell", up, "--eval", "db.nope.find().toArray()"},
		{"shell", down, "--eval", "db.users.countDocuments()"},
	}
	for _, args := range runs {
		code, stdout, stderr := runCLI(t, "", args...)
		if code == 0 {
			t.Errorf("omgdb %v: exit 0", args)
		}
		if strings.Contains(stdout+stderr, pw) || strings.Contains(stdout+stderr, user) {
			t.Errorf("omgdb %s printed the credentials:\n%s%s", strings.Join(args, " "), stdout, stderr)
		}
	}
	// The MCP server over the deployment answers, and its results and
	// errors do not name the credentials either.
	mongotest.Insert(t, mongotest.Client(t, s.URI), "app", "users", mongoUsers...)
	calls := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"collection":"users","filter":{"city":"Paris"}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find","arguments":{"collection":"usrs"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"insert","arguments":{"collection":"users","document":{}}}}`,
	}, "\n") + "\n"
	code, stdout, stderr := runCLI(t, calls, "mcp", "--store", up)
	if code != 0 || strings.Count(stdout, "\n") != 4 || !strings.Contains(stdout, `\"count\":2`) ||
		!strings.Contains(stdout, "did you mean `users`?") || !strings.Contains(stdout, "SCOPE_DENIED") {
		t.Errorf("mcp over MongoDB: exit %d, stdout %s, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, pw) || strings.Contains(stdout+stderr, user) || !strings.Contains(stdout, "mongodb://***@") {
		t.Errorf("mcp over MongoDB printed the credentials (or no redacted URI):\n%s%s", stdout, stderr)
	}
	// At read-write scope too: a plan, an unknown plan, the journal.
	calls = strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plan_delete","arguments":{"collection":"users","filter":{"city":"Paris"}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"apply","arguments":{"token":"665f1c2e9b1d4a0c8e7f6a5b"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"history","arguments":{}}}`,
	}, "\n") + "\n"
	code, stdout, stderr = runCLI(t, calls, "mcp", "--store", up, "--scope", "read-write")
	if code != 0 || strings.Count(stdout, "\n") != 4 || !strings.Contains(stdout, `\"matched\":2`) ||
		!strings.Contains(stdout, "plan 665f1c2e9b1d4a0c8e7f6a5b not found in mongodb://***@") || !strings.Contains(stdout, `\"returned\":0`) {
		t.Errorf("mcp --scope read-write over MongoDB: exit %d, stdout %s, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, pw) || strings.Contains(stdout+stderr, user) {
		t.Errorf("mcp --scope read-write over MongoDB printed the credentials:\n%s%s", stdout, stderr)
	}

	t.Setenv("OMGDB_MONGODB_URI", down)
	code, stdout, stderr = runCLI(t, "", "find", "mongodb:", "users")
	if code != cli.ExitIO || strings.Contains(stdout+stderr, pw) || !strings.Contains(stderr, "***@"+closed) {
		t.Errorf("env URI, server down: exit %d, output %q%q; want 74 naming the redacted URI", code, stdout, stderr)
	}
}

// TestMongo_ShellReadsMatchFile runs the shell's reads on the store file
// and on the MongoDB database: the output must be the same, byte for
// byte; the writes it does not serve are refused over MongoDB with exit
// 64.
//
// Its numbers are longs and doubles: the shell of this branch prints an
// int32 read back as {} (main's shell types change reads ints back as
// numbers), and the MongoDB driver reads plain JSON integers as int32.
func TestMongo_ShellReadsMatchFile(t *testing.T) {
	t.Parallel()
	file, uri := mongoStoresWith(t, []string{
		`{"_id":{"$numberLong":"1"},"name":"ana","age":{"$numberLong":"30"},"tags":["a","b"],"city":"Paris"}`,
		`{"_id":{"$numberLong":"2"},"name":"bob","age":{"$numberDouble":"25.5"},"tags":["b"],"city":"Lyon"}`,
		`{"_id":{"$numberLong":"3"},"name":"cy","age":{"$numberLong":"35"},"tags":[],"city":"Paris"}`,
		`{"_id":{"$numberLong":"4"},"name":"dee","score":{"$numberLong":"9007199254740993"},"n":{"$numberInt":"7"}}`,
	})
	for _, code := range []string{
		`db.users.find({age: {$gte: 30}}).sort({age: -1})`,
		`db.users.find({tags: 'b'}, {name: 1}).toArray()`,
		`db.users.find().skip(1).limit(2).toArray()`,
		`db.users.find({age: null}, {_id: 1})`,
		`db.users.find({score: {$gt: NumberLong('9007199254740992')}}, {score: 1, _id: 0}).toArray()`,
		`db.users.find({tags: {$size: 0}}).next()`,
		`db.users.findOne({city: 'Lyon'}, {name: 1})`,
		`db.users.findOne({city: 'Nice'})`,
		`db.users.countDocuments({city: 'Paris'})`,
		`db.users.count()`,
		`db.users.estimatedDocumentCount()`,
		`db.users.distinct('tags')`,
		`db.users.distinct('name', {age: {$lt: 31}})`,
		`db.users.aggregate([{$match: {city: 'Paris'}}, {$sort: {age: 1}}, {$project: {name: 1, _id: 0}}])`,
		`db.users.getIndexes()`,
		`db.getCollectionNames()`,
		`db.users.find({age: {$gtt: 1}}).toArray()`,
		`db.users.find({n: 7}, {n: 1}).toArray()`,
	} {
		fcode, fout, ferr := runCLI(t, "", "shell", file, "--eval", code)
		mcode, mout, merr := runCLI(t, "", "shell", uri, "--eval", code)
		if mcode != fcode || mout != fout || merr != ferr {
			t.Errorf("shell --eval %s:\n file  exit %d: %q %q\n mongo exit %d: %q %q", code, fcode, fout, ferr, mcode, mout, merr)
		}
	}
	code, _, stderr := runCLI(t, "", "shell", uri, "--eval", "db.usrs.find().toArray()")
	if code != cli.ExitNotFound || !strings.Contains(stderr, "did you mean `users`?") {
		t.Errorf("missing collection in the shell: exit %d, stderr %q", code, stderr)
	}
	// Statements from a pipe, as a session would type them.
	code, out, stderr := runCLI(t, "show collections\ndb.users.countDocuments({tags: 'b'})\n", "shell", uri)
	if code != 0 || out != "users\n2\n" {
		t.Errorf("shell on a pipe: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}
