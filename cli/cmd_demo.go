package cli

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/docs"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

//go:embed demo/languages.ndjson
var demoLanguages []byte

func init() { commands = append(commands, command{"demo", newDemoCmd}) }

type demoOptions struct {
	dir  string
	keep bool
}

func newDemoCmd(e *env) *cobra.Command {
	opts := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Build a sample store from data shipped in the binary and tour the commands",
		Long: `Build a store in a temporary directory from two embedded datasets (26
programming languages, and the pages of this manual), then run a tour of
commands against it (queries, the journal, full-text and vector search,
a context pack), printing each command and what it prints into a pipe,
shortened with "…" where long. The store is removed at the end unless
--keep or --dir is given.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return e.runDemo(cmd.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.dir, "dir", "", "build the store in this directory (default: a temporary one)")
	cmd.Flags().BoolVar(&opts.keep, "keep", false, "keep the store after the tour")
	return cmd
}

// demoStep is one command of the tour, with a sentence about it. The tour
// prints what the command prints into a pipe, shortened with a visible
// "…": lines past demoWidth, lines past the step's limit.
type demoStep struct {
	say   string
	args  []string // "{key}" is replaced by a value saved by an earlier step
	in    []byte   // standard input
	save  string   // remember this key of the step's JSON output as "{key}"
	grep  string   // show only the lines holding this string, as "| grep -F" would
	lines int      // show at most this many lines (default demoLines)
}

// demoWidth and demoLines bound what the tour shows of a step's output.
const (
	demoWidth = 160
	demoLines = 12
)

func (e *env) runDemo(ctx context.Context, opts *demoOptions) error {
	dir := opts.dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "omgdb-demo-")
		if err != nil {
			return errs.Errorf(errs.IO, "create a temporary directory: %v", err)
		}
		dir = tmp
		if !opts.keep {
			defer os.RemoveAll(tmp)
		}
	}
	st := "demo.omgdb"
	if _, err := os.Stat(filepath.Join(dir, st)); err == nil {
		return errs.Errorf(errs.Conflict, "%s already exists in %s", st, dir).WithHint("pass another --dir, or remove the file")
	}
	// The tour runs in the store's directory so that commands read as a
	// user would type them.
	wd, err := os.Getwd()
	if err != nil {
		return errs.Errorf(errs.IO, "find the working directory: %v", err)
	}
	if err := os.Chdir(dir); err != nil {
		return errs.Errorf(errs.IO, "enter %s: %v", dir, err)
	}
	defer os.Chdir(wd)
	fmt.Fprintf(e.stdout, "omgdb demo: building a store in %s\n", dir)
	saved := map[string]string{}
	for _, s := range demoSteps(st) {
		if err := e.demoRun(ctx, s, saved); err != nil {
			return err
		}
	}
	if opts.keep || opts.dir != "" {
		kept := filepath.Join(dir, st)
		fmt.Fprintf(e.stdout, "\nThe store is kept at %s. Try: omgdb find %s languages '{\"origin.country\":\"US\"}'\n", kept, kept)
	} else {
		fmt.Fprintf(e.stdout, "\nThe store was removed with its temporary directory; run omgdb demo --keep (or --dir DIR) to keep it and try the commands yourself.\n")
	}
	return nil
}

func demoSteps(st string) []demoStep {
	return []demoStep{
		{say: "Import 26 programming languages from NDJSON (the store file is created on first write).",
			args: []string{"import", st, "languages", "-"}, in: demoLanguages},
		{say: "Find languages by a nested field; into a pipe results are NDJSON in relaxed Extended JSON (on a terminal, indented as mongosh prints them).",
			args: []string{"find", st, "languages", `{"origin.country":"UK"}`}},
		{say: "Equality on an array field matches any element (multikey).",
			args: []string{"find", st, "languages", `{"paradigms":"concurrent"}`, "--limit", "2"}},
		{say: "null matches a null field and a missing one alike, as in MongoDB.",
			args: []string{"count", st, "languages", `{"origin.country":null}`}},
		{say: "Find with operators, sort and projection, as in MongoDB.",
			args: []string{"find", st, "languages", `{"year":{"$gte":2000},"typing":"static"}`, "--sort", `{"year":-1}`, "--project", `{"name":1,"year":1,"_id":0}`, "--limit", "3"}},
		{say: "--format table lays documents out in columns (also json, csv, and shell: mongosh's style).",
			args: []string{"find", st, "languages", `{"typing":"dynamic"}`, "--project", `{"name":1,"year":1,"origin":1}`, "--sort", `{"year":1}`, "--limit", "4", "--format", "table"}},
		{say: "Aggregate: the most common paradigms, with the average year of their languages.",
			args: []string{"aggregate", st, "languages", `[{"$unwind":"$paradigms"},{"$group":{"_id":"$paradigms","languages":{"$sum":1},"avgYear":{"$avg":"$year"}}},{"$sort":{"languages":-1,"_id":1}},{"$limit":3}]`}},
		{say: "Fetch one document by _id.",
			args: []string{"get", st, "languages", "go"}},
		{say: "Insert a document; omgdb generates an ObjectId and prints it.",
			args: []string{"insert", st, "languages", `{"name":"Gleam","year":2016,"typing":"static"}`}},
		{say: "A typo in a collection name is an error with a suggestion, never an empty result.",
			args: []string{"count", st, "langauges"}},
		{say: "Plan an update as a dry run: nothing is written; the plan is stored under a token.",
			args: []string{"plan-update", st, "languages", `{"year":{"$lt":1960}}`, `{"$set":{"classic":true}}`, "--sample", "1"}, save: "token"},
		{say: "Review every document the plan would change.",
			args: []string{"plans", "show", st, "{token}", "--diff"}},
		{say: "Apply it by its token, in one transaction; the token becomes the change id.",
			args: []string{"apply", st, "{token}"}},
		{say: "Roll it back: every before-image returns; the rollback is itself a change.",
			args: []string{"rollback", st, "{token}"}},
		{say: "History lists every change, newest first, with its status.",
			args: []string{"history", st, "--limit", "3"}},
		{say: "Every write is in the journal, with before-images, for history and undo.",
			args: []string{"log", st, "--since", "3"}},
		{say: "Import this manual's pages as documents, one per topic.",
			args: []string{"import", st, "manual", "-"}, in: manualNDJSON()},
		{say: "Full-text search: a BM25 index over the manual, kept current on every write.",
			args: []string{"create-search-index", st, "manual", "title,body", "--analyzer", "en"}},
		{say: "Search with bleve's query syntax: phrases, +required, -excluded, prefix*, fuzzy~1.",
			args: []string{"search", st, "manual", `"reads never create" journal`, "--k", "3", "--project", `{"title":1}`}},
		{say: "A vector index embeds each page offline with the hashing embedder (no model download).",
			args: []string{"create-vector-index", st, "manual", "body"}},
		{say: "Vector search: exact cosine top-k over the embeddings; character trigrams tolerate typos.",
			args: []string{"vsearch", st, "manual", "body", "exit code when the store is locked by another proces", "--k", "3", "--project", `{"title":1}`}},
		{say: "Hybrid: BM25 and vector rankings fused (reciprocal rank fusion).",
			args: []string{"vsearch", st, "manual", "body", "exit code when the store is locked by another proces", "--k", "3", "--project", `{"title":1}`, "--hybrid"}},
		{say: "A context pack for an agent: the best chunks within a token budget, cited, omissions listed.",
			args: []string{"context", st, "manual", "body", "what happens when the store is busy", "--budget", "300", "--hybrid"}},
		{say: "Index a field; explain shows the planner choosing it over a collection scan.",
			args: []string{"create-index", st, "languages", "year"}},
		{say: "",
			args: []string{"explain", st, "languages", `{"year":{"$gte":2010}}`, "--pretty"}, lines: 45},
		{say: "The MCP server an untrusted agent gets by default (read scope): no tool can write.",
			args: []string{"mcp", "--list-tools"}, grep: `"name": "`, lines: 20},
		{say: "With --scope read-write, write tools are added: every write is planned, applied and reversible.",
			args: []string{"mcp", "--list-tools", "--scope", "read-write"}, grep: `"name": "`, lines: 30},
		{say: "What the store holds.",
			args: []string{"inspect", st}},
		{say: "Check pages, checksums, counts, and that the journal accounts for every document.",
			args: []string{"verify", st}},
	}
}

// demoRun prints a step, runs it in this process, and prints its output.
// A step that is meant to fail shows its error like a shell would.
func (e *env) demoRun(ctx context.Context, s demoStep, saved map[string]string) error {
	shown := make([]string, len(s.args))
	for i, a := range s.args {
		for k, v := range saved {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		s.args[i], shown[i] = a, shellQuote(a)
	}
	if s.say != "" {
		fmt.Fprintf(e.stdout, "\n# %s\n", s.say)
	}
	pipe := ""
	if s.grep != "" {
		pipe = " | grep -F " + shellQuote(s.grep)
	}
	fmt.Fprintf(e.stdout, "$ omgdb %s%s\n", strings.Join(shown, " "), pipe)
	if s.in != nil {
		fmt.Fprintf(e.stdout, "  (%d lines on stdin)\n", bytes.Count(s.in, []byte("\n")))
	}
	var out bytes.Buffer
	code := Main(s.args, bytes.NewReader(s.in), &out, &out)
	if s.save != "" {
		var res map[string]any
		json.Unmarshal(out.Bytes(), &res)
		saved[s.save], _ = res[s.save].(string)
	}
	fmt.Fprint(e.stdout, demoShorten(out.String(), s.grep, cmp.Or(s.lines, demoLines)))
	if code != 0 && code != ExitNotFound {
		return errs.Errorf(errs.IO, "demo step omgdb %s failed with exit code %d", s.args[0], code)
	}
	return ctx.Err()
}

// demoShorten returns the lines of out that hold grep (all when it is
// empty), at most max of them and each at most demoWidth wide, with "…"
// where something was left out.
func demoShorten(out, grep string, max int) string {
	var b strings.Builder
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if grep != "" && !strings.Contains(line, grep) {
			continue
		}
		if n++; n <= max {
			b.WriteString(runewidth.Truncate(line, demoWidth, "…") + "\n")
		}
	}
	if n > max {
		fmt.Fprintf(&b, "… (%d more lines)\n", n-max)
	}
	return b.String()
}

// manualNDJSON returns the manual's pages as documents {_id, title, body}.
func manualNDJSON() []byte {
	var b []byte
	for _, t := range docs.Topics() {
		text, _ := docs.Read(t)
		doc := value.ObjectValue([]value.Field{
			{Key: "_id", Value: value.StringValue(t)},
			{Key: "title", Value: value.StringValue(docs.Title(t))},
			{Key: "body", Value: value.StringValue(text)},
		})
		b = append(value.AppendJSON(b, doc), '\n')
	}
	return b
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '.' || r == '/' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
