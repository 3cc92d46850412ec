package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/mcpserver"
	"github.com/omgdb/omgdb/query/errs"
)

// TestRedactURIs checks the last guard before stderr on its own: an
// error (and its hint) that carries a URI's credentials is printed
// without them, with its exit code unchanged.
func TestRedactURIs(t *testing.T) {
	t.Setenv("OMGDB_MONGODB_URI", "mongodb://envuser:EnvPassw0rd@h2/db")
	args := []string{"find", "--store=mongodb://argUser:ArgPassw0rd@h1:27017/app", "users"}
	inner := errs.Errorf(errs.NotFound, "cannot reach mongodb://argUser:ArgPassw0rd@h1:27017/app as argUser, nor h2 with EnvPassw0rd").
		WithHint("retry mongodb://envuser:EnvPassw0rd@h2/db")
	var out bytes.Buffer
	code := printError(&out, redactURIs(runError{inner}, args))
	got := out.String()
	for _, secret := range []string{"ArgPassw0rd", "argUser", "EnvPassw0rd", "envuser"} {
		if strings.Contains(got, secret) {
			t.Errorf("printed %q: %s", secret, got)
		}
	}
	if code != ExitNotFound || !strings.Contains(got, "mongodb://***@h1:27017/app") || !strings.Contains(got, "hint: retry mongodb://***@h2/db") {
		t.Errorf("exit %d, printed %q: want 66 and the redacted URIs", code, got)
	}
	if err := redactURIs(errors.New("x"), []string{"find", "app.omgdb"}); err.Error() != "x" {
		t.Errorf("an error without URIs changed: %v", err)
	}
}

// TestMongoMCP_WriterPerScope: the writer mongoMCP hands the MCP server
// has the methods of its scope only: none at read scope, no drop at
// read-write scope, the drops at dangerous scope.
func TestMongoMCP_WriterPerScope(t *testing.T) {
	t.Parallel()
	uri := mongotest.Own(t).URI + "app"
	e := &env{}
	for _, tc := range []struct {
		scope          mcpserver.Scope
		writer, schema bool
		dangerous      bool
	}{
		{mcpserver.ScopeRead, false, false, false},
		{mcpserver.ScopeReadWrite, true, true, false},
		{mcpserver.ScopeDangerous, true, true, true},
	} {
		db, reader, w, err := e.mongoMCP(context.Background(), uri, tc.scope)
		if err != nil {
			t.Fatal(err)
		}
		_, schema := w.(mcpserver.EngineSchemaWriter)
		_, dangerous := w.(mcpserver.EngineDangerousWriter)
		_, readerWrites := reader.(mcpserver.EngineWriter)
		if (w != nil) != tc.writer || schema != tc.schema || dangerous != tc.dangerous || (tc.scope == mcpserver.ScopeRead && readerWrites) {
			t.Errorf("%s: writer %v, schema %v, dangerous %v, reader writes %v", tc.scope, w != nil, schema, dangerous, readerWrites)
		}
		db.Close()
	}
}
