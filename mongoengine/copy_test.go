package mongoengine

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

func openCopyDB(t *testing.T) (*DB, string) {
	t.Helper()
	_, uri := mongotest.Start(t)
	target, err := Resolve(uri, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(context.Background(), target, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, uri
}

// TestDB_InsertMany_TypesByDriver inserts documents with InsertMany and
// reads them back with the driver alone (the oracle): each value has the
// BSON type and bytes it had in omgdb, in field order.
func TestDB_InsertMany_TypesByDriver(t *testing.T) {
	d, uri := openCopyDB(t)
	ctx := context.Background()
	doc, err := value.ParseString(`{"_id":{"$oid":"650000000000000000000001"},"i":{"$numberInt":"-7"},"l":{"$numberLong":"9007199254740993"},` +
		`"d":{"$numberDouble":"1.0"},"s":"é","b":true,"n":null,"dt":{"$date":{"$numberLong":"-1"}},"ts":{"$timestamp":{"t":4,"i":5}},` +
		`"re":{"$regularExpression":{"pattern":"a+","options":"ix"}},"bin":{"$binary":{"base64":"AQI=","subType":"05"}},` +
		`"arr":[{"$numberInt":"1"},{"$numberLong":"1"},{"k":null}],"obj":{"z":1,"a":{}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := d.InsertMany(ctx, "t", []value.Value{doc}); n != 1 || err != nil {
		t.Fatalf("InsertMany: %d, %v", n, err)
	}
	client := mongotest.Client(t, uri)
	raw, err := client.Database(d.Target().DB).Collection("t").FindOne(ctx, bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{
		{Key: "_id", Value: bson.ObjectID{0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{Key: "i", Value: int32(-7)}, {Key: "l", Value: int64(9007199254740993)}, {Key: "d", Value: 1.0},
		{Key: "s", Value: "é"}, {Key: "b", Value: true}, {Key: "n", Value: nil}, {Key: "dt", Value: bson.DateTime(-1)},
		{Key: "ts", Value: bson.Timestamp{T: 4, I: 5}}, {Key: "re", Value: bson.Regex{Pattern: "a+", Options: "ix"}},
		{Key: "bin", Value: bson.Binary{Subtype: 5, Data: []byte{1, 2}}},
		{Key: "arr", Value: bson.A{int32(1), int64(1), bson.D{{Key: "k", Value: nil}}}},
		{Key: "obj", Value: bson.D{{Key: "z", Value: int64(1)}, {Key: "a", Value: bson.D{}}}},
	}
	wantRaw, err := bson.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytesEqual(raw, wantRaw) {
		t.Errorf("stored document\n got %s\nwant %s", raw, bson.Raw(wantRaw))
	}
	last, n, err := d.LastID(ctx, "t")
	if err != nil || n != 1 || value.Compare(last, doc.Get("_id")) != 0 {
		t.Errorf("LastID: %v %d %v", last, n, err)
	}
	// A batch whose second document repeats the _id of the one stored: the first is kept,
	// the count says 1, the error is a conflict.
	dup, _ := value.ParseString(`{"_id":{"$oid":"650000000000000000000002"}}`)
	n2, err := d.InsertMany(ctx, "t", []value.Value{dup, doc, dup})
	if n2 != 1 || errs.KindOf(err) != errs.Conflict || !strings.Contains(err.Error(), "refused document 1 of the batch into `t` (_id {\"$oid\":\"650000000000000000000001\"}): E11000") {
		t.Errorf("InsertMany with a duplicate: %d, %v", n2, err)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// TestDB_CopyDefinitions: omgdb's record round-trips; the test server
// refuses a validator (ErrNotImplemented, the collection still made) and
// a text index (an error naming it).
func TestDB_CopyDefinitions(t *testing.T) {
	d, _ := openCopyDB(t)
	ctx := context.Background()
	v, _ := value.ParseString(`{"age":{"$gte":0}}`)
	if err := d.CreateCollection(ctx, "c", v); !errors.Is(err, ErrNotImplemented) {
		t.Errorf("validator on FerretDB: %v", err)
	}
	if ok, err := d.HasCollection(ctx, "c"); !ok || err != nil {
		t.Errorf("the collection was not made without its validator: %v %v", ok, err)
	}
	if v, err := d.Validator(ctx, "c"); !v.IsMissing() || err != nil {
		t.Errorf("Validator: %v %v", v, err)
	}
	text, _ := value.ParseString(`{"name":"title_text","key":{"title":"text"}}`)
	if err := d.CreateIndex(ctx, "c", text); err == nil || !strings.Contains(err.Error(), "cannot hold index `title_text` of `c`") {
		t.Errorf("text index on FerretDB: %v", err)
	}
	uniq, _ := value.ParseString(`{"name":"a_1","key":{"a":1},"unique":true}`)
	if err := d.CreateIndex(ctx, "c", uniq); err != nil {
		t.Fatal(err)
	}
	specs, err := d.IndexSpecs(ctx, "c")
	if err != nil || len(specs) != 1 || specs[0].Get("name").Str() != "a_1" || !specs[0].Get("unique").Bool() {
		t.Errorf("IndexSpecs: %v %v", specs, err)
	}
	meta, _ := value.ParseString(`{"_id":"c","rules":"{\"validator\":{\"age\":{\"$gte\":0}}}","indexes":"[]"}`)
	if err := d.SetCopyMeta(ctx, "c", meta); err != nil {
		t.Fatal(err)
	}
	got, err := d.CopyMeta(ctx, "c")
	if err != nil || string(value.JSON(got)) != string(value.JSON(meta)) {
		t.Errorf("CopyMeta: %s %v", value.JSON(got), err)
	}
	if got, err := d.CopyMeta(ctx, "other"); !got.IsMissing() || err != nil {
		t.Errorf("CopyMeta of a collection without a record: %v %v", got, err)
	}
	if names, _ := d.Collections(ctx); len(names) != 1 || names[0] != "c" {
		t.Errorf("Collections shows %v: the record's collection must stay hidden", names)
	}
}
