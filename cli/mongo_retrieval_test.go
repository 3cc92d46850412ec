package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
)

// retrievalNotes are the documents of the retrieval tests: Markdown and
// plain text bodies, an array of strings, null, missing, a number and an
// object where the text field is expected, _ids of two types, and int,
// long and double values beside them.
var retrievalNotes = []string{
	`{"_id":1,"title":"Backups","body":"# Backups\n\nThe nightly backup runs at 2am and keeps seven copies.\n\n## Restore\n\nRestore a backup with the restore command, then verify it.","team":"ops","n":1}`,
	`{"_id":2,"title":"Log rotation","body":"Rotate the logs weekly. Old logs are compressed and kept for a month.","team":"ops","n":{"$numberLong":"2"}}`,
	`{"_id":3,"title":"Release notes","body":["Version 2 adds backup encryption.","Deploys are faster."],"team":"dev","n":3.5}`,
	`{"_id":4,"title":"Empty","body":null,"team":"dev"}`,
	`{"_id":5,"title":"No body","team":"dev"}`,
	`{"_id":"six","title":"Numbers","body":42,"team":"ops"}`,
	`{"_id":7,"title":"Backup tapes","body":{"text":"old tapes"},"team":"ops","meta":{"summary":"backup tapes are retired"}}`,
	`{"_id":8,"title":"Backup schedule","body":"The backup schedule: nightly at 2am, weekly full backups on Sunday.","team":"ops"}`,
}

// retrievalStores returns a store file (with a search index on title and
// body, and no vector index) and a MongoDB database holding the notes.
func retrievalStores(t *testing.T) (file, uri string) {
	s := mongotest.Own(t)
	uri = s.URI + "app"
	mongotest.Insert(t, mongotest.Client(t, s.URI), "app", "notes", retrievalNotes...)
	file = filepath.Join(t.TempDir(), "app.omgdb")
	if code, _, stderr := runCLI(t, strings.Join(retrievalNotes, "\n"), "insert", file, "notes", "-"); code != 0 {
		t.Fatalf("insert into the file: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "create-search-index", file, "notes", "title,body"); code != 0 {
		t.Fatalf("create-search-index: exit %d: %s", code, stderr)
	}
	return file, uri
}

// hitIDs returns the _ids of the hit lines of a vsearch or search, as JSON.
func hitIDs(t *testing.T, stdout string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if line == "" {
			continue
		}
		var h struct {
			ID json.RawMessage `json:"_id"`
		}
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("hit %q: %v", line, err)
		}
		ids = append(ids, string(h.ID))
	}
	return ids
}

// TestMongoRetrieval_MatchesFile runs vsearch and search on the store file
// and on the MongoDB database: the hits (ranked _ids, scores, documents)
// must be the same, byte for byte, and the MongoDB run says on stderr that
// it ranked a bounded exact scan of every document.
func TestMongoRetrieval_MatchesFile(t *testing.T) {
	t.Parallel()
	file, uri := retrievalStores(t)
	cases := []struct {
		args    []string // STORE is replaced; MONGO marks arguments given over MongoDB only
		top     []string // the ranked _ids
		scanned string   // the scan note's count over MongoDB
	}{
		{[]string{"vsearch", "STORE", "notes", "body", "nightly backup schedule", "--k", "3"}, []string{"8", "1", "3"}, "8"},
		{[]string{"vsearch", "STORE", "notes", "body", "backup", "--filter", `{"team":"ops","n":{"$lt":5}}`, "--project", `{"title":1}`}, []string{"1"}, "2"},
		{[]string{"vsearch", "STORE", "notes", "meta.summary", "retired tapes"}, []string{"7"}, "8"},
		{[]string{"vsearch", "STORE", "notes", "body", "compressed logs", "--min-score", "0.2"}, []string{"2"}, "8"},
		{[]string{"search", "STORE", "notes", "backup", "MONGO", "--fields", "title,body"}, []string{"7", "8", "3", "1"}, "8"},
		{[]string{"search", "STORE", "notes", `"backup schedule" -restore`, "--k", "5", "MONGO", "--fields", "title,body"}, []string{"8"}, "8"},
		{[]string{"search", "STORE", "notes", "title:back* logs", "--highlight", "MONGO", "--fields", "title,body"}, []string{"1", "2", "7", "8"}, "8"},
		{[]string{"vsearch", "STORE", "notes", "body", "nightly backup", "--hybrid", "--k", "4", "MONGO", "--fields", "title,body"}, []string{"8", "1", "3", "7"}, "8"},
		{[]string{"search", "STORE", "notes", "backup -tapes", "--hybrid", "--field", "body", "MONGO", "--fields", "title,body"}, []string{"8", "3", "1", "2"}, "8"},
	}
	for _, c := range cases {
		base, extra := c.args, []string(nil)
		if k := indexOf(c.args, "MONGO"); k >= 0 {
			base, extra = c.args[:k], c.args[k+1:]
		}
		fa := append([]string(nil), base...)
		fa[1] = file
		fcode, fout, ferr := runCLI(t, "", fa...)
		ma := append(append([]string(nil), base...), extra...)
		ma[1] = uri
		mcode, mout, merr := runCLI(t, "", ma...)
		name := strings.Join(ma, " ")
		if fcode != 0 || mcode != 0 || fout != mout {
			t.Errorf("omgdb %s:\n file  exit %d: %s%s\n mongo exit %d: %s%s", name, fcode, fout, ferr, mcode, mout, merr)
			continue
		}
		if got := hitIDs(t, mout); strings.Join(got, ",") != strings.Join(c.top, ",") {
			t.Errorf("omgdb %s: ranked %v, want %v\n%s", name, got, c.top, mout)
		}
		want := "note: bounded exact scan: ranked the first " + c.scanned + " document(s) of `notes` in _id order (cap 1000); that is every matching document\n"
		if merr != want {
			t.Errorf("omgdb %s: stderr %q, want %q", name, merr, want)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestMongoRetrieval_Cap scans at most --max-scan documents, the first in
// _id order after the filter, and says when the collection has more.
func TestMongoRetrieval_Cap(t *testing.T) {
	t.Parallel()
	_, uri := retrievalStores(t)
	cases := []struct {
		args []string
		ids  string
		note string
	}{
		{[]string{"vsearch", uri, "notes", "body", "backup", "--max-scan", "3"}, `1,3`,
			"ranked the first 3 document(s) of `notes` in _id order (cap 3); the collection has more documents past the cap, which were not ranked: results may be missing (raise --max-scan or narrow the filter)"},
		{[]string{"vsearch", uri, "notes", "body", "backup", "--max-scan", "8"}, `8,1,3`,
			"ranked the first 8 document(s) of `notes` in _id order (cap 8); that is every matching document"},
		{[]string{"search", uri, "notes", "backup", "--fields", "title,body", "--filter", `{"team":"ops"}`, "--max-scan", "2"}, `1`,
			"ranked the first 2 document(s) of `notes` in _id order (cap 2); the collection has more documents past the cap, which were not ranked: results may be missing (raise --max-scan or narrow the filter)"},
		{[]string{"search", uri, "notes", "backup", "--fields", "title", "--filter", `{"team":"ops"}`, "--max-scan", "5"}, `7,8`,
			"ranked the first 5 document(s) of `notes` in _id order (cap 5); that is every matching document"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, "", c.args...)
		name := strings.Join(c.args[2:], " ")
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		if got := strings.Join(hitIDs(t, stdout), ","); got != c.ids {
			t.Errorf("%s: ranked %s, want %s\n%s", name, got, c.ids, stdout)
		}
		if want := "note: bounded exact scan: " + c.note + "\n"; stderr != want {
			t.Errorf("%s: stderr\n %q\nwant\n %q", name, stderr, want)
		}
	}
}

// TestMongoRetrieval_Context builds the same pack over MongoDB as on the
// file (chunks, citations, omissions), plus the scan it came from.
func TestMongoRetrieval_Context(t *testing.T) {
	t.Parallel()
	file, uri := retrievalStores(t)
	type pack struct {
		Query     string            `json:"query"`
		Budget    int               `json:"budget"`
		Used      int               `json:"used_tokens"`
		Chunks    []json.RawMessage `json:"chunks"`
		Citations []string          `json:"citations"`
		Omitted   []json.RawMessage `json:"omitted"`
		Note      string            `json:"note"`
		Scan      *struct {
			Method  string `json:"method"`
			Order   string `json:"order"`
			Scanned int    `json:"scanned"`
			Cap     int    `json:"cap"`
			More    bool   `json:"more"`
		} `json:"scan"`
	}
	run := func(store string, extra ...string) (pack, string) {
		args := append([]string{"context", store, "notes", "body", "how do I restore a nightly backup", "--budget", "400"}, extra...)
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var p pack
		if err := json.Unmarshal([]byte(stdout), &p); err != nil {
			t.Fatalf("%v: %v: %s", args, err, stdout)
		}
		if p.Used > p.Budget || 4*p.Budget < len([]rune(strings.TrimSpace(stdout))) {
			t.Errorf("%v: pack of %d characters, used_tokens %d, over the budget %d", args, len(stdout), p.Used, p.Budget)
		}
		return p, stderr
	}
	fp, _ := run(file)
	mp, merr := run(uri)
	fj, _ := json.Marshal([]any{fp.Chunks, fp.Citations, fp.Omitted})
	mj, _ := json.Marshal([]any{mp.Chunks, mp.Citations, mp.Omitted})
	if string(fj) != string(mj) {
		t.Errorf("packs differ:\n file  %s\n mongo %s", fj, mj)
	}
	mj0 := mj
	if len(mp.Citations) == 0 || !strings.HasPrefix(mp.Citations[0], "[1] 1 § Backups > Restore") {
		t.Errorf("citations %q, want the Restore section of note 1 first", mp.Citations)
	}
	if mp.Scan == nil || mp.Scan.Method != "bounded exact scan" || mp.Scan.Order != "_id" || mp.Scan.Scanned != 8 || mp.Scan.Cap != 1000 || mp.Scan.More {
		t.Errorf("scan %+v, want 8 of cap 1000, no more", mp.Scan)
	}
	if fp.Scan != nil {
		t.Errorf("a pack from a store file has a scan: %+v", fp.Scan)
	}
	if want := "note: " + mp.Note + "\n"; !strings.HasPrefix(mp.Note, "bounded exact scan: ranked the first 8 document(s)") || merr != want {
		t.Errorf("note %q, stderr %q", mp.Note, merr)
	}
	fh, _ := run(file, "--hybrid")
	mh, _ := run(uri, "--hybrid", "--fields", "title,body")
	fj, _ = json.Marshal([]any{fh.Chunks, fh.Citations, fh.Omitted})
	mj, _ = json.Marshal([]any{mh.Chunks, mh.Citations, mh.Omitted})
	if string(fj) != string(mj) || len(mh.Chunks) == 0 || string(mj) == string(mj0) {
		t.Errorf("hybrid packs differ, or equal the vector ones:\n file  %s\n mongo %s", fj, mj)
	}
	cp, _ := run(uri, "--max-scan", "2", "--filter", `{"team":"ops"}`)
	if cp.Scan == nil || cp.Scan.Scanned != 2 || cp.Scan.Cap != 2 || !cp.Scan.More {
		t.Errorf("capped scan %+v, want 2 of cap 2, more", cp.Scan)
	}
	for _, c := range cp.Citations {
		if id := strings.Fields(c)[1]; id != "1" && id != "2" {
			t.Errorf("capped pack cites %q, outside the first two ops notes", c)
		}
	}
	if len(cp.Citations) == 0 {
		t.Errorf("capped pack cites nothing")
	}
}

// TestMongoRetrieval_Refusals: what does not run over MongoDB, or only
// there, is refused before anything is read, with its exit code and hint.
func TestMongoRetrieval_Refusals(t *testing.T) {
	t.Parallel()
	file, uri := retrievalStores(t)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"vsearch", uri, "notes", "body", "x", "--hybrid"}, 64, "a hybrid ranking over MongoDB needs the fields BM25 ranks"},
		{[]string{"vsearch", uri, "notes", "body", "x", "--fields", "title"}, 64, "fields are ranked by BM25 only in a hybrid ranking"},
		{[]string{"vsearch", uri, "notes", "body", "x", "--index", "v"}, 64, "--index does not work over MongoDB yet"},
		{[]string{"vsearch", uri, "notes", "body", "x", "--max-scan", "0"}, 64, "--max-scan must be between 1 and 10000"},
		{[]string{"vsearch", uri, "notes", "body", "x", "--max-scan", "10001"}, 64, "--max-scan must be between 1 and 10000"},
		{[]string{"vsearch", uri, "notes", "$body", "x"}, 65, `invalid field path "$body"`},
		{[]string{"vsearch", uri, "notes", "body", "x", "--filter", `{"a":{"$gtt":1}}`}, 65, "unknown query operator: $gtt"},
		{[]string{"vsearch", uri, "nots", "body", "x"}, 66, "did you mean `notes`?"},
		{[]string{"search", uri, "notes", "x"}, 64, "search over MongoDB needs --fields"},
		{[]string{"search", uri, "notes", "x", "--fields", "body", "--hybrid"}, 64, "search --hybrid over MongoDB needs --field"},
		{[]string{"search", uri, "notes", "x", "--fields", "body", "--field", "body"}, 64, "search --hybrid over MongoDB needs --field"},
		{[]string{"search", uri, "notes", "x", "--fields", "body", "--analyzer", "fr"}, 65, `unknown analyzer "fr"`},
		{[]string{"search", uri, "notes", "x", "--fields", "$a"}, 65, `invalid field path "$a"`},
		{[]string{"search", uri, "notes", "title:backup", "--fields", "body"}, 65, `field "title" is not among the fields searched`},
		{[]string{"search", uri, "notes", "x", "--fields", "title", "--k", "0"}, 64, "--k must be between 1 and"},
		{[]string{"context", uri, "notes", "body", "x", "--hybrid"}, 64, "a hybrid ranking over MongoDB needs the fields BM25 ranks"},
		{[]string{"context", uri, "notes", "body", "x", "--fields", "body"}, 64, "fields are ranked by BM25 only in a hybrid ranking"},
		{[]string{"context", file, "notes", "body", "x", "--fields", "body"}, 64, "--fields applies only over MongoDB"},
		{[]string{"context", uri, "notes", "body", "x", "--budget", "5"}, 64, "cannot hold a pack"},
		{[]string{"create-vector-index", uri, "notes", "body"}, 64, "omgdb keeps no vector or search index there"},
		{[]string{"create-search-index", uri, "notes", "body"}, 64, "omgdb keeps no vector or search index there"},
		{[]string{"reindex", uri, "notes"}, 64, "omgdb keeps no vector or search index there"},
		{[]string{"vsearch", file, "notes", "body", "x", "--max-scan", "5"}, 64, "--max-scan applies only over MongoDB"},
		{[]string{"search", file, "notes", "x", "--fields", "body"}, 64, "--fields applies only over MongoDB"},
		{[]string{"context", file, "notes", "body", "x", "--max-scan", "5"}, 64, "--max-scan applies only over MongoDB"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(t, "", c.args...)
		if code != c.code || stdout != "" || !strings.Contains(stderr, c.msg) || !strings.Contains(stderr, "\nhint: ") {
			t.Errorf("omgdb %s:\n exit %d, stdout %q, stderr %q\n want exit %d and %q with a hint", strings.Join(c.args, " "), code, stdout, stderr, c.code, c.msg)
		}
	}
}

// TestMongoRetrieval_CollectionName searches a collection whose name a
// store file would refuse.
func TestMongoRetrieval_CollectionName(t *testing.T) {
	t.Parallel()
	s := mongotest.Own(t)
	mongotest.Insert(t, mongotest.Client(t, s.URI), "app", "my notés", retrievalNotes[:3]...)
	code, stdout, stderr := runCLI(t, "", "search", s.URI+"app", "my notés", "backup", "--fields", "body")
	if code != 0 || strings.Join(hitIDs(t, stdout), ",") != "3,1" || !strings.Contains(stderr, "of `my notés` in _id order") {
		t.Errorf("exit %d, stdout %q, stderr %q; want hits 3,1", code, stdout, stderr)
	}
}
