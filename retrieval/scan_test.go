package retrieval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/retrieval"
	"github.com/omgdb/omgdb/store"
	"github.com/omgdb/omgdb/vector"
)

// docs have text in body, a redacted-to-be field (secret) and numbers of
// several types.
var docs = []string{
	`{"_id":1,"body":"The nightly backup runs at two.","secret":"zebra","n":1}`,
	`{"_id":2,"body":"Rotate the logs weekly.","secret":"zebra zebra","n":{"$numberLong":"2"}}`,
	`{"_id":3,"body":["Backup tapes.","Old tapes go offsite."],"n":2.5}`,
	`{"_id":4,"body":null,"n":null}`,
	`{"_id":5}`,
}

// open returns an engine over a store file holding docs in notes, and
// sets $TMPDIR to a directory of the test's own, returned, so that the
// scratch stores can be seen.
func open(t *testing.T) (*store.DB, engine.Reader, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "app.omgdb")
	storetest.Create(t, path, map[string][]string{"notes": docs})
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return db, engine.NewFile(db), tmp
}

func ids(res *vector.Result) string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID.String())
	}
	return strings.Join(out, ",")
}

// TestVectorSearch_SameAsFile: the scan gives the hits and scores of the
// file's own exact search, and leaves no scratch store behind.
func TestVectorSearch_SameAsFile(t *testing.T) {
	db, r, tmp := open(t)
	ctx := context.Background()
	var want *vector.Result
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("notes")
		if err == nil {
			want, err = vector.VectorSearch(ctx, c, "body", "nightly backup tapes", nil)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, scan, err := retrieval.VectorSearch(ctx, r, "notes", "body", "nightly backup tapes", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != ids(want) || ids(got) != "1,3,2" || len(got.Hits) != len(want.Hits) {
		t.Fatalf("hits %s, want %s (the file's) and 1,3,2", ids(got), ids(want))
	}
	for i := range got.Hits {
		if got.Hits[i].Score != want.Hits[i].Score || !value.Equal(got.Hits[i].Doc, want.Hits[i].Doc) {
			t.Errorf("hit %d: %v %v, want %v %v", i, got.Hits[i].Score, got.Hits[i].Doc, want.Hits[i].Score, want.Hits[i].Doc)
		}
	}
	if scan != (retrieval.Scan{Scanned: 5, Cap: retrieval.DefaultMaxScan}) {
		t.Errorf("scan %+v", scan)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the scan left %v in $TMPDIR", left)
	}
}

// TestScan_CapAndFilter: the first MaxScan documents in _id order after
// the filter, and whether there were more.
func TestScan_CapAndFilter(t *testing.T) {
	_, r, _ := open(t)
	ctx := context.Background()
	for _, c := range []struct {
		filter string
		max    int
		want   retrieval.Scan
		hits   string
	}{
		{`{}`, 2, retrieval.Scan{Scanned: 2, Cap: 2, More: true}, "1"},
		{`{}`, 5, retrieval.Scan{Scanned: 5, Cap: 5}, "1,3"},
		{`{"n":{"$gte":2}}`, 1, retrieval.Scan{Scanned: 1, Cap: 1, More: true}, ""},
		{`{"n":{"$gte":2}}`, 2, retrieval.Scan{Scanned: 2, Cap: 2}, "3"},
		{`{"n":null}`, 10, retrieval.Scan{Scanned: 2, Cap: 10}, ""},
	} {
		f, _ := value.Parse([]byte(c.filter))
		res, scan, err := retrieval.VectorSearch(ctx, r, "notes", "body", "backup", &retrieval.Options{Filter: f, MaxScan: c.max})
		if err != nil {
			t.Fatalf("%s max %d: %v", c.filter, c.max, err)
		}
		if scan != c.want || ids(res) != c.hits {
			t.Errorf("%s max %d: scan %+v hits %s, want %+v %s", c.filter, c.max, scan, ids(res), c.want, c.hits)
		}
		if !strings.Contains(res.Note, "results may be missing") != !c.want.More {
			t.Errorf("%s max %d: note %q", c.filter, c.max, res.Note)
		}
	}
}

// TestScan_Redacted: read through engine.Redacting, a redacted field is
// neither searched nor matched by a filter nor returned.
func TestScan_Redacted(t *testing.T) {
	_, r, _ := open(t)
	red := engine.Redacting(r, func(string) []string { return []string{"secret"} })
	ctx := context.Background()
	res, _, err := retrieval.TextSearch(ctx, red, "notes", "zebra", &retrieval.Options{Fields: []string{"body", "secret"}})
	if err != nil || len(res.Hits) != 0 {
		t.Fatalf("a search of the redacted field found %v (%v)", res, err)
	}
	plain, _, _ := retrieval.TextSearch(ctx, r, "notes", "zebra", &retrieval.Options{Fields: []string{"body", "secret"}})
	if ids(plain) != "2,1" {
		t.Fatalf("without redaction the probe finds %s, want 2,1: the test proves nothing", ids(plain))
	}
	f, _ := value.Parse([]byte(`{"secret":"zebra"}`))
	_, scan, err := retrieval.VectorSearch(ctx, red, "notes", "body", "backup", &retrieval.Options{Filter: f})
	if err != nil || scan.Scanned != 0 {
		t.Errorf("a filter on the redacted field scanned %d (%v)", scan.Scanned, err)
	}
	all, _, err := retrieval.VectorSearch(ctx, red, "notes", "body", "backup", nil)
	for _, h := range all.Hits {
		if !h.Doc.Get("secret").IsMissing() {
			t.Errorf("hit %v holds the redacted field (%v)", h.Doc, err)
		}
	}
}

// TestTextSearch_BM25 ranks by BM25 over the fields, as a store file's
// search index does, and rewords an unknown field's error.
func TestTextSearch_BM25(t *testing.T) {
	_, r, _ := open(t)
	ctx := context.Background()
	res, _, err := retrieval.TextSearch(ctx, r, "notes", "backup tapes", &retrieval.Options{Fields: []string{"body"}, Highlight: true})
	if err != nil || ids(res) != "3,1" || res.Hits[0].Score <= res.Hits[1].Score || res.Index != "" {
		t.Fatalf("hits %v (%v)", res, err)
	}
	if hl := res.Hits[0].Highlights.Get("body"); hl.IsMissing() || !strings.Contains(hl.String(), "<mark>tapes</mark>") {
		t.Errorf("highlights %v", res.Hits[0].Highlights)
	}
	en, _, _ := retrieval.TextSearch(ctx, r, "notes", "rotating", &retrieval.Options{Fields: []string{"body"}, Analyzer: "en"})
	std, _, _ := retrieval.TextSearch(ctx, r, "notes", "rotating", &retrieval.Options{Fields: []string{"body"}})
	if ids(en) != "2" || ids(std) != "" {
		t.Errorf("stemming: en %s, standard %s; want 2 and none", ids(en), ids(std))
	}
	_, _, err = retrieval.TextSearch(ctx, r, "notes", "title:x", &retrieval.Options{Fields: []string{"body"}})
	if err == nil || err.Error() != `field "title" is not among the fields searched` || !strings.Contains(errs.HintOf(err), "--fields") {
		t.Errorf("unknown field: %v (hint %q)", err, errs.HintOf(err))
	}
}

// TestPack_Scan: the pack carries the scan and its note within the budget.
func TestPack_Scan(t *testing.T) {
	_, r, _ := open(t)
	pack, scan, err := retrieval.Pack(context.Background(), r, "notes", "body", "nightly backup", &retrieval.Options{Budget: 200, MaxScan: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !value.Equal(pack.Get("scan"), scan.Value()) || scan != (retrieval.Scan{Scanned: 3, Cap: 3, More: true}) ||
		pack.Get("note").Str() != scan.Note("notes") {
		t.Errorf("pack %v, scan %+v", pack, scan)
	}
	if n := len([]rune(string(value.AppendJSON(nil, pack)))); n > 4*200 || pack.Get("used_tokens").Long() > 200 {
		t.Errorf("pack of %d characters over a budget of 200 tokens: %s", n, value.AppendJSON(nil, pack))
	}
	if c := pack.Get("chunks").Array(); len(c) == 0 || c[0].Get("_id").Long() != 1 {
		t.Errorf("chunks %v", pack.Get("chunks"))
	}
}

// reads counts the finds of a Reader.
type reads struct {
	engine.Reader
	n int
}

func (r *reads) Find(ctx context.Context, coll string, q *engine.Find, each func(value.Value) error) error {
	r.n++
	return r.Reader.Find(ctx, coll, q, each)
}

// TestErrors: bad options are refused before anything is read.
func TestErrors(t *testing.T) {
	_, file, _ := open(t)
	r := &reads{Reader: file}
	ctx := context.Background()
	bad, _ := value.Parse([]byte(`{"n":{"$gtt":1}}`))
	for _, c := range []struct {
		run  func() error
		kind errs.Kind
		msg  string
	}{
		{func() error {
			_, _, err := retrieval.VectorSearch(ctx, r, "notes", "body", "x", &retrieval.Options{MaxScan: retrieval.MaxScan + 1})
			return err
		},
			errs.Limit, "outside the limits (1 to 10000)"},
		{func() error { _, _, err := retrieval.VectorSearch(ctx, r, "notes", "$body", "x", nil); return err }, errs.Invalid, `invalid field path "$body"`},
		{func() error {
			_, _, err := retrieval.VectorSearch(ctx, r, "notes", "body", "x", &retrieval.Options{Filter: bad})
			return err
		},
			errs.Invalid, "$gtt"},
		{func() error { _, _, err := retrieval.VectorSearch(ctx, r, "note", "body", "x", nil); return err }, errs.NotFound, "`note`"},
		{func() error { _, _, err := retrieval.TextSearch(ctx, r, "notes", "x", nil); return err }, errs.Usage, "needs the fields"},
		{func() error {
			_, _, err := retrieval.TextSearch(ctx, r, "notes", "x", &retrieval.Options{Fields: []string{"body"}, Analyzer: "fr"})
			return err
		}, errs.Invalid, `unknown analyzer "fr"`},
		{func() error {
			_, _, err := retrieval.Pack(ctx, r, "notes", "body", "x", &retrieval.Options{Budget: 3})
			return err
		}, errs.Usage, "cannot hold a pack"},
	} {
		r.n = 0
		err := c.run()
		if r.n != 0 && errs.KindOf(err) != errs.NotFound && !strings.Contains(err.Error(), "cannot hold a pack") {
			t.Errorf("%v: refused after %d read(s)", err, r.n)
		}
		if err == nil || errs.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.msg) || errs.HintOf(err) == "" {
			t.Errorf("error %v (kind %v, hint %q), want kind %v with %q and a hint", err, errs.KindOf(err), errs.HintOf(err), c.kind, c.msg)
		}
	}
}

// oddReader serves one document a store file cannot hold (a field name
// with a dot, which MongoDB 5 and later store).
type oddReader struct{ engine.Reader }

func (oddReader) Find(_ context.Context, _ string, _ *engine.Find, each func(value.Value) error) error {
	if err := each(value.ObjectValue([]value.Field{{Key: "_id", Value: value.IntValue(1)}, {Key: "body", Value: value.StringValue("backup")}})); err != nil {
		return err
	}
	return each(value.ObjectValue([]value.Field{{Key: "_id", Value: value.IntValue(7)}, {Key: "a.b", Value: value.StringValue("backup")}}))
}

// TestScan_Unrankable names a document the scratch store refuses.
func TestScan_Unrankable(t *testing.T) {
	_, _, err := retrieval.VectorSearch(context.Background(), oddReader{}, "notes", "body", "backup", nil)
	if err == nil || errs.KindOf(err) != errs.Invalid || !strings.HasPrefix(err.Error(), "document 7 of `notes` cannot be ranked: ") ||
		!strings.Contains(errs.HintOf(err), "filter") {
		t.Errorf("error %v (hint %q)", err, errs.HintOf(err))
	}
}
