package value_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/testgen"
	"github.com/omgdb/omgdb/query/value"
)

// slow is the reference: Parse + PrepareDocument + AppendJSON.
func slow(src []byte) ([]byte, error) {
	v, err := value.Parse(src)
	if err != nil {
		return nil, err
	}
	if v, err = value.PrepareDocument(v); err != nil {
		return nil, err
	}
	return value.JSON(v), nil
}

func TestAppendCanonicalDocument_Cases(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"_id":1,"a":2}`, `{"_id":1,"a":2}`},
		{` { "a" : 2 , "_id" : "x" } `, `{"_id":"x","a":2}`},
		{`{"a":1,"b":[1,2.0,-0,1e2],"_id":{"$oid":"507f1f77bcf86cd799439011"},"c":{"d":null}}`,
			`{"_id":{"$oid":"507f1f77bcf86cd799439011"},"a":1,"b":[1,2.0,0,100.0],"c":{"d":null}}`},
		{`{"_id":5,"d":{"$date":"2024-05-01T12:00:00Z"},"n":{"$numberLong":"7"}}`, `{"_id":5,"d":{"$date":1714564800000},"n":7}`},
		{`{"_id":5,"s":"tab\there \u00e9 \/ \"q\""}`, `{"_id":5,"s":"tab\there é / \"q\""}`},
		{`{"_id":{"a":1},"x":true}`, `{"_id":{"a":1},"x":true}`},
		{`{"_id":1}`, `{"_id":1}`},
	}
	for _, c := range cases {
		out, id, err := value.AppendCanonicalDocument(nil, []byte(c.in))
		if err != nil || string(out) != c.want {
			t.Errorf("AppendCanonicalDocument(%s) = %s, %v; want %s", c.in, out, err, c.want)
		}
		if !value.Equal(id, value.MustParse(c.want).Get("_id")) {
			t.Errorf("id of %s = %v", c.in, id)
		}
	}
	out, id, err := value.AppendCanonicalDocument([]byte("prefix"), []byte(`{"a":1}`))
	if err != nil || id.Kind() != value.ObjectID || string(out) != `prefix{"_id":`+id.String()+`,"a":1}` {
		t.Errorf("generated id: %s %v %v", out, id, err)
	}
	out, _, _ = value.AppendCanonicalDocument(nil, []byte(`{}`))
	if !strings.HasPrefix(string(out), `{"_id":{"$oid":"`) || !strings.HasSuffix(string(out), `"}}`) {
		t.Errorf("empty document: %s", out)
	}
}

// TestAppendCanonicalDocument_MatchesSlowPath: for random documents, in
// canonical and in loosely formatted text, and for broken variants, the
// fast path gives the bytes, or the error, of the slow path.
func TestAppendCanonicalDocument_MatchesSlowPath(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	mutations := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.ReplaceAll(s, ",", " , ") },
		func(s string) string { return strings.ReplaceAll(s, ":", ": ") },
		func(s string) string { return s[:len(s)/2] },
		func(s string) string { return strings.Replace(s, `"`, `"\u0061`, 1) },
		func(s string) string { return strings.Replace(s, "a", "$", 1) },
		func(s string) string { return strings.Replace(s, "b", ".", 1) },
		func(s string) string { return strings.Replace(s, "}", ",\"a\":1}", 1) },
		func(s string) string { return s + "x" },
		func(s string) string { return strings.Replace(s, "1", "\xff", 1) },
	}
	for i := 0; i < 20000; i++ {
		doc := testgen.Document(r)
		if doc.Get("_id").IsMissing() {
			doc = doc.With("_id", value.LongValue(int64(i))).IDFirst()
		}
		src := mutations[r.IntN(len(mutations))](string(value.JSON(doc)))
		want, wantErr := slow([]byte(src))
		got, id, gotErr := value.AppendCanonicalDocument(nil, []byte(src))
		if wantErr == nil && !bytes.HasPrefix(want, []byte(`{"_id":`)) {
			// The slow reference does not generate ids: use the fast path's.
			v := value.MustParse(string(want))
			want = value.JSON(value.ObjectValue(append([]value.Field{{Key: "_id", Value: id}}, v.Fields()...)))
		}
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Fatalf("%s\nfast error %v\nslow error %v", src, gotErr, wantErr)
		}
		if wantErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%s\nfast %s\nslow %s", src, got, want)
		}
	}
}

func BenchmarkAppendCanonicalDocument(b *testing.B) {
	src := []byte(`{"name":"user 1","email":"user1@example.com","age":31,"active":true,"address":{"city":"Lima","zip":"00001","geo":[1.5,2.25]},"tags":["t1","t2"],"orders":[{"sku":"A-1","qty":2,"price":1.99},{"sku":"B-1","qty":1,"price":5.0}],"score":1.5,"_id":1}`)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var out []byte
	for i := 0; i < b.N; i++ {
		out, _, _ = value.AppendCanonicalDocument(out[:0], src)
	}
}

func BenchmarkSlowCanonicalDocument(b *testing.B) {
	src := []byte(`{"name":"user 1","email":"user1@example.com","age":31,"active":true,"address":{"city":"Lima","zip":"00001","geo":[1.5,2.25]},"tags":["t1","t2"],"orders":[{"sku":"A-1","qty":2,"price":1.99},{"sku":"B-1","qty":1,"price":5.0}],"score":1.5,"_id":1}`)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		slow(src)
	}
}

// TestAppendCanonicalDocument_Numbers: numbers whose text is copied as it
// is (canonicalNumber) and numbers formatted again come out as the slow
// path writes them, for edge cases and 200,000 random number texts.
func TestAppendCanonicalDocument_Numbers(t *testing.T) {
	texts := []string{"0", "-0", "7", "-12", "9223372036854775807", "-9223372036854775808",
		"0.0", "-0.0", "1.0", "1.00", "10.0", "0.5", "-0.5", "1.50", "17.621", "0.000001", "0.0000001",
		"0.0000010", "123456789012345", "12345678901234.5", "123456789012345.5", "1234567890.12345",
		"0.1", "0.30000000000000004", "1e2", "1.5E+3", "-2e-7", "100000000000000000000.0",
		"999999999999999.9", "99999999999999.99", "5e-324", "1.7976931348623157e308"}
	r := rand.New(rand.NewPCG(20261122, 7))
	digits := func(n int, lead bool) string {
		var b strings.Builder
		for i := range n {
			d := r.IntN(10)
			if i == 0 && lead && n > 1 && d == 0 {
				d = 1 + r.IntN(9)
			}
			b.WriteByte(byte('0' + d))
		}
		return b.String()
	}
	for range 200000 {
		s := ""
		if r.IntN(3) == 0 {
			s = "-"
		}
		s += digits(1+r.IntN(16), true)
		if r.IntN(4) > 0 {
			s += "." + digits(1+r.IntN(12), false)
		}
		if r.IntN(8) == 0 {
			s += []string{"e", "E", "e+", "e-"}[r.IntN(4)] + digits(1+r.IntN(2), false)
		}
		texts = append(texts, s)
	}
	for _, n := range texts {
		src := []byte(`{"_id":1,"n":` + n + `,"a":[` + n + `]}`)
		want, wantErr := slow(src)
		got, _, err := value.AppendCanonicalDocument(nil, src)
		if (err == nil) != (wantErr == nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("%s:\nfast %s, %v\nslow %s, %v", n, got, err, want, wantErr)
		}
	}
}

// TestAppendCanonicalDocument_UTF8: keys and string values with valid
// non-ASCII text are copied; invalid UTF-8 anywhere in them is refused
// with the slow path's error.
func TestAppendCanonicalDocument_UTF8(t *testing.T) {
	for _, s := range []string{"é", "日本語", "a\u2028b", "\xff", "ab\xc3", "\xed\xa0\x80", "ok\xe2\x82"} {
		for _, src := range []string{`{"_id":1,"k":"` + s + `"}`, `{"_id":1,"` + s + `":1}`, `{"_id":1,"a":["x","` + s + `"]}`} {
			want, wantErr := slow([]byte(src))
			got, _, err := value.AppendCanonicalDocument(nil, []byte(src))
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) || !bytes.Equal(got, want) && err == nil {
				t.Errorf("%q:\nfast %s, %v\nslow %s, %v", src, got, err, want, wantErr)
			}
		}
	}
}

// TestAppendCanonicalDocument_Dates: {"$date":<integer>} is copied; every
// other form of the wrapper, and a broken one, gives the slow path's
// bytes or error.
func TestAppendCanonicalDocument_Dates(t *testing.T) {
	for _, d := range []string{`{"$date":1753309134000}`, `{ "$date" : -5 }`, `{"$date":0}`, `{"$date":-0}`,
		`{"$date":1.0}`, `{"$date":1e3}`, `{"$date":"2024-05-01T12:00:00Z"}`, `{"$date":1,"x":2}`, `{"$date":}`,
		`{"$date":12`, `{"$date":007}`, `{"$date":9223372036854775807}`, `{"$date":9223372036854775808}`, `{"$date":[1]}`} {
		for _, src := range []string{`{"_id":1,"d":` + d + `}`, `{"_id":1,"a":[` + d + `,` + d + `]}`, `{"_id":` + d + `}`} {
			want, wantErr := slow([]byte(src))
			got, _, err := value.AppendCanonicalDocument(nil, []byte(src))
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) || err == nil && !bytes.Equal(got, want) {
				t.Errorf("%s:\nfast %s, %v\nslow %s, %v", src, got, err, want, wantErr)
			}
		}
	}
}
