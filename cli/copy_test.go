package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/internal/crashtest"
	"github.com/omgdb/omgdb/internal/mongotest"
)

// copyFixture is a dump (omgdb load's input) with three collections:
// documents of every type the test server can store, arrays, nested
// documents, null against missing, mixed numeric _ids; rules with a
// validator; unique, sparse, descending and compound indexes; an empty
// collection with an index. Cases of types and arrays follow jstests
// core/query/type/type_array.js, core/query/null_query_semantics.js and
// core/numberlong.js (int, long and double side by side, 2^53 + 1).
var copyFixture = []string{
	`{"collection":"users"}`,
	`{"collection":"users","document":{"_id":{"$numberInt":"1"},"name":"ana","email":"ana@x","age":{"$numberInt":"30"},"tags":["a","b"],"nick":null}}`,
	`{"collection":"users","document":{"_id":{"$numberLong":"2"},"name":"bob","email":"bob@x","age":{"$numberLong":"9007199254740993"},"tags":[],"address":{"city":"Paris","geo":{"lat":{"$numberDouble":"48.85"},"lng":2.35}}}}`,
	`{"collection":"users","document":{"_id":{"$numberDouble":"2.5"},"name":"cy","email":"cy@x","age":{"$numberDouble":"1.0"},"tags":[{"k":"x"},{"k":null},{}],"nick":"c"}}`,
	`{"collection":"users","document":{"_id":{"$numberInt":"3"},"name":"dee","email":"dee@x","notes":"unicode: ünï €"}}`,
	`{"collection":"users","rules":{"required":["name"],"fields":{"age":["int","long","double"],"tags":"array"},"validator":{"email":{"$regex":"@"}}}}`,
	`{"collection":"users","index":{"name":"age_-1_name_1","kind":"btree","spec":{"fields":[{"path":"age","desc":true},{"path":"name"}]}}}`,
	`{"collection":"users","index":{"name":"email_1","kind":"btree","spec":{"fields":[{"path":"email"}],"unique":true}}}`,
	`{"collection":"users","index":{"name":"nick_1","kind":"btree","spec":{"fields":[{"path":"nick"}],"sparse":true}}}`,
	`{"collection":"events"}`,
	`{"collection":"events","document":{"_id":{"$oid":"650000000000000000000001"},"at":{"$date":{"$numberLong":"1700000000123"}},"before":{"$date":{"$numberLong":"-5"}},"ts":{"$timestamp":{"t":1700000000,"i":7}},"re":{"$regularExpression":{"pattern":"^a.*z$","options":"im"}},"bin":{"$binary":{"base64":"AAEC","subType":"00"}},"uuid":{"$binary":{"base64":"c//SZESzTGmQ6OfR38A11A==","subType":"04"}},"user":{"$binary":{"base64":"/w==","subType":"80"}},"ok":true,"no":false}}`,
	`{"collection":"events","document":{"_id":{"$oid":"650000000000000000000002"},"at":null,"nested":{"a":{"b":{"c":[{"$numberInt":"1"},{"$numberLong":"1"},{"$numberDouble":"1.5"}]}}}}}`,
	`{"collection":"events","document":{"_id":{"$oid":"650000000000000000000003"}}}`,
	`{"collection":"empty"}`,
	`{"collection":"empty","index":{"name":"x_1","kind":"btree","spec":{"fields":[{"path":"x"}],"unique":true}}}`,
}

// loadFixture writes a store file from dump lines.
func loadFixture(t *testing.T, lines []string) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "fixture.dump")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "src.omgdb")
	if code, _, stderr := runCLI(t, "", "load", path, in); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	return path
}

// mustRun runs the CLI and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("omgdb %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// copySummary reads copy's summary.
type copySummaryOut struct {
	Collections []struct {
		Name         string          `json:"name"`
		Copied       int64           `json:"copied"`
		ResumedAfter json.RawMessage `json:"resumed_after"`
		SourceCount  int64           `json:"source_count"`
		TargetCount  int64           `json:"target_count"`
		SourceDigest string          `json:"source_digest"`
		TargetDigest string          `json:"target_digest"`
		Verified     bool            `json:"verified"`
	} `json:"collections"`
	Verified bool `json:"verified"`
}

func parseCopySummary(t *testing.T, out string) copySummaryOut {
	t.Helper()
	var s copySummaryOut
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("copy's summary %q: %v", out, err)
	}
	return s
}

// TestCopy_RoundTripFerretDB copies a store file into the test server
// and back: the dump of the copy equals the dump of the original (every
// document byte for byte, types included, and the rules and indexes,
// sparse included, which the server itself drops), the verify step
// passes both ways, and the copy into the file is journaled.
func TestCopy_RoundTripFerretDB(t *testing.T) {
	t.Parallel()
	src := loadFixture(t, copyFixture)
	uri := mongotest.Own(t).URI + "app"
	out := mustRun(t, "copy", src, uri)
	sum := parseCopySummary(t, out)
	if !sum.Verified || len(sum.Collections) != 3 {
		t.Fatalf("copy into MongoDB: %s", out)
	}
	for _, c := range sum.Collections {
		want := map[string]int64{"users": 4, "events": 3, "empty": 0}[c.Name]
		if c.Copied != want || c.SourceCount != want || c.TargetCount != want || c.SourceDigest != c.TargetDigest || !c.Verified {
			t.Errorf("collection %s: %+v, want %d copied and verified", c.Name, c, want)
		}
	}
	// Types as the server holds them, read back by omgdb's MongoDB engine.
	for _, coll := range []string{"users", "events"} {
		fileOut := mustRun(t, "find", src, coll, "--ejson", "canonical")
		if got := mustRun(t, "find", uri, coll, "--ejson", "canonical"); got != fileOut {
			t.Errorf("find %s on the server:\n%s\nwant (as on the file):\n%s", coll, got, fileOut)
		}
	}
	if got := mustRun(t, "indexes", uri, "users"); !strings.Contains(got, `"name":"email_1","kind":"btree","key":{"email":1},"unique":true`) ||
		!strings.Contains(got, `"name":"age_-1_name_1","kind":"btree","key":{"age":-1,"name":1}`) {
		t.Errorf("indexes on the server:\n%s", got)
	}
	back := filepath.Join(t.TempDir(), "back.omgdb")
	sum = parseCopySummary(t, mustRun(t, "copy", uri, back))
	if !sum.Verified {
		t.Fatalf("copy back: %+v", sum)
	}
	want, got := mustRun(t, "dump", src), mustRun(t, "dump", back)
	if got != want {
		t.Fatalf("dump after the round trip:\n%s\nwant:\n%s", got, want)
	}
	mustRun(t, "verify", back)
	hist := mustRun(t, "history", back)
	if strings.Count(hist, `"kind":"copy"`) < 3 {
		t.Errorf("history of the copy:\n%s", hist)
	}
}

// TestCopy_FileToFileRollback copies between two store files and rolls
// the copy of a collection back: the documents go, as the journal says.
func TestCopy_FileToFileRollback(t *testing.T) {
	t.Parallel()
	src := loadFixture(t, copyFixture)
	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	sum := parseCopySummary(t, mustRun(t, "copy", src, dst, "--collections", "users,events", "--batch-size", "2"))
	if !sum.Verified || len(sum.Collections) != 2 {
		t.Fatalf("copy: %+v", sum)
	}
	if got := mustRun(t, "count", dst, "users"); got != "4\n" {
		t.Fatalf("count after copy: %q", got)
	}
	var first struct {
		Change string `json:"change"`
		Kind   string `json:"kind"`
	}
	hist := strings.Split(strings.TrimSpace(mustRun(t, "history", dst)), "\n")
	// Newest first: events' documents (events has no rules or indexes),
	// users' rules and indexes, users' documents.
	if len(hist) != 3 || !strings.Contains(hist[0], `"collections":["events"],"inserted":3`) || !strings.Contains(hist[2], `"collections":["users"],"inserted":4`) {
		t.Fatalf("history: %q", hist)
	}
	if err := json.Unmarshal([]byte(hist[0]), &first); err != nil || first.Kind != "copy" {
		t.Fatalf("history: %q (%v)", hist[0], err)
	}
	mustRun(t, "rollback", dst, first.Change)
	if code, _, stderr := runCLI(t, "", "count", dst, "events"); code != 66 {
		t.Errorf("events after the rollback of its copy: exit %d, %s", code, stderr)
	}
	if got := mustRun(t, "count", dst, "users"); got != "4\n" {
		t.Errorf("users after the rollback of events: %q", got)
	}
}

// TestCopy_BadInput: each mistake is refused with its exit code and a
// hint, and writes nothing.
func TestCopy_BadInput(t *testing.T) {
	t.Parallel()
	src := loadFixture(t, copyFixture)
	dir := t.TempDir()
	dst := filepath.Join(dir, "dst.omgdb")
	mustRun(t, "copy", src, dst, "--collections", "users")
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"missing source", []string{"copy", filepath.Join(dir, "nope.omgdb"), filepath.Join(dir, "x.omgdb")}, 66, "store not found"},
		{"non-empty target", []string{"copy", src, dst, "--collections", "users"}, 69, "collection `users` in " + dst + " already holds 4 document(s)"},
		{"unknown collection", []string{"copy", src, filepath.Join(dir, "y.omgdb"), "--collections", "userz"}, 66, "collection `userz` not found in " + src + " (did you mean `users`?)"},
		{"history with collections", []string{"copy", src, filepath.Join(dir, "z.omgdb"), "--history", "--collections", "users"}, 64, "--history copies every collection: it cannot be given with --collections"},
		{"history into a target with data", []string{"copy", src, dst, "--history"}, 69, dst + " is not empty (1 collection(s), journal through lsn 2)"},
		{"same store", []string{"copy", src, src}, 64, "the source and the target are the same store"},
		{"batch size", []string{"copy", src, filepath.Join(dir, "w.omgdb"), "--batch-size", "0"}, 64, "--batch-size must be 1 or more"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) || !strings.Contains(stderr, "\nhint: ") && c.code != 64 {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q with a hint", c.name, code, stderr, c.code, c.stderr)
		}
	}
	if got := mustRun(t, "count", dst, "users"); got != "4\n" {
		t.Errorf("the refused copy changed the target: count %q", got)
	}
	// A target whose empty collection has a unique index the source's
	// documents break (two null nick keys: _id 1's null, _id 2's missing)
	// stops at the document, which it names, and keeps the documents
	// before it (the import commits its batch up to the bad document).
	idx := filepath.Join(dir, "idx.omgdb")
	mustRun(t, "insert", idx, "users", `{"_id":0}`)
	mustRun(t, "delete", idx, "users", `{"_id":0}`)
	mustRun(t, "create-index", idx, "users", "nick", "--unique")
	code, _, stderr := runCLI(t, "", "copy", src, idx, "--collections", "users", "--batch-size", "2")
	if code != 69 || !strings.HasPrefix(stderr, "error: copy into `users` of "+idx+": ") || !strings.Contains(stderr, "(writing _id 2)") || !strings.Contains(stderr, "1 document(s) of `users` copied in this run; once the cause is fixed, run the same command with --resume") {
		t.Errorf("a document the target refuses: exit %d, %q", code, stderr)
	}
	if got := mustRun(t, "count", idx, "users"); got != "1\n" {
		t.Errorf("after the refused document the target holds %q documents, want the one before it", got)
	}
	for _, f := range []string{"x.omgdb", "y.omgdb", "z.omgdb", "w.omgdb"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused copy left %s", f)
		}
	}
}

// TestCopy_BadInputFerretDB: what the server cannot hold is refused
// before any document is written, naming the index, and credentials
// never appear.
func TestCopy_BadInputFerretDB(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	withText := loadFixture(t, append(append([]string(nil), copyFixture...),
		`{"collection":"posts"}`,
		`{"collection":"posts","document":{"_id":1,"title":"hello"}}`,
		`{"collection":"posts","index":{"name":"title_text","kind":"text","spec":{"weights":{"title":1},"default_language":"english","language_override":"language"}}}`))
	uri := s.URI + "app"
	code, stdout, stderr := runCLI(t, "", "copy", withText, uri)
	if code != 65 || !strings.Contains(stderr, "cannot hold index `title_text` of `posts`") || !strings.Contains(stderr, "\nhint: ") {
		t.Fatalf("text index into FerretDB: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if got := mustRun(t, "collections", uri, "--json"); got != "[]\n" {
		t.Errorf("a refused copy left collections on the server: %s", got)
	}
	// The same copy without posts goes through.
	mustRun(t, "copy", withText, uri, "--collections", "users")
	code, _, stderr = runCLI(t, "", "copy", withText, uri, "--collections", "users")
	if code != 69 || !strings.Contains(stderr, "already holds 4 document(s)") {
		t.Errorf("copy into a non-empty collection: exit %d, %q", code, stderr)
	}
	if got := mustRun(t, "count", uri, "users"); got != "4\n" {
		t.Errorf("count after the refused copy: %q", got)
	}
	// A server that does not answer: the password is never printed.
	secretURI := "mongodb://copier:s3cretpw@127.0.0.1:1/app?serverSelectionTimeoutMS=300"
	code, stdout, stderr = runCLI(t, "", "copy", withText, secretURI)
	if code != 74 || strings.Contains(stdout+stderr, "s3cretpw") || !strings.Contains(stderr, "mongodb://***@127.0.0.1:1/app") {
		t.Errorf("unreachable target: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCopy_ResumeAfterKill kills a copy into the test server at its
// third batch (failpoint copy-batch), refuses to go on without --resume,
// then resumes: the server holds every document once, and a copy back
// dumps equal to the source.
func TestCopy_ResumeAfterKill(t *testing.T) {
	t.Parallel()
	var lines []string
	lines = append(lines, `{"collection":"c"}`)
	for i := 0; i < 100; i++ {
		lines = append(lines, fmt.Sprintf(`{"collection":"c","document":{"_id":{"$numberInt":"%d"},"i":{"$numberLong":"%d"},"pad":"%s"}}`, i, i*i, strings.Repeat("p", i)))
	}
	lines = append(lines, `{"collection":"c","index":{"name":"i_1","kind":"btree","spec":{"fields":[{"path":"i"}],"unique":true}}}`)
	src := loadFixture(t, lines)
	uri := mongotest.Own(t).URI + "app"
	o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "copy", src, uri, "--batch-size", "10"}, Failpoint: "copy-batch:3", Delay: time.Minute})
	if err != nil || !o.Fired {
		t.Fatalf("the copy was not killed at its third batch: %+v %v", o, err)
	}
	if got := mustRun(t, "count", uri, "c"); got != "30\n" {
		t.Fatalf("after the kill the server holds %q documents, want 30 (three batches)", got)
	}
	code, _, stderr := runCLI(t, "", "copy", src, uri)
	if code != 69 || !strings.Contains(stderr, "add --resume") {
		t.Fatalf("copy again without --resume: exit %d, %q", code, stderr)
	}
	sum := parseCopySummary(t, mustRun(t, "copy", src, uri, "--resume", "--batch-size", "10"))
	c := sum.Collections[0]
	if !sum.Verified || c.Copied != 70 || string(c.ResumedAfter) != `{"$numberInt":"29"}` || c.TargetCount != 100 {
		t.Fatalf("resumed copy: %+v", sum)
	}
	if got := mustRun(t, "count", uri, "c"); got != "100\n" {
		t.Fatalf("after the resume the server holds %q documents", got)
	}
	back := filepath.Join(t.TempDir(), "back.omgdb")
	mustRun(t, "copy", uri, back)
	if got, want := mustRun(t, "dump", back), mustRun(t, "dump", src); got != want {
		t.Fatalf("dump after kill, resume and copy back differs:\n%s\nwant:\n%s", got, want)
	}
}

// TestCopy_VerifyFindsDifferences: a resumed copy over a target that
// changed after the first copy reports what differs and exits 74.
func TestCopy_VerifyFindsDifferences(t *testing.T) {
	t.Parallel()
	src := loadFixture(t, copyFixture)
	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	mustRun(t, "copy", src, dst, "--collections", "users")
	mustRun(t, "update", dst, "users", `{"name":"bob"}`, `{"$set":{"age":{"$numberInt":"7"}}}`)
	mustRun(t, "insert", dst, "users", `{"_id":"zzz","name":"extra","email":"e@x"}`)
	code, stdout, stderr := runCLI(t, "", "copy", src, dst, "--collections", "users", "--resume")
	if code != 74 || !strings.Contains(stderr, "error: verify: `users` differs: 4 document(s) in the source, 5 in the target; the documents at _id 2 differ") ||
		!strings.Contains(stdout, `"verified":false`) {
		t.Fatalf("verify of a changed target: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	mustRun(t, "delete", dst, "users", `{"_id":"zzz"}`)
	code, _, stderr = runCLI(t, "", "copy", src, dst, "--collections", "users", "--resume", "--no-verify")
	if code != 0 {
		t.Fatalf("--no-verify: exit %d, %s", code, stderr)
	}
}

// TestCopy_TypesFileToFile copies the types the test server cannot
// store (decimal128, minKey, maxKey, arrays of arrays) between two files:
// the dump is equal.
func TestCopy_TypesFileToFile(t *testing.T) {
	t.Parallel()
	src := loadFixture(t, []string{
		`{"collection":"t"}`,
		`{"collection":"t","document":{"_id":{"$minKey":1},"d":{"$numberDecimal":"1.10"},"big":{"$numberDecimal":"9.999999999999999999999999999999999E+6144"}}}`,
		`{"collection":"t","document":{"_id":{"$numberDecimal":"2.0"},"nested":[[1,[2]],[],[[]]],"neg0":{"$numberDouble":"-0.0"},"inf":{"$numberDouble":"Infinity"}}}`,
		`{"collection":"t","document":{"_id":{"$maxKey":1},"m":[{"$minKey":1},{"$maxKey":1}]}}`,
	})
	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	mustRun(t, "copy", src, dst)
	if got, want := mustRun(t, "dump", dst), mustRun(t, "dump", src); got != want {
		t.Fatalf("dump of the copy:\n%s\nwant:\n%s", got, want)
	}
}

// TestCopy_FromMongoWithoutRecord copies a database that omgdb did not
// write (no omgdb.copy record): its indexes are converted from what the
// server lists, and the documents keep their types.
func TestCopy_FromMongoWithoutRecord(t *testing.T) {
	t.Parallel()
	file, uri := mongoStores(t)
	c := mongotest.Client(t, strings.TrimSuffix(uri, "app"))
	_, err := c.Database("app").Collection("users").Indexes().CreateOne(context.Background(),
		mongo.IndexModel{Keys: bson.D{{Key: "age", Value: -1}, {Key: "name", Value: 1}}, Options: options.Index().SetUnique(true)})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	sum := parseCopySummary(t, mustRun(t, "copy", uri, dst))
	if !sum.Verified || sum.Collections[0].Copied != 4 {
		t.Fatalf("copy: %+v", sum)
	}
	if got, want := mustRun(t, "find", dst, "users", "--ejson", "canonical"), mustRun(t, "find", file, "users", "--ejson", "canonical"); got != want {
		t.Errorf("documents:\n%s\nwant:\n%s", got, want)
	}
	if got := mustRun(t, "indexes", dst, "users"); !strings.Contains(got, `"name":"age_-1_name_1","kind":"btree","key":{"age":-1,"name":1},"unique":true`) {
		t.Errorf("indexes of the copy:\n%s", got)
	}
}

// TestInterrupt_Copy: Ctrl-C during a copy into MongoDB exits 130, says
// how many documents were copied, exactly that many are on the server,
// and --resume completes the copy.
func TestInterrupt_Copy(t *testing.T) {
	t.Parallel()
	lines := []string{`{"collection":"c"}`}
	for i := 0; i < 20000; i++ {
		lines = append(lines, fmt.Sprintf(`{"collection":"c","document":{"_id":{"$numberInt":"%d"}}}`, i))
	}
	src := loadFixture(t, lines)
	uri := mongotest.Own(t).URI + "app"
	cmd := exec.Command("omgdb", "copy", src, uri, "--batch-size", "100")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the first batches are on the server and the child is
	// past its first 50 ms (when Ctrl-C ends a command at once).
	time.Sleep(100 * time.Millisecond)
	coll := mongotest.Client(t, strings.TrimSuffix(uri, "app")).Database("app").Collection("c")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if n, _ := coll.CountDocuments(context.Background(), bson.D{}); n >= 300 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	m := regexp.MustCompile("^error: interrupted: ([0-9]+) document\\(s\\) of `c` copied in this run\nhint: run the same command with --resume").FindStringSubmatch(errb.String())
	if cmd.ProcessState.ExitCode() != 130 || m == nil {
		t.Fatalf("interrupted copy: exit %d, stdout %q, stderr %q", cmd.ProcessState.ExitCode(), out.String(), errb.String())
	}
	if got := mustRun(t, "count", uri, "c"); got != m[1]+"\n" {
		t.Fatalf("the server holds %q documents, the copy said %s", got, m[1])
	}
	sum := parseCopySummary(t, mustRun(t, "copy", src, uri, "--resume"))
	if !sum.Verified || sum.Collections[0].TargetCount != 20000 {
		t.Fatalf("resume after Ctrl-C: %+v", sum)
	}
}

// TestCopy_FromMongoBadName: a MongoDB collection whose name a store
// file cannot hold stops the copy before any document is written, and
// the new store is removed.
func TestCopy_FromMongoBadName(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	c := mongotest.Client(t, s.URI)
	mongotest.Insert(t, c, "app", "a", `{"_id":1}`)
	mongotest.Insert(t, c, "app", "has space", `{"_id":1}`)
	dst := filepath.Join(t.TempDir(), "dst.omgdb")
	code, _, stderr := runCLI(t, "", "copy", s.URI+"app", dst)
	if code != 65 || !strings.Contains(stderr, `invalid collection name "has space"`) {
		t.Fatalf("copy of a collection named with a space: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Errorf("the refused copy left %s", dst)
	}
}
