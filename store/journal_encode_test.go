package store

import (
	"bytes"
	"testing"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// TestAppendRecord_EqualsValue: the journal's direct encoder writes the
// bytes of the record's value, for every kind of operation.
func TestAppendRecord_EqualsValue(t *testing.T) {
	recs := []Record{
		{LSN: 1, Time: time.UnixMilli(1700000000123), Change: "c1", Kind: "import", Actor: "cli"},
		{LSN: 1 << 40, Time: time.UnixMilli(-5), Change: "é\"\\\n", Kind: "apply", Actor: "mcp:x", Note: "a note\u2028",
			Ops: []Op{
				{Op: OpInsert, Coll: "users", ID: value.LongValue(-7)},
				{Op: OpUpdate, Coll: "u", ID: value.StringValue("x"), Before: value.MustParse(`{"_id":"x","a":[1.0,{"$date":3}]}`)},
				{Op: OpDelete, Coll: "u", ID: value.ObjectIDValue(value.NewOID()), Before: value.MustParse(`{"_id":1}`)},
				{Op: OpCreateIndex, Coll: "u", Index: &IndexDef{Name: "a_1", Kind: "btree", Spec: []byte(`{"a":1}`)}},
				{Op: OpCreateCollection, Coll: "v"},
				{Op: OpDefine, Coll: "v", Before: value.MustParse(`{"required":["a"]}`), Rules: value.MustParse(`{"required":["a","b"]}`)},
			}},
	}
	// A before-image given as its canonical JSON is written as it is.
	raw := Record{LSN: 2, Change: "c", Ops: []Op{{Op: OpDelete, Coll: "u", ID: value.LongValue(1), beforeJSON: []byte(`{"_id":1,"a":[2.0]}`)}}}
	if got, want := appendRecord(nil, &raw), `{"lsn":2,"ts":{"$date":-62135596800000},"change":"c","kind":"","actor":"","ops":[{"op":"delete","coll":"u","id":1,"before":{"_id":1,"a":[2.0]}}]}`; string(got) != want {
		t.Errorf("appendRecord with a raw before-image:\n got %s\nwant %s", got, want)
	}
	for _, r := range recs {
		got := appendRecord(nil, &r)
		want := value.AppendJSON(nil, r.Value())
		if !bytes.Equal(got, want) {
			t.Errorf("appendRecord:\n got %s\nwant %s", got, want)
		}
	}
}
