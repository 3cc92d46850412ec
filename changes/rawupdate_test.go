package changes

import (
	"math/rand/v2"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
)

// The raw update produces what the update produces on the decoded
// document (after PrepareDocument and AppendJSON, as planning writes it),
// and the same "changed", whenever it does not decline.
func TestRawUpdate_EqualsApply(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	took, declined := 0, 0
	for i := 0; i < 20000; i++ {
		doc, err := value.PrepareDocument(testgen.Document(r))
		if err != nil {
			continue
		}
		if doc.Get("_id").IsMissing() {
			doc = doc.With("_id", value.LongValue(int64(i))).IDFirst()
		}
		js := value.AppendJSON(nil, doc)
		update := randomUpdate(r, doc)
		u, err := query.CompileUpdate(update, nil)
		if err != nil {
			continue
		}
		ru := compileRawUpdate(update)
		if ru == nil {
			declined++
			continue
		}
		out, changed, ok := ru.apply(js)
		if !ok {
			declined++
			continue
		}
		took++
		after, wantChanged, err := u.Apply(doc, query.ApplyContext{})
		if err != nil {
			t.Fatalf("raw update took %s on %s, which the update refuses: %v", update, js, err)
		}
		if after, err = value.PrepareDocument(after); err != nil {
			t.Fatalf("raw update took %s on %s, whose result PrepareDocument refuses: %v", update, js, err)
		}
		want := value.AppendJSON(nil, after)
		if changed != wantChanged || string(out) != string(want) {
			t.Fatalf("update %s of %s:\nraw      %s (changed %v)\nexpected %s (changed %v)", update, js, out, changed, want, wantChanged)
		}
	}
	if took < 2000 || declined < 1000 {
		t.Fatalf("raw update took %d and declined %d: the generator misses a side", took, declined)
	}
}

// randomUpdate returns a $set/$inc update of doc's fields and others,
// mostly of the kinds the raw update takes.
func randomUpdate(r *rand.Rand, doc value.Value) value.Value {
	keys := []string{"score", "flag", "n", "é", "a.b", "$x", "_id", "k\"", ""}
	for _, f := range doc.Fields() {
		keys = append(keys, f.Key, f.Key)
	}
	var ops []value.Field
	used := map[string]bool{}
	for _, op := range []string{"$set", "$inc", "$unset"} {
		if r.IntN(3) == 0 || (op == "$unset" && r.IntN(10) != 0) {
			continue
		}
		var fields []value.Field
		for n := 1 + r.IntN(2); n > 0; n-- {
			k := keys[r.IntN(len(keys))]
			if used[k] {
				continue
			}
			used[k] = true
			var v value.Value
			switch {
			case op == "$inc" && r.IntN(6) != 0:
				v = testgen.Long(r)
			case op == "$inc":
				v = testgen.Double(r)
			case r.IntN(4) == 0:
				v = testgen.Storable(testgen.Value(r, 1))
			default:
				v = []value.Value{value.BoolValue(true), value.NullValue(), testgen.Long(r), value.StringValue(testgen.String(r)),
					doc.Get(k)}[r.IntN(5)]
				if v.IsMissing() {
					v = value.LongValue(1)
				}
			}
			fields = append(fields, value.Field{Key: k, Value: v})
		}
		if len(fields) > 0 {
			ops = append(ops, value.Field{Key: op, Value: value.ObjectValue(fields)})
		}
	}
	if len(ops) == 0 {
		ops = []value.Field{{Key: "$set", Value: value.ObjectValue([]value.Field{{Key: "flag", Value: value.BoolValue(true)}})}}
	}
	return value.ObjectValue(ops)
}

// BenchmarkRawUpdate runs the raw update on a 330-byte document, as
// planning an update runs it on every matched document.
func BenchmarkRawUpdate(b *testing.B) {
	js := []byte(`{"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"name":"user 1234","email":"user1234@example.com","age":31,"score":17.25,"active":true,"address":{"city":"Lima","zip":"00001","street":"Avenida \"Larco\" 1234"},"tags":["t1","t2","t3"],"orders":[{"sku":"A-1","qty":2,"price":1.99},{"sku":"B-1","qty":1,"price":5.5}],"note":null}`)
	ru := compileRawUpdate(value.MustParse(`{"$inc":{"score":1},"$set":{"flag":true}}`))
	if _, _, ok := ru.apply(js); !ok {
		b.Fatal("declined")
	}
	b.ReportAllocs()
	for b.Loop() {
		ru.apply(js)
	}
}
