package mongoengine

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

func TestIsURI(t *testing.T) {
	for arg, want := range map[string]bool{
		"mongodb://h/db": true, "mongodb+srv://c.example.net/db": true, "mongodb:": true, "mongodb:app": true,
		"app.omgdb": false, "./mongodb://x": false, "MONGODB://h/db": false, "": false, "mongo.omgdb": false,
	} {
		if got := IsURI(arg); got != want {
			t.Errorf("IsURI(%q) = %v, want %v", arg, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	env := map[string]string{EnvURI: "mongodb://ana:s3cr%40t@db1:27017,db2:27017/prod?replicaSet=rs0"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		arg, db, redacted string
		err               string
	}{
		{arg: "mongodb://127.0.0.1:27017/app", db: "app", redacted: "mongodb://127.0.0.1:27017/app"},
		{arg: "mongodb://u:pw@h/app?authSource=admin", db: "app", redacted: "mongodb://***@h/app?authSource=admin"},
		{arg: "mongodb+srv://u:p%2Fw@cluster0.example.net/shop", db: "shop", redacted: "mongodb+srv://***@cluster0.example.net/shop"},
		{arg: "mongodb:", db: "prod", redacted: "mongodb://***@db1:27017,db2:27017/prod?replicaSet=rs0"},
		{arg: "mongodb:other", db: "other", redacted: "mongodb://***@db1:27017,db2:27017/other?replicaSet=rs0"},
		{arg: "mongodb://h:27017", err: "names no database"},
		{arg: "mongodb://h:27017/?w=1", err: "names no database"},
		{arg: "mongodb://u:pw@h/a.b", err: `"a.b" is not a MongoDB database name`},
		{arg: "mongodb:bad$name", err: "is not a MongoDB database name"},
	}
	for _, c := range cases {
		got, err := Resolve(c.arg, getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || errs.KindOf(err) != errs.Usage {
				t.Errorf("Resolve(%q) error %v, want a usage error containing %q", c.arg, err, c.err)
			}
			if err != nil && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "s3cr")) {
				t.Errorf("Resolve(%q) error shows the password: %v", c.arg, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q): %v", c.arg, err)
			continue
		}
		if got.DB != c.db || got.Redacted != c.redacted {
			t.Errorf("Resolve(%q) = db %q, redacted %q; want %q, %q", c.arg, got.DB, got.Redacted, c.db, c.redacted)
		}
	}
}

func TestResolve_EnvMissing(t *testing.T) {
	_, err := Resolve("mongodb:app", func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), EnvURI) || errs.HintOf(err) == "" {
		t.Fatalf("error %v: want one naming $%s, with a hint", err, EnvURI)
	}
	_, err = Resolve("mongodb:app", func(string) string { return "postgres://u:pw@h/x" })
	if err == nil || strings.Contains(err.Error(), "pw") {
		t.Fatalf("error %v: want one that refuses a non-MongoDB URI without showing it", err)
	}
}

func TestRedact(t *testing.T) {
	uri := "mongodb://alice:p%40ssw0rd@h1,h2/db"
	for _, msg := range []string{
		"connect mongodb://alice:p%40ssw0rd@h1,h2/db failed",
		"auth failed for alice with p@ssw0rd",
		"bad userinfo alice:p%40ssw0rd",
	} {
		got := Redact(msg, uri)
		for _, secret := range []string{"p@ssw0rd", "p%40ssw0rd", "alice"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) = %q: still shows %q", msg, got, secret)
			}
		}
	}
	if got := Redact("connect to mongodb://h/db", "mongodb://h/db"); got != "connect to mongodb://h/db" {
		t.Errorf("a URI without credentials changed: %q", got)
	}
	if got := RedactURI("mongodb://u:p@h/db"); got != "mongodb://***@h/db" {
		t.Errorf("RedactURI = %q", got)
	}
}

// TestOpen_Unreachable_NoCredentials opens a URI with credentials on a
// port nobody listens on: the error is IO, says what to check, and shows
// neither the user nor the password.
func TestOpen_Unreachable_NoCredentials(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	target, err := Resolve("mongodb://omgdbuser:Sup3rSecretPw@"+addr+"/app?connectTimeoutMS=200", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), target, &Options{Timeout: 300 * time.Millisecond})
	if err == nil {
		t.Fatal("Open succeeded on a closed port")
	}
	checkNoSecret(t, err, "omgdbuser", "Sup3rSecretPw")
	if errs.KindOf(err) != errs.IO || errs.HintOf(err) == "" || !strings.Contains(err.Error(), "mongodb://***@"+addr+"/app") {
		t.Errorf("error %q (%s, hint %q): want an IO error naming the redacted URI, with a hint", err, errs.KindOf(err), errs.HintOf(err))
	}
}

// TestOpen_BadCredentials_NoCredentials connects to the test server with
// a user it does not know: whatever the server answers, the error shows
// neither the user nor the password.
func TestOpen_BadCredentials_NoCredentials(t *testing.T) {
	s, _ := mongotest.Start(t)
	uri := strings.Replace(s.URI, "mongodb://", "mongodb://omgdbuser:Sup3rSecretPw@", 1) + "app?authMechanism=PLAIN"
	target, err := Resolve(uri, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(context.Background(), target, &Options{Timeout: 2 * time.Second})
	if err == nil {
		// The server accepted the login (FerretDB on SQLite has no users):
		// then a failing read must not show them either.
		defer d.Close()
		_, err = d.Count(context.Background(), "nothing", value.Value{})
		if err == nil {
			t.Fatal("a count of a missing collection succeeded")
		}
	}
	t.Logf("error: %v", err)
	checkNoSecret(t, err, "omgdbuser", "Sup3rSecretPw")
}

func checkNoSecret(t *testing.T, err error, secrets ...string) {
	t.Helper()
	text := err.Error() + "\n" + errs.HintOf(err)
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("error shows %q: %s", s, text)
		}
	}
}
