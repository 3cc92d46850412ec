package mcpserver

import (
	"context"
	"strings"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/store"
)

func (s *Server) suggestIndexesTool() *tool {
	return &tool{
		Name: "suggest_indexes", Title: "Suggest indexes", Scope: ScopeRead, ReadOnly: true, Idempotent: true,
		Description: sentence("Indexes that would serve a find, with the documents each would read against today's plan. Example:",
			s.example("collection", "users", "filter", obj("city", "Lima"))),
		Params: []param{s.pathParam(), collectionParam, filterParam, sortParam},
		Output: outputSchema([]string{"suggestions"}, "documents", tInt(), "current", tObj(), "suggestions", tList(), "notes", tArr(tStr())),
		Run:    runSuggestIndexes,
	}
}

// sortParam is a find's sort.
var sortParam = param{Name: "sort", Type: "object", Description: "e.g. {\"age\":-1}."}

// filterSort compiles the filter and sort arguments as a query.
func (c *call) filterSort() (store.Query, error) { return c.filterSortCollation(nil) }

// filterSortCollation is filterSort comparing strings by coll (nil:
// binary).
func (c *call) filterSortCollation(coll *collation.Collation) (store.Query, error) {
	filter, err := compileFilterColl(c.value("filter"), coll)
	if err != nil {
		return store.Query{}, err
	}
	q := store.Query{Filter: filter}
	if v := c.value("sort"); !v.IsMissing() {
		if q.Sort, err = query.CompileSortCollation(v, coll); err != nil {
			return q, argError(err, "sort")
		}
	}
	return q, nil
}

func runSuggestIndexes(ctx context.Context, c *call) (*output, error) {
	q, err := c.filterSort()
	if err != nil {
		return nil, err
	}
	coll := c.str("collection")
	var out *output
	err = c.view(coll, func(_ *store.Tx, col *store.Collection) error {
		// Its per-predicate estimates read documents unredacted: they
		// would count redacted values.
		if c.redactor(coll) != nil {
			return errorf(CodePolicyDenied, "suggest_indexes is not available on `%s`: this server redacts fields of it, and the estimates read every field", coll).
				withHint("use explain to see the plan, and list_indexes for the indexes").withNext("explain", "list_indexes").withContext("collection", coll)
		}
		sug, err := col.SuggestIndexes(ctx, q)
		if err != nil {
			return err
		}
		// The commands name the store as it was opened (a /proc/self/fd
		// link): name it as the agent did.
		r := strings.NewReplacer(append(c.rewrites, col.Tx().DB().Path(), shellWord(c.storePath()))...)
		for i := range sug.Suggestions {
			sug.Suggestions[i].Command = r.Replace(sug.Suggestions[i].Command)
		}
		v, err := jsonValue(sug)
		if err != nil {
			return err
		}
		out = newOutput(v.Without("filter").Without("sort"))
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.fence = "index suggestions for `" + coll + "`"
	return out, nil
}

// shellWord quotes a path for a shell command when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
