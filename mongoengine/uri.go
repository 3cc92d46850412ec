package mongoengine

import (
	"net/url"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
)

// EnvURI is the environment variable a store argument of the form
// "mongodb:" or "mongodb:DB" takes the deployment's URI from, so that
// credentials stay out of the command line (and ps).
const EnvURI = "OMGDB_MONGODB_URI"

// IsURI reports whether a store argument names a MongoDB deployment
// rather than a file: "mongodb://…", "mongodb+srv://…", or "mongodb:" and
// "mongodb:DB" (the URI from $OMGDB_MONGODB_URI).
func IsURI(arg string) bool {
	return strings.HasPrefix(arg, "mongodb:") || strings.HasPrefix(arg, "mongodb+srv://")
}

// Target is a resolved store argument: the URI to connect with and the
// database it names (the URI's path, or the one "mongodb:DB" names).
type Target struct {
	URI string // with credentials: never print it, print Redacted
	DB  string
	// Redacted is the URI with its userinfo replaced by "***", the only
	// form of it that may appear in output, errors or logs.
	Redacted string
}

// Resolve turns a store argument into a Target. getenv reads the
// environment (os.Getenv). The database is the URI's path; "mongodb:DB"
// names it in place of the environment URI's.
func Resolve(arg string, getenv func(string) string) (*Target, error) {
	uri, db := arg, ""
	if rest, ok := strings.CutPrefix(arg, "mongodb:"); ok && !strings.HasPrefix(rest, "//") {
		uri, db = getenv(EnvURI), rest
		if uri == "" {
			return nil, errs.Errorf(errs.Usage, "store %q takes its MongoDB URI from $%s, which is not set", arg, EnvURI).
				WithHint("export %s='mongodb://user:password@host/DB', or give the URI as the store", EnvURI)
		}
		if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
			return nil, errs.Errorf(errs.Usage, "$%s is not a MongoDB URI (it must start with mongodb:// or mongodb+srv://)", EnvURI).
				WithHint("set it to mongodb://host/DB")
		}
	}
	t := &Target{URI: uri, Redacted: RedactURI(uri)}
	pathDB := uriDatabase(uri)
	if db == "" {
		db = pathDB
	}
	if db == "" {
		return nil, errs.Errorf(errs.Usage, "MongoDB URI %s names no database", t.Redacted).
			WithHint("end the URI with the database: mongodb://host/DB")
	}
	if strings.ContainsAny(db, `/\. "$`) || len(db) > 63 {
		return nil, errs.Errorf(errs.Usage, "%q is not a MongoDB database name (at most 63 bytes, none of / \\ . space \" $)", db).
			WithHint("name the database at the end of the URI: mongodb://host/DB")
	}
	t.DB = db
	if db != pathDB {
		t.Redacted = withDatabase(t.Redacted, db)
	}
	return t, nil
}

// withDatabase returns uri with its path naming db, its options kept,
// for messages about a database other than the URI's own (the URI that
// connects keeps its path, which is also the default authSource).
func withDatabase(uri, db string) string {
	scheme, auth, rest := hostPart(uri)
	_, query, hasQuery := strings.Cut(rest, "?")
	out := scheme + auth + "/" + url.PathEscape(db)
	if hasQuery {
		out += "?" + query
	}
	return out
}

// hostPart splits a URI into its scheme and "://", the authority, and
// the rest (from the first '/' or '?' after the authority).
func hostPart(uri string) (scheme, authority, rest string) {
	i := strings.Index(uri, "://")
	if i < 0 {
		return "", "", uri
	}
	scheme, after := uri[:i+3], uri[i+3:]
	j := strings.IndexAny(after, "/?")
	if j < 0 {
		return scheme, after, ""
	}
	return scheme, after[:j], after[j:]
}

// uriDatabase returns the database of a URI's path, unescaped.
func uriDatabase(uri string) string {
	_, _, rest := hostPart(uri)
	rest, _, _ = strings.Cut(rest, "?")
	db := strings.TrimPrefix(rest, "/")
	if u, err := url.PathUnescape(db); err == nil {
		db = u
	}
	return db
}

// RedactURI returns uri with its userinfo (user and password) replaced by
// "***". A URI without userinfo is returned as it is.
func RedactURI(uri string) string {
	scheme, auth, rest := hostPart(uri)
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		auth = "***" + auth[at:]
	}
	return scheme + auth + rest
}

// secrets returns the strings of uri that must never be printed: the
// userinfo, and the password and the user name when they have at least
// minSecret bytes (a shorter one would blank out ordinary words of a
// message), each as escaped in the URI and unescaped.
func secrets(uri string) []string {
	_, auth, _ := hostPart(uri)
	at := strings.LastIndex(auth, "@")
	if at < 0 {
		return nil
	}
	userinfo := auth[:at]
	user, pass, _ := strings.Cut(userinfo, ":")
	var out []string
	for i, s := range []string{userinfo, pass, user} {
		if s == "" || i > 0 && len(s) < minSecret {
			continue
		}
		out = append(out, s)
		if u, err := url.PathUnescape(s); err == nil && u != s {
			out = append(out, u)
		}
		if u, err := url.QueryUnescape(s); err == nil && u != s {
			out = append(out, u)
		}
	}
	return out
}

// minSecret is the shortest user name or password Redact blanks out on
// its own (the whole userinfo is always blanked out).
const minSecret = 4

// Redact replaces in s every occurrence of uri and of its credentials
// (userinfo, user name, password, escaped or not) with the redacted form
// or "***".
func Redact(s, uri string) string {
	if uri == "" {
		return s
	}
	s = strings.ReplaceAll(s, uri, RedactURI(uri))
	for _, secret := range secrets(uri) {
		s = strings.ReplaceAll(s, secret, "***")
	}
	return s
}
