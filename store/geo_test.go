package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/golden"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestGeo_Golden runs the scripts in testdata/geo: geospatial queries
// through a store, with and without 2dsphere indexes. Each script is a
// series of blocks: a command line, argument lines, a "----" line and the
// expected output up to a blank line; '#' lines between blocks are
// comments (each case names the jstests file it is ported from).
// Commands, all on the collection "c" of a fresh store per file:
//
//	insert          each argument line (a document) is inserted in its own
//	                transaction: "ok", or the error
//	index <pattern> creates an index from a key pattern ({"loc":"2dsphere"})
//	drop-index <n>  drops the index named n
//	ids <filter>    the _id of the matching documents in result order
//	                (argument lines "skip N" and "limit N" page them); a
//	                filter without $near is also run as a collection scan,
//	                which must give the same documents
//	find <filter>   the matching documents
//	count <filter>  the number of matching documents
//	agg <pipeline>  the pipeline's output documents
//	explain <filter> the winning plan's stages, outermost first
//	suggest <filter> the notes of suggest-indexes
//
// A failure prints "error: <message>" and "hint: <hint>". Run with
// -update to rewrite the expected output, and review the diff.
func TestGeo_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/geo/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			runGeoScript(t, path)
		})
	}
}

func runGeoScript(t *testing.T, path string) {
	db := storetest.MustOpen(t)
	golden.Run(t, path, *update, func(b golden.Block) []string {
		out := runGeoBlock(t, db, b)
		for i := range out {
			out[i] = strings.ReplaceAll(out[i], db.Path(), "STORE")
		}
		return out
	})
}

func geoErr(err error) []string {
	out := []string{"error: " + err.Error()}
	if h := errs.HintOf(err); h != "" {
		out = append(out, "hint: "+h)
	}
	return out
}

func runGeoBlock(t *testing.T, db *store.DB, b golden.Block) []string {
	cmd, arg, _ := strings.Cut(b.Command, " ")
	ctx := context.Background()
	switch cmd {
	case "insert":
		var out []string
		for _, a := range b.Args {
			err := db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
				c, err := tx.CreateCollection("c")
				if err != nil {
					return err
				}
				_, err = c.Insert(value.MustParse(a))
				return err
			})
			if err != nil {
				out = append(out, geoErr(err)...)
			} else {
				out = append(out, "ok")
			}
		}
		return out
	case "index", "drop-index":
		err := db.Update(store.Change{Kind: cmd}, func(tx *store.Tx) error {
			c, err := tx.CreateCollection("c")
			if err != nil {
				return err
			}
			if cmd == "drop-index" {
				return c.DropIndex(arg)
			}
			fields, err := store.ParseKeyPattern(arg)
			if err != nil {
				return err
			}
			_, err = c.CreateIndex(store.BTreeIndex("", store.BTreeSpec{Fields: fields}))
			return err
		})
		if err != nil {
			return geoErr(err)
		}
		return []string{"ok"}
	}
	var out []string
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		out, err = geoRead(ctx, c, cmd, arg, b.Args)
		return err
	})
	if err != nil {
		return geoErr(err)
	}
	return out
}

func geoRead(ctx context.Context, c *store.Collection, cmd, arg string, args []string) ([]string, error) {
	spec, err := value.ParseString(arg)
	if err != nil {
		return nil, err
	}
	if cmd == "agg" {
		p, err := agg.CompilePipeline(spec, nil)
		if err != nil {
			return nil, err
		}
		return drainGeo(c.Aggregate(ctx, p, nil), false)
	}
	f, err := query.CompileFilter(spec)
	if err != nil {
		return nil, err
	}
	switch cmd {
	case "count":
		n, err := c.CountQuery(ctx, store.Query{Filter: f})
		return []string{fmt.Sprint(n)}, err
	case "suggest":
		sg, err := c.SuggestIndexes(ctx, store.Query{Filter: f})
		if err != nil {
			return nil, err
		}
		return sg.Notes, nil
	case "explain":
		plan, err := c.Explain(ctx, store.Query{Filter: f}, nil)
		if err != nil {
			return nil, err
		}
		var stages []string
		for v := plan.Get("winningPlan"); !v.IsMissing(); v = v.Get("inputStage") {
			s := v.Get("stage").Str()
			if name := v.Get("indexName"); !name.IsMissing() {
				s += " " + name.Str()
			}
			stages = append(stages, s)
		}
		return []string{strings.Join(stages, " < ")}, nil
	}
	q := store.Query{Filter: f}
	for _, a := range args {
		if n, ok := strings.CutPrefix(a, "skip "); ok {
			fmt.Sscan(n, &q.Skip)
		} else if n, ok := strings.CutPrefix(a, "limit "); ok {
			fmt.Sscan(n, &q.Limit)
		}
	}
	got, err := drainGeo(c.Find(ctx, q), cmd == "ids")
	if err != nil || cmd != "ids" {
		return got, err
	}
	if _, n := f.Near(); n != nil {
		return got, nil
	}
	// Every index that can answer the filter, and a collection scan, must
	// give the planner's result.
	hints := []string{"$natural"}
	for _, def := range c.Indexes() {
		hints = append(hints, def.Name)
	}
	for _, h := range hints {
		other, err := drainGeo(c.Find(ctx, store.Query{Filter: f, Hint: h, Skip: q.Skip, Limit: q.Limit}), true)
		if err != nil {
			continue // the index cannot answer this filter
		}
		if strings.Join(other, " ") != strings.Join(got, " ") {
			return nil, fmt.Errorf("the planner's result %v differs from the result %v with hint %s", got, other, h)
		}
	}
	return got, nil
}

func drainGeo(src agg.Source, ids bool) ([]string, error) {
	defer src.Close()
	var out, idList []string
	for src.Next() {
		d := src.Doc()
		out = append(out, d.String())
		idList = append(idList, d.Get("_id").String())
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	if !ids {
		return out, nil
	}
	if len(idList) == 0 {
		return []string{"(none)"}, nil
	}
	return []string{strings.Join(idList, " ")}, nil
}
