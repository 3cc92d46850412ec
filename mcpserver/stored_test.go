package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestFind_DocumentsAsStored: a find's page keeps a document as the bytes
// it is stored as when nothing changes it, and decodes it when a
// projection or redaction changes it or when it is long enough to hold a
// string over --max-string; the result is the same JSON either way.
func TestFind_DocumentsAsStored(t *testing.T) {
	f := newFixture(t, Config{MaxString: 40, Redact: []string{"r.secret"}})
	long := strings.Repeat("x", 50)
	makeStore(t, filepath.Join(f.root, "app.omgdb"), map[string][]string{
		"c": {`{"_id":1,"s":"short","n":2.5}`, `{"_id":2,"s":"` + long + `"}`},
		"r": {`{"_id":1,"secret":"x","s":"ok"}`},
	})
	cut := `{"_id":2,"s":"` + long[:40] + `…[10 more characters cut by --max-string]"}`
	for _, tc := range []struct {
		coll, project string
		want          []string
		stored        []bool
	}{
		{"c", "", []string{`{"_id":1,"s":"short","n":2.5}`, cut}, []bool{true, false}},
		{"c", `{"s":1}`, []string{`{"_id":1,"s":"short"}`, cut}, []bool{false, false}},
		{"r", "", []string{`{"_id":1,"s":"ok"}`}, []bool{false}},
	} {
		fq := findQuery{coll: tc.coll}
		if tc.project != "" {
			fq.project, _ = query.CompileProjection(value.MustParse(tc.project))
		}
		c := &call{srv: f.srv, sess: f.sess, tool: f.srv.known["find"], args: obj("path", "app.omgdb")}
		err := c.view(tc.coll, func(_ *store.Tx, col *store.Collection) error {
			src := projected(context.Background(), c.scan(context.Background(), col, store.Query{}), fq)
			defer src.Close()
			pg, err := c.readPage(context.Background(), src, 0, 10)
			if err != nil {
				return err
			}
			for i, js := range pg.js {
				if string(js) != tc.want[i] || pg.docs[i].IsMissing() != tc.stored[i] {
					t.Errorf("%s %s: document %d is %s (kept as stored: %v), want %s (%v)",
						tc.coll, tc.project, i, js, pg.docs[i].IsMissing(), tc.want[i], tc.stored[i])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
