package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/store"
)

// mongoimportFlags are the options import takes from mongoimport, with
// mongoimport's names (see docs/import-export.md).
type mongoimportFlags struct {
	typ, mode, fields, fieldFile, upsertFields, file string
	parseGrace                                       string
	jsonArray, headerLine, typed, ignoreBlanks       bool
	drop, stopOnError                                bool
	resumeFrom                                       int64
}

func (f *mongoimportFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.typ, "type", "json", "input format: json, csv or tsv")
	fl.BoolVar(&f.jsonArray, "jsonArray", false, "the input is one JSON array of documents")
	fl.BoolVar(&f.headerLine, "headerline", false, "csv/tsv: the first line names the columns")
	fl.StringVar(&f.fields, "fields", "", "csv/tsv: the column names, comma-separated (a.b makes a nested field)")
	fl.StringVar(&f.fieldFile, "fieldFile", "", "csv/tsv: a file with one column name per line")
	fl.BoolVar(&f.typed, "columnsHaveTypes", false, "csv/tsv: column names carry types: name.string(), age.int32(), born.date(2006-01-02)")
	fl.BoolVar(&f.ignoreBlanks, "ignoreBlanks", false, "csv/tsv: leave blank fields out instead of importing empty strings")
	fl.StringVar(&f.parseGrace, "parseGrace", "stop", "csv/tsv with --columnsHaveTypes: a field its type cannot read stops at its row (stop), skips the row (skipRow), leaves the field out (skipField) or is read as auto() (autoCast)")
	fl.StringVar(&f.mode, "mode", "insert", "insert, upsert (replace the match), merge (set the fields in the match) or delete (the match)")
	fl.StringVar(&f.upsertFields, "upsertFields", "", "the fields that match a document in the other modes, comma-separated (default _id; implies --mode upsert)")
	fl.BoolVar(&f.drop, "drop", false, "drop the collection first, in the same change (rollback brings it back)")
	fl.BoolVar(&f.stopOnError, "stop-on-error", true, "stop at the first bad document (the default); =false goes on, as --on-error skip")
	fl.BoolVar(&f.stopOnError, "stopOnError", true, "mongoimport's name for --stop-on-error")
	fl.Int64Var(&f.resumeFrom, "resume-from-line", 0, "leave out the documents that start before this line (a summary's committed_through_line + 1)")
	fl.StringVar(&f.file, "file", "", "the input file (as the file argument)")
}

// check validates an import's options and settles --on-error, --mode and
// the file from the flags that imply them.
func (o *importOptions) check(cmd *cobra.Command) error {
	f, fl := &o.mongo, cmd.Flags()
	if f.file != "" {
		if fl.NArg() == 3 {
			return usage("both --file and a file argument are given").WithHint("give the file once")
		}
		o.file = f.file
	}
	if err := o.checkOnError(fl.Changed("on-error"), fl.Changed("stop-on-error") || fl.Changed("stopOnError")); err != nil {
		return err
	}
	if fl.Changed("upsertFields") && !fl.Changed("mode") {
		f.mode = string(store.ModeUpsert)
	}
	if err := f.checkMode(); err != nil {
		return err
	}
	if err := f.checkFormat(fl.Changed); err != nil {
		return err
	}
	if f.resumeFrom < 0 {
		return usage("--resume-from-line must be 1 or more")
	}
	if f.resumeFrom > 0 && f.drop {
		return usage("--drop with --resume-from-line would drop what the first run imported").
			WithHint("resume without --drop")
	}
	return nil
}

func (o *importOptions) checkOnError(onError, stopOnError bool) error {
	if o.onError != "abort" && o.onError != "skip" {
		return usage("invalid --on-error %q (use abort or skip)", o.onError)
	}
	if !stopOnError {
		return nil
	}
	want := map[bool]string{true: "abort", false: "skip"}[o.mongo.stopOnError]
	if onError && o.onError != want {
		return usage("--stop-on-error=%t contradicts --on-error %s", o.mongo.stopOnError, o.onError).
			WithHint("give one of them")
	}
	o.onError = want
	return nil
}

func (f *mongoimportFlags) checkMode() error {
	modes := []string{"insert", "upsert", "merge", "delete"}
	if !slices.Contains(modes, f.mode) {
		return usage("invalid --mode %q%s", f.mode, errs.DidYouMean(f.mode, modes)).
			WithHint("use insert, upsert, merge or delete")
	}
	if f.upsertFields != "" && f.mode == "insert" {
		return usage("--upsertFields has no use with --mode insert").
			WithHint("use --mode upsert, merge or delete")
	}
	return nil
}

func (f *mongoimportFlags) checkFormat(changed func(string) bool) error {
	switch f.typ {
	case "json":
		for _, name := range []string{"headerline", "fields", "fieldFile", "columnsHaveTypes", "ignoreBlanks", "parseGrace"} {
			if changed(name) {
				return usage("--%s is for --type csv or tsv", name).WithHint("add --type csv (or tsv)")
			}
		}
		return nil
	case "csv", "tsv":
	default:
		return usage("invalid --type %q (use json, csv or tsv)", f.typ)
	}
	if f.jsonArray {
		return usage("--jsonArray is for --type json")
	}
	graces := []string{"stop", "skipRow", "skipField", "autoCast"}
	if !slices.Contains(graces, f.parseGrace) {
		return usage("invalid --parseGrace %q%s", f.parseGrace, errs.DidYouMean(f.parseGrace, graces)).
			WithHint("use stop, skipRow, skipField or autoCast")
	}
	if changed("parseGrace") && !f.typed {
		return usage("--parseGrace is for --columnsHaveTypes").WithHint("without types every field is read as auto()")
	}
	named := 0
	for _, set := range []bool{f.headerLine, f.fields != "", f.fieldFile != ""} {
		if set {
			named++
		}
	}
	if named != 1 {
		return usage("--type %s needs one of --headerline, --fields or --fieldFile", f.typ).
			WithHint("--headerline when the first line names the columns, --fields a,b,c otherwise")
	}
	return nil
}

// storeOptions returns the store's options for an import.
func (o *importOptions) storeOptions() (*store.ImportOptions, error) {
	f := &o.mongo
	io := &store.ImportOptions{
		Atomic: o.atomic, Skip: o.onError == "skip", BatchSize: o.batch,
		Format: store.Format(f.typ), JSONArray: f.jsonArray, HeaderLine: f.headerLine,
		ColumnsHaveTypes: f.typed, IgnoreBlanks: f.ignoreBlanks, ParseGrace: store.ParseGrace(f.parseGrace),
		Mode: store.Mode(f.mode), UpsertFields: splitList(f.upsertFields),
		Drop: f.drop, ResumeFromLine: f.resumeFrom,
		Fields: splitList(f.fields), Int32: true,
	}
	if f.fieldFile != "" {
		b, err := os.ReadFile(f.fieldFile)
		if err != nil {
			return nil, errs.Errorf(errs.NotFound, "cannot read --fieldFile %s: %v", f.fieldFile, err).WithHint("check the file name")
		}
		io.Fields = splitLines(string(b))
	}
	return io, nil
}

// splitList splits a comma-separated list, trimming spaces; "" is none.
func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// splitLines returns the non-blank lines of s, trimmed.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// withResumeHint adds to an error that stopped an import after it had
// committed batches (a full disk, a failed read; not a bad document,
// whose hint says it already) the line to resume from.
func withResumeHint(err error, sum *store.ImportSummary, opts *importOptions) error {
	if err == nil || sum == nil || sum.StoppedAt > 0 || opts.atomic || sum.Batches == 0 {
		return err
	}
	e := errs.Errorf(errs.KindOf(err), "%v", err)
	e.Err = err
	e.Hint = fmt.Sprintf("the import is committed through line %d: once the cause is fixed, go on with --resume-from-line %d", sum.CommittedThrough, sum.CommittedThrough+1)
	if h := errs.HintOf(err); h != "" {
		e.Hint = h + "; " + e.Hint
	}
	return e
}
