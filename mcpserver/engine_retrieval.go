package mcpserver

import (
	"context"
	"slices"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/retrieval"
	"github.com/omgdb/omgdb/vector"
)

// Retrieval over an engine (a MongoDB deployment): vsearch, search and
// context_pack rank a bounded exact scan of the collection (package
// retrieval) read through the server's redacting reader, so a redacted
// value is removed by the first stage the server runs and is never
// embedded, indexed, scored, packed or returned. Each result carries the
// scan ("scan": what was read, the cap, whether the collection had more).
// They are read tools: all they are handed is s.reader, an engine.Reader.

func init() {
	engineRuns["vsearch"] = runVsearchEngine
	engineRuns["search"] = runSearchEngine
	engineRuns["context_pack"] = runContextPackEngine
}

var (
	maxScanParam = param{Name: "max_scan", Type: "integer", Min: i64(1), Max: i64(retrieval.MaxScan),
		Default:     value.LongValue(retrieval.DefaultMaxScan),
		Description: "Documents scanned at most: the first in _id order that match filter; documents past it are not ranked (scan.more says there were some)."}
	fieldsParam = param{Name: "fields", Type: "array", Required: true,
		Description: "The text fields (dotted paths, strings) to search, such as [\"title\",\"body\"]."}
	analyzerParam = param{Name: "analyzer", Type: "string", Enum: []string{"standard", "en"},
		Default: value.StringValue(vector.DefaultAnalyzer), Description: "Text analyzer: standard, or en (English stemming)."}
	scanNote = " Over MongoDB it ranks a bounded exact scan (max_scan documents in _id order after filter) and says so in scan."
)

// useEngineRetrieval gives the retrieval tools the arguments, the
// description and the output of a scan.
func (s *Server) useEngineRetrieval(t *tool) {
	switch t.Name {
	case "search":
		at := slices.IndexFunc(t.Params, func(p param) bool { return p.Name == "query" }) + 1
		t.Params = slices.Insert(t.Params, at, fieldsParam, analyzerParam)
		t.Description = sentence("BM25 full-text search over the given text fields; query takes words,",
			"\"phrases\", -exclusions, OR, field:word."+scanNote+" Example:",
			s.example("collection", "notes", "query", "backup -tape", "fields", []string{"title", "body"}))
	case "vsearch":
		t.Description = sentence("Rank documents by similarity of a text field to a query (embedded during the search)."+scanNote,
			"Example:", s.example("collection", "notes", "field", "body", "query", "backup policy"))
	case "context_pack":
		t.Description = sentence("The chunks of a text field most relevant to a query, packed within a token budget,",
			"with citations."+scanNote+" Example:",
			s.example("collection", "notes", "field", "body", "query", "backup policy", "budget", 1500))
	default:
		return
	}
	t.Params = append(t.Params, maxScanParam)
	t.Output = t.Output.With("properties", t.Output.Get("properties").With("scan", tObj()))
}

// scanOptions are a call's scan arguments, with its filter and field (if
// it takes one), checked.
func (c *call) scanOptions() (*retrieval.Options, error) {
	if c.has("field") {
		if err := vector.CheckFieldPath(c.str("field")); err != nil {
			return nil, argError(err, "field")
		}
	}
	filter := c.value("filter")
	if _, err := compileFilter(filter); err != nil {
		return nil, err
	}
	return &retrieval.Options{Filter: filter, MaxScan: int(c.int("max_scan", retrieval.DefaultMaxScan)), K: c.k()}, nil
}

// fieldScan checks the arguments of a call that ranks the text of one
// field (vsearch, context_pack): the collection, visible, and the field,
// not redacted (what says what it would be).
func (c *call) fieldScan(ctx context.Context, what string) (coll, field string, o *retrieval.Options, err error) {
	coll, field = c.str("collection"), c.str("field")
	if o, err = c.scanOptions(); err != nil {
		return "", "", nil, err
	}
	if err := c.engineCollection(ctx, coll); err != nil {
		return "", "", nil, err
	}
	if c.srv.policy.overlapsRedacted(coll, field) {
		return "", "", nil, deniedRedactedField(coll, field, what)
	}
	return coll, field, o, nil
}

func runVsearchEngine(ctx context.Context, c *call) (*output, error) {
	coll, field, o, err := c.fieldScan(ctx, "searched")
	if err != nil {
		return nil, err
	}
	res, scan, err := retrieval.VectorSearch(ctx, c.srv.reader, coll, field, c.str("query"), o)
	if err != nil {
		return nil, err
	}
	return c.hitsOutput(coll, res, "scan", scan.Value()), nil
}

func runSearchEngine(ctx context.Context, c *call) (*output, error) {
	coll := c.str("collection")
	o, err := c.scanOptions()
	if err != nil {
		return nil, err
	}
	if o.Fields, err = c.fieldsArg(coll); err != nil {
		return nil, err
	}
	o.Analyzer = c.str("analyzer")
	if err := c.engineCollection(ctx, coll); err != nil {
		return nil, err
	}
	res, scan, err := retrieval.TextSearch(ctx, c.srv.reader, coll, c.str("query"), o)
	if err != nil {
		return nil, err
	}
	return c.hitsOutput(coll, res, "scan", scan.Value()), nil
}

// fieldsArg returns the fields argument: strings, none redacted (the
// words of a redacted field would be scored).
func (c *call) fieldsArg(coll string) ([]string, error) {
	list := c.value("fields").Array()
	if len(list) == 0 || len(list) > 32 {
		return nil, errorf(CodeInvalidArgument, "fields: give 1 to 32 text fields").
			withHint("such as [\"title\",\"body\"]").withContext("argument", "fields")
	}
	fields := make([]string, len(list))
	for i, f := range list {
		if f.Kind() != value.String {
			return nil, errorf(CodeInvalidArgument, "fields: each field is a string (a dotted path)").
				withHint("such as [\"title\",\"body\"]").withContext("argument", "fields")
		}
		fields[i] = f.Str()
		if c.srv.policy.overlapsRedacted(coll, fields[i]) {
			return nil, deniedRedactedField(coll, fields[i], "searched")
		}
	}
	return fields, nil
}

func runContextPackEngine(ctx context.Context, c *call) (*output, error) {
	coll, field, o, err := c.fieldScan(ctx, "packed")
	if err != nil {
		return nil, err
	}
	budget, limits := c.packBudget()
	o.Budget = int(budget)
	pack, _, err := retrieval.Pack(ctx, c.srv.reader, coll, field, c.str("query"), o)
	if err != nil {
		return nil, err
	}
	return c.packOutput(coll, field, pack, limits), nil
}
