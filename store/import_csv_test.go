package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func TestImportInput_CSV(t *testing.T) {
	csv := func(o store.ImportOptions) *store.ImportOptions { o.Format = store.FormatCSV; return &o }
	header := store.ImportOptions{HeaderLine: true}
	tests := []struct {
		name, in string
		opts     *store.ImportOptions
		want     string
	}{
		{"auto types: ints, doubles, strings, blanks", "a,b,c,d,e,f\n7,-2.50,1e3,007,abc,\n", csv(header),
			"2-2: {\"_id\":*,\"a\":7,\"b\":-2.5,\"c\":1000.0,\"d\":7,\"e\":\"abc\",\"f\":\"\"}\n"},
		{"auto keeps what is not a plain number a string", "a,b,c,d\nNaN,0x10,true,1_000\n", csv(header),
			"2-2: {\"_id\":*,\"a\":\"NaN\",\"b\":\"0x10\",\"c\":\"true\",\"d\":\"1_000\"}\n"},
		{"a long past int32 and a double past int64", "a,b\n3000000000,99999999999999999999\n", csv(header),
			"2-2: {\"_id\":*,\"a\":3000000000,\"b\":100000000000000000000.0}\n"},
		{"dotted names nest, in column order", "_id,a.x,b,a.y\n1,2,3,4\n", csv(header),
			"2-2: {\"_id\":1,\"a\":{\"x\":2,\"y\":4},\"b\":3}\n"},
		{"--ignoreBlanks leaves blank fields and empty documents out", "_id,a.x,b\n1,,\n", csv(store.ImportOptions{HeaderLine: true, IgnoreBlanks: true}),
			"2-2: {\"_id\":1}\n"},
		{"short rows leave the last fields out", "_id,a,b\n1,2\n", csv(header), "2-2: {\"_id\":1,\"a\":2}\n"},
		{"long rows are bad, at the first extra field", "_id,a\n1,2,3\n2,3\n", csv(header),
			"2-2,5: error: 3 fields, but 2 columns are named\n3-3: {\"_id\":2,\"a\":3}\n"},
		{"quoted fields with quotes, commas and newlines", "_id,s\n1,\"a \"\"b\"\", c\nd\"\n2,x\n", csv(header),
			"2-3: {\"_id\":1,\"s\":\"a \\\"b\\\", c\\nd\"}\n4-4: {\"_id\":2,\"s\":\"x\"}\n"},
		{"a bare quote names its line and column", "_id,s\n1,a\"b\n2,x\n", csv(header),
			"2-2,4: error: bare \" in non-quoted-field\n3-3: {\"_id\":2,\"s\":\"x\"}\n"},
		{"CRLF and a byte-order mark", "\ufeff_id,s\r\n1,x\r\n", csv(header), "2-2: {\"_id\":1,\"s\":\"x\"}\n"},
		{"--fields", "1,x\n", csv(store.ImportOptions{Fields: []string{"_id", "s"}}), "1-1: {\"_id\":1,\"s\":\"x\"}\n"},
		{"a column that is a value and a document", "a,a.b\n1,2\n", csv(header),
			"1-1: error: the header line: column 2 `a.b` clashes with column 1\n"},
		{"a repeated column", "a,a\n1,2\n", csv(header), "1-1: error: the header line: column 2 `a` clashes with column 1\n"},
		{"an empty column name", "a,\n1,2\n", csv(header), "1-1: error: the header line: column 2 ``: the name is empty\n"},
		{"JSON read as CSV", "{\"_id\":1,\"a\":2}\n", csv(header), "1-1: error: the input is JSON, not CSV\n"},
		{"TSV keeps quotes", "_id\ts\n1\tsay \"hi\", twice\n", &store.ImportOptions{Format: store.FormatTSV, HeaderLine: true},
			"2-2: {\"_id\":1,\"s\":\"say \\\"hi\\\", twice\"}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maskOID(split(tt.in, tt.opts)); got != tt.want {
				t.Errorf("got\n%swant\n%s", got, tt.want)
			}
		})
	}
}

func TestImportInput_CSVTypes(t *testing.T) {
	typed := func(header, row string) string {
		return maskOID(split(header+"\n"+row+"\n", &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: true}))
	}
	tests := []struct{ header, row, want string }{
		{"a.string(),b.int32(),c.int64(),d.double()", "007,-5,9000000000,2", `{"_id":*,"a":"007","b":-5,"c":9000000000,"d":2.0}`},
		{"a.boolean(),b.bool(),c.boolean(),d.boolean()", "true,F,1,0", `{"_id":*,"a":true,"b":false,"c":true,"d":false}`},
		{"d.date(2006-01-02),t.date_go(2006-01-02 15:04:05)", "1970-01-02,1970-01-01 00:00:01", `{"_id":*,"d":{"$date":86400000},"t":{"$date":1000}}`},
		{"h.binary(hex),b.binary(base64)", "00ff,AP8=", `{"_id":*,"h":{"$binary":"AP8="},"b":{"$binary":"AP8="}}`},
		{"a.auto(),b.auto()", "1.5,x", `{"_id":*,"a":1.5,"b":"x"}`},
		{"a.int32()", "3000000000", "error: field `a`: cannot read \"3000000000\" as int32()"},
		{"a.int32()", "1.5", "error: field `a`: cannot read \"1.5\" as int32()"},
		{"x.string(),a.int32()", "q,", "error: field `a`: cannot read \"\" as int32()"},
		{"a.boolean()", "yes", "error: field `a`: cannot read \"yes\" as boolean()"},
		{"a.date(2006-01-02)", "01/02/2006", "error: field `a`: cannot read \"01/02/2006\" as date(2006-01-02)"},
		{"a.binary(hex)", "zz", "error: field `a`: cannot read \"zz\" as binary(hex)"},
		{"a.int()", "1", "error: the header line: column 1 `a.int()`: unknown type int() (did you mean `int32`?)"},
		{"a", "1", "error: the header line: column 1 `a`: no type"},
		{"a.date()", "1", "error: the header line: column 1 `a.date()`: date() needs a layout"},
		{"a.date_ms(yyyy)", "1", "error: the header line: column 1 `a.date_ms(yyyy)`: date_ms() is not supported"},
		{"a.binary(b64)", "1", "error: the header line: column 1 `a.binary(b64)`: binary(b64): unknown encoding"},
		{"a.string(x)", "1", "error: the header line: column 1 `a.string(x)`: string() takes no argument"},
	}
	for _, tt := range tests {
		got := typed(tt.header, tt.row)
		got = got[strings.Index(got, ": ")+2 : len(got)-1]
		if got != tt.want {
			t.Errorf("%s / %s:\n got %s\nwant %s", tt.header, tt.row, got, tt.want)
		}
	}
	// A blank typed field is left out with --ignoreBlanks.
	got := split("a.int32(),b.string()\n,x\n", &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: true, IgnoreBlanks: true})
	if !strings.HasSuffix(got, `,"b":"x"}`+"\n") || strings.Contains(got, `"a"`) {
		t.Errorf("ignoreBlanks with a typed column: %s", got)
	}
}

// maskOID replaces generated ObjectIds by *.
func maskOID(s string) string {
	for {
		i := strings.Index(s, `{"$oid":"`)
		if i < 0 {
			return s
		}
		s = s[:i] + "*" + s[i+len(`{"$oid":"`)+26:]
	}
}

// TestImport_ModesMatchAsMongoDB: the modes match stored documents as a
// MongoDB equality does: numbers across types, null matching a missing
// field, arrays whole, dotted upsert fields; a document matching none of
// its upsert fields is inserted; merge keeps the fields it does not set.
func TestImport_ModesMatchAsMongoDB(t *testing.T) {
	db := storetest.MustOpen(t)
	ctx := context.Background()
	base := `{"_id":1,"k":1,"tag":"one"}
{"_id":2,"k":2.5,"tags":["a","b"]}
{"_id":3,"a":{"b":"x"}}
{"_id":4,"k":"4"}
`
	if _, err := db.Import(ctx, "c", strings.NewReader(base), nil); err != nil {
		t.Fatal(err)
	}
	run := func(mode store.Mode, fields []string, in string) *store.ImportSummary {
		t.Helper()
		sum, err := db.Import(ctx, "c", strings.NewReader(in), &store.ImportOptions{Mode: mode, UpsertFields: fields})
		if err != nil {
			t.Fatalf("%s %v: %v", mode, fields, err)
		}
		return sum
	}
	// 1.0 matches the long 1, as {k:{$eq:1.0}} does, and merge sets the
	// double; "4" does not match 4.
	sum := run(store.ModeMerge, []string{"k"}, `{"k":1.0,"m":"long"}`+"\n"+`{"k":4,"m":"number"}`+"\n")
	if sum.Matched != 1 || sum.Updated != 1 || sum.Inserted != 1 {
		t.Errorf("numbers: %+v", sum)
	}
	// null matches the documents without the field: the first, _id 2.
	sum = run(store.ModeMerge, []string{"tag"}, `{"tag":null,"m":"null"}`+"\n")
	if sum.Matched != 1 {
		t.Errorf("null: %+v", sum)
	}
	// An array matches the same array; a dotted field reaches inside.
	run(store.ModeMerge, []string{"tags"}, `{"tags":["a","b"],"m":"array"}`+"\n")
	run(store.ModeMerge, []string{"a.b"}, `{"a":{"b":"x"},"m2":"dotted"}`+"\n")
	// No upsert field at all: inserted.
	sum = run(store.ModeUpsert, []string{"nope"}, `{"_id":9,"m":"none"}`+"\n")
	if sum.Inserted != 1 || sum.Matched != 0 {
		t.Errorf("no upsert field: %+v", sum)
	}
	want := []string{
		`{"_id":1,"k":1.0,"tag":"one","m":"long"}`,
		`{"_id":2,"k":2.5,"tags":["a","b"],"tag":null,"m":"array"}`,
		`{"_id":3,"a":{"b":"x"},"m2":"dotted"}`,
		`{"_id":4,"k":"4"}`,
		`{"_id":9,"m":"none"}`,
	}
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("c")
		if err != nil {
			return err
		}
		for _, w := range want {
			doc, err := c.Get(value.MustParse(w).Get("_id"))
			if err != nil || string(value.JSON(doc)) != w {
				t.Errorf("got %s (%v), want %s", value.JSON(doc), err, w)
			}
		}
		if c.Count() != 6 {
			t.Errorf("%d documents, want 6 (the k:4 one inserted)", c.Count())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImport_WritingNothingLeavesNothing: an import whose batches write
// nothing (bad documents skipped, nothing to delete, empty input) leaves
// no collection and no journal record, and its summary still says how far
// it read; one that stops at a bad first document does the same.
func TestImport_WritingNothingLeavesNothing(t *testing.T) {
	db := storetest.MustOpen(t)
	ctx := context.Background()
	inputs := []struct {
		in   string
		opts store.ImportOptions
	}{
		{"{bad\n[1]\n", store.ImportOptions{Skip: true}},
		{"{\"_id\":1}\n", store.ImportOptions{Mode: store.ModeDelete}},
		{"", store.ImportOptions{}},
		{"{bad\n{\"_id\":1}\n", store.ImportOptions{}},
		{"a\n1\n", store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: true}},
	}
	for _, in := range inputs {
		sum, _ := db.Import(ctx, "c", strings.NewReader(in.in), &in.opts)
		if sum.Batches != 0 || sum.Change != "" || sum.Inserted != 0 {
			t.Errorf("%q: %+v", in.in, sum)
		}
	}
	sum, _ := db.Import(ctx, "c", strings.NewReader("{bad\n[1]\n"), &store.ImportOptions{Skip: true})
	if sum.Skipped != 2 || sum.CommittedThrough != 2 || len(sum.Errors) != 2 {
		t.Errorf("all bad, skipped: %+v", sum)
	}
	err := db.View(func(tx *store.Tx) error {
		if names := tx.Collections(); len(names) != 0 {
			t.Errorf("collections %v, want none", names)
		}
		if lsn := tx.LastLSN(); lsn != 0 {
			t.Errorf("journal at lsn %d, want none", lsn)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzImportCSV: whatever the input and column types, reading CSV or TSV
// ends, lines go forward, and each document read back is valid.
func FuzzImportCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,x\n", "a.int32(),b.date(2006-01-02)\n1,2024-01-01\n", "\ufeffa,\"b\nc\"\n1,2\n", "a,a.b\n", "\"\n", "{\"a\":1}", "a\tb\n\"x\ty\n"} {
		f.Add(s, false, false)
		f.Add(s, true, true)
	}
	f.Fuzz(func(t *testing.T, in string, typed, tsv bool) {
		opts := &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: typed}
		if tsv {
			opts.Format = store.FormatTSV
		}
		var last int64
		for _, d := range store.ReadImportInput(strings.NewReader(in), opts) {
			if d.Line < last || d.Last < d.Line {
				t.Fatalf("lines out of order: %+v after line %d", d, last)
			}
			last = d.Line
			if d.Err == "" {
				if _, err := value.Parse([]byte(d.JSON)); err != nil {
					t.Fatalf("%q: %v", d.JSON, err)
				}
			}
		}
	})
}

// TestImportInput_CSVRecordLimit: a quote left open does not make the CSV
// reader hold the rest of a big file: past the document limit it stops.
func TestImportInput_CSVRecordLimit(t *testing.T) {
	in := "a,b\n1,\"open\n" + strings.Repeat(strings.Repeat("x", 1023)+"\n", 17<<10)
	got := store.ReadImportInput(strings.NewReader(in), &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true})
	if len(got) != 1 || !strings.Contains(got[0].Err, "a record is over the 16777216-byte document limit") {
		t.Fatalf("got %d documents: %+v", len(got), got)
	}
}

// TestImportInput_ParseGrace: mongoimport's --parseGrace for a field its
// type cannot read.
func TestImportInput_ParseGrace(t *testing.T) {
	in := "_id.int32(),n.int32(),s.string()\n1,x,a\n2,3,b\n"
	tests := []struct {
		grace store.ParseGrace
		want  string
	}{
		{store.ParseStop, "2-2,3: error: field `n`: cannot read \"x\" as int32()\n3-3: {\"_id\":2,\"n\":3,\"s\":\"b\"}\n"},
		{store.ParseSkipRow, "2-2,3: error: field `n`: cannot read \"x\" as int32()\n3-3: {\"_id\":2,\"n\":3,\"s\":\"b\"}\n"},
		{store.ParseSkipField, "2-2: {\"_id\":1,\"s\":\"a\"}\n3-3: {\"_id\":2,\"n\":3,\"s\":\"b\"}\n"},
		{store.ParseAutoCast, "2-2: {\"_id\":1,\"n\":\"x\",\"s\":\"a\"}\n3-3: {\"_id\":2,\"n\":3,\"s\":\"b\"}\n"},
	}
	for _, tt := range tests {
		got := split(in, &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: true, ParseGrace: tt.grace})
		if got != tt.want {
			t.Errorf("%s: got\n%swant\n%s", tt.grace, got, tt.want)
		}
	}
	// skipRow goes on past the row without --on-error skip; stop does not.
	db := storetest.MustOpen(t)
	sum, err := db.Import(context.Background(), "c", strings.NewReader(in), &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: true, ParseGrace: store.ParseSkipRow})
	if err != nil || sum.Inserted != 1 || sum.Skipped != 1 || len(sum.Errors) != 1 {
		t.Errorf("skipRow: %+v, %v", sum, err)
	}
	sum, err = db.Import(context.Background(), "d", strings.NewReader(in), &store.ImportOptions{Format: store.FormatCSV, HeaderLine: true, ColumnsHaveTypes: true})
	if err == nil || sum.Inserted != 0 || sum.StoppedAt != 2 {
		t.Errorf("stop: %+v, %v", sum, err)
	}
}
