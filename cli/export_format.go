package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// mongoexportFlags are the options export takes from mongoexport, with
// mongoexport's names (see docs/import-export.md).
type mongoexportFlags struct {
	query, fields, fieldFile, sort, typ, out string
	skip, limit                              int64
	jsonArray, pretty, noHeaderLine          bool
}

func (f *mongoexportFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.query, "query", "q", "", `only the documents that match this filter, e.g. '{"age":{"$gte":30}}'`)
	fl.StringVarP(&f.fields, "fields", "f", "", "only these fields, comma-separated (dotted names reach into documents); required with --type csv")
	fl.StringVar(&f.fieldFile, "fieldFile", "", "a file with one field name per line, as --fields")
	fl.StringVar(&f.sort, "sort", "", `sort specification, e.g. '{"age":-1}' (default: _id order)`)
	fl.Int64Var(&f.skip, "skip", 0, "skip this many documents")
	fl.Int64Var(&f.limit, "limit", 0, "write at most this many documents (0: all)")
	fl.StringVar(&f.typ, "type", "json", "output format: json or csv")
	fl.BoolVar(&f.jsonArray, "jsonArray", false, "write one JSON array instead of one document per line")
	fl.BoolVar(&f.noHeaderLine, "noHeaderLine", false, "csv: leave out the header line of field names")
	fl.StringVarP(&f.out, "out", "o", "", "write to this file (whole or not at all) instead of standard output")
}

// check validates an export's options; out holds --format and --pretty,
// which export shares with find.
func (f *mongoexportFlags) check(out *formatFlags) error {
	f.pretty = out.pretty
	if out.format != "" && f.shaped() {
		return usage("--format is for printed documents; --type, --jsonArray and --out shape the export").
			WithHint("leave out --format")
	}
	if f.skip < 0 || f.limit < 0 {
		return usage("--skip and --limit must not be negative")
	}
	if f.fields != "" && f.fieldFile != "" {
		return usage("both --fields and --fieldFile are given").WithHint("give the fields once")
	}
	switch f.typ {
	case "json":
		if f.noHeaderLine {
			return usage("--noHeaderLine is for --type csv")
		}
		return nil
	case "csv":
	default:
		return usage("invalid --type %q (use json or csv)", f.typ)
	}
	if f.fields == "" && f.fieldFile == "" {
		return usage("--type csv needs --fields (or --fieldFile)").
			WithHint("name the columns, e.g. --fields _id,name,address.city, as mongoexport requires")
	}
	if f.jsonArray || f.pretty {
		return usage("--jsonArray and --pretty are for --type json")
	}
	return nil
}

// shaped reports whether the export is written by the exporter (CSV, a
// JSON array, a file) rather than printed as find prints documents.
func (f *mongoexportFlags) shaped() bool {
	return f.typ == "csv" || f.jsonArray || f.out != ""
}

// fieldList returns the fields that --fields or --fieldFile name.
func (f *mongoexportFlags) fieldList() ([]string, error) {
	if f.fieldFile == "" {
		return splitList(f.fields), nil
	}
	b, err := os.ReadFile(f.fieldFile)
	if err != nil {
		return nil, errs.Errorf(errs.NotFound, "cannot read --fieldFile %s: %v", f.fieldFile, err).WithHint("check the file name")
	}
	return splitLines(string(b)), nil
}

// findOptions is the find an export runs.
func (f *mongoexportFlags) findOptions(fields []string) *findOptions {
	fo := &findOptions{filter: "{}", sort: f.sort, skip: f.skip, limit: f.limit}
	if f.query != "" {
		fo.filter = f.query
	}
	if len(fields) > 0 && f.typ == "json" {
		proj := make([]value.Field, len(fields))
		for i, name := range fields {
			proj[i] = value.Field{Key: name, Value: value.LongValue(1)}
		}
		fo.project = string(value.JSON(value.ObjectValue(proj)))
	}
	return fo
}

func (e *env) runExport(ctx context.Context, opts *exportOptions) error {
	f := &opts.mongo
	fields, err := f.fieldList()
	if err != nil {
		return err
	}
	fo := f.findOptions(fields)
	if isMongo(opts.path) {
		return e.mongoExport(ctx, opts, fo, fields)
	}
	q, err := e.compileFind(fo)
	if err != nil {
		return err
	}
	// --query matches as find does: by the collection's default collation.
	find := func(tx *store.Tx) (agg.Source, error) {
		q := q
		if err := recollate(tx, opts.coll, "", fo.filterSpec, &q); err != nil {
			return nil, err
		}
		return findIn(ctx, tx, opts.coll, "", q)
	}
	if !f.shaped() {
		return e.printStream(opts.path, opts.storeFlags, &opts.out, find)
	}
	db, err := e.open(opts.path, readOnly, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	return e.writeOut(f.out, func(w io.Writer) error {
		x := newExporter(w, f, opts.out.ejson.mode, fields)
		err := db.View(func(tx *store.Tx) error {
			src, err := find(tx)
			if err != nil {
				return err
			}
			defer src.Close()
			return x.all(src)
		})
		if err != nil {
			return err
		}
		return x.close()
	})
}

// writeOut lets write fill standard output, or the file out: a temporary
// file beside it, synced and renamed over it only when write succeeds.
func (e *env) writeOut(out string, write func(io.Writer) error) error {
	if out == "" {
		return write(e.stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return errs.Errorf(errs.IO, "cannot write --out %s: %v", out, err).WithHint("check that its directory exists and is writable")
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return store.SyncDir(filepath.Dir(out))
}

// exporter writes the documents of an export in its format.
type exporter struct {
	w      *bufio.Writer
	f      *mongoexportFlags
	mode   value.EJSONMode // of JSON documents
	enc    []byte
	csv    *csv.Writer
	fields []value.Path
	row    []string
	n      int64
	buf    bytes.Buffer
}

func newExporter(w io.Writer, f *mongoexportFlags, mode value.EJSONMode, fields []string) *exporter {
	x := &exporter{w: bufio.NewWriterSize(w, 256<<10), f: f, mode: mode}
	if f.typ == "csv" {
		x.csv = csv.NewWriter(x.w)
		for _, name := range fields {
			x.fields = append(x.fields, value.ParsePath(name))
		}
		x.row = make([]string, len(fields))
		if !f.noHeaderLine {
			x.csv.Write(fields)
		}
	}
	return x
}

// all writes every document of src.
func (x *exporter) all(src agg.Source) error {
	raw, _ := src.(store.RawSource)
	for src.Next() {
		var js []byte
		if raw != nil {
			js = raw.RawJSON()
		}
		if js == nil {
			if err := src.Err(); err != nil {
				return err
			}
			if x.csv == nil {
				js = value.JSON(src.Doc())
			}
		}
		if err := x.doc(src.Doc, js); err != nil {
			return err
		}
	}
	return src.Err()
}

// doc writes one document: js is its JSON (unless CSV), doc decodes it.
func (x *exporter) doc(doc func() value.Value, js []byte) error {
	x.n++
	if x.csv != nil {
		d := doc()
		for i, p := range x.fields {
			x.row[i] = csvField(pathValue(d, p))
		}
		return x.csv.Write(x.row)
	}
	if x.mode != value.EJSONStored {
		var err error
		if x.enc, err = value.TranscodeEJSON(x.enc[:0], js, x.mode); err != nil {
			return err
		}
		js = x.enc
	}
	if x.f.jsonArray {
		x.w.WriteString(map[bool]string{true: "[", false: ",\n"}[x.n == 1])
	}
	if x.f.pretty {
		x.buf.Reset()
		indentJSON(&x.buf, js)
		js = x.buf.Bytes()
	}
	x.w.Write(js)
	if x.f.jsonArray {
		return nil
	}
	return x.w.WriteByte('\n')
}

// close ends the output (the array's bracket) and flushes it.
func (x *exporter) close() error {
	if x.csv != nil {
		x.csv.Flush()
		if err := x.csv.Error(); err != nil {
			return err
		}
	}
	if x.f.jsonArray {
		if x.n == 0 {
			x.w.WriteString("[")
		}
		x.w.WriteString("]\n")
	}
	return x.w.Flush()
}

// pathValue is the value at a dotted path, through objects and, for a
// numeric component, array elements.
func pathValue(v value.Value, p value.Path) value.Value {
	for i, part := range p.Parts {
		switch {
		case v.IsObject():
			v = v.Get(part)
		case v.IsArray() && p.Index[i] >= 0:
			v = v.Index(p.Index[i])
		default:
			return value.Value{}
		}
	}
	return v
}

// csvField is a value as mongoexport writes it in a CSV field: strings
// and numbers as text, dates in ISO 8601, ObjectIds as ObjectId(hex),
// documents and arrays as JSON, null and missing as nothing.
func csvField(v value.Value) string {
	switch v.Kind() {
	case value.Missing, value.Null:
		return ""
	case value.String:
		return v.Str()
	case value.Long, value.Int:
		return strconv.FormatInt(v.Long(), 10)
	case value.Decimal:
		return v.DecimalString()
	case value.Double:
		return string(value.AppendDouble(nil, v.Double()))
	case value.Bool:
		return strconv.FormatBool(v.Bool())
	case value.Date:
		return time.UnixMilli(v.Date()).UTC().Format("2006-01-02T15:04:05.000Z")
	case value.ObjectID:
		return "ObjectId(" + v.OID().Hex() + ")"
	}
	return strings.TrimSpace(string(value.JSON(v)))
}
