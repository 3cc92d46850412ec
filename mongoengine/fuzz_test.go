package mongoengine

import (
	"net/url"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/value"
)

// FuzzRedact builds a URI from any user name and password and checks
// that Redact removes them from a message that quotes the URI and the
// password as they are: the password and user name (of at least
// minSecret bytes) and the escaped userinfo never survive.
func FuzzRedact(f *testing.F) {
	f.Add("alice", "s3cr3t-pw", "dial failed: ")
	f.Add("u", "p@ss:w/rd%", "auth error ")
	f.Add("admin", "admin", "")
	f.Add("élodie", "mot de passe", "x")
	f.Fuzz(func(t *testing.T, user, pw, prefix string) {
		if user == "" {
			return
		}
		userinfo := url.UserPassword(user, pw).String()
		uri := "mongodb://" + userinfo + "@h1:27017,h2/db?tls=true"
		msg := prefix + uri + " (user " + user + ", password " + pw + ")"
		got := Redact(msg, uri)
		if strings.Contains(got, userinfo+"@") {
			t.Fatalf("Redact(%q) = %q: the userinfo survives", msg, got)
		}
		if len(pw) >= minSecret && strings.Contains(got, pw) {
			t.Fatalf("Redact(%q) = %q: the password survives", msg, got)
		}
		if len(user) >= minSecret && strings.Contains(got, user) {
			t.Fatalf("Redact(%q) = %q: the user name survives", msg, got)
		}
		if r := RedactURI(uri); r != "mongodb://***@h1:27017,h2/db?tls=true" {
			t.Fatalf("RedactURI(%q) = %q", uri, r)
		}
	})
}

// FuzzBSON sends any document omgdb accepts through the BSON conversion
// and the driver's encoder and back: it must come back the same, value
// for value and type for type.
func FuzzBSON(f *testing.F) {
	f.Add(`{"a":1,"b":{"$numberInt":"2"},"c":[1.5,{"$numberDecimal":"1E+10"}],"d":{"e":null}}`)
	f.Add(`{"_id":{"$oid":"5f0000000000000000000001"},"t":{"$timestamp":{"t":1,"i":2}},"r":{"$regularExpression":{"pattern":"a","options":"i"}}}`)
	f.Add(`{"k":{"$minKey":1},"b":{"$binary":{"base64":"AA==","subType":"80"}},"d":{"$date":"2020-01-01T00:00:00Z"}}`)
	f.Fuzz(func(t *testing.T, js string) {
		doc, err := value.ParseString(js)
		if err != nil || !doc.IsObject() {
			return
		}
		d, err := docToBSON(doc)
		if err != nil {
			return // a decimal out of decimal128's range, say: refused, not changed
		}
		raw, err := bson.Marshal(d)
		if err != nil {
			t.Fatalf("%s: marshal: %v", js, err)
		}
		back, err := fromDoc(raw)
		if err != nil {
			t.Fatalf("%s: from BSON: %v", js, err)
		}
		if got, want := canonical(back), canonical(doc); got != want {
			t.Fatalf("%s changed through BSON:\n got %s\nwant %s", js, got, want)
		}
	})
}
