package mongoengine

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/mongotest"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// sentCommands opens the engine on the test server with a monitor that
// keeps every command sent, by name.
func sentCommands(t *testing.T) (*DB, func(name string) []bson.Raw) {
	t.Helper()
	_, uri := mongotest.Start(t)
	target, err := Resolve(uri, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[string][]bson.Raw{}
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		mu.Lock()
		defer mu.Unlock()
		sent[e.CommandName] = append(sent[e.CommandName], append(bson.Raw(nil), e.Command...))
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(target.URI).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	d := &DB{target: target, client: client, db: client.Database(target.DB)}
	return d, func(name string) []bson.Raw {
		mu.Lock()
		defer mu.Unlock()
		return sent[name]
	}
}

// TestCollated_SentAndRefused: a collation checked by omgdb's parser is
// sent with every read that makes a result or a plan (find, count,
// distinct, aggregate, and the find of plan-update and plan-delete), each
// field as the parser read it, defaults explicit; FerretDB, which has no
// collations, refuses each with NotImplemented, which omgdb reports as a
// usage error naming the server, and no plan is stored. A bad collation
// is omgdb's own error, before anything is sent; "simple" is none.
func TestCollated_SentAndRefused(t *testing.T) {
	d, sent := sentCommands(t)
	ctx := context.Background()
	if _, err := d.db.Collection("k").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "a"}}, bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: "A"}}}); err != nil {
		t.Fatal(err)
	}
	cd, err := d.Collated(input(`{"locale":"fr_CA","strength":1,"numericOrdering":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"locale": "fr_CA","caseFirst": "off","strength": {"$numberInt":"1"},"numericOrdering": true,"alternate": "non-ignorable","maxVariable": "punct","backwards": true}`
	filter := input(`{"s":"a"}`)
	cu, _ := compileForTest(input(`{"$set":{"t":1}}`))
	calls := []struct {
		name, cmd string
		run       func() error
	}{
		{"find", "find", func() error {
			return cd.Find(ctx, "k", &engine.Find{Filter: filter}, func(value.Value) error { return nil })
		}},
		{"count", "aggregate", func() error { _, err := cd.Count(ctx, "k", filter); return err }},
		{"distinct", "distinct", func() error { _, err := cd.Distinct(ctx, "k", "s", filter); return err }},
		{"aggregate", "aggregate", func() error {
			return cd.Aggregate(ctx, "k", input(`[{"$match":{"s":"a"}}]`), func(value.Value) error { return nil })
		}},
		{"plan_update", "find", func() error {
			_, err := cd.PlanUpdate(ctx, &PlanSpec{Collection: "k", Filter: filter, Update: input(`{"$set":{"t":1}}`), Compiled: cu})
			return err
		}},
		{"plan_delete", "find", func() error { _, err := cd.PlanDelete(ctx, &PlanSpec{Collection: "k", Filter: filter}); return err }},
	}
	for _, c := range calls {
		before := len(sent(c.cmd))
		err := c.run()
		if errs.KindOf(err) != errs.Usage || err == nil || !strings.Contains(err.Error(), "does not support collations: it answered NotImplemented") ||
			!strings.Contains(errs.HintOf(err), "FerretDB v1 has none") {
			t.Errorf("%s: %v (hint %q), want FerretDB's refusal of the collation", c.name, err, errs.HintOf(err))
			continue
		}
		cmds := sent(c.cmd)
		if len(cmds) != before+1 {
			t.Errorf("%s: %d %s commands sent, want 1", c.name, len(cmds)-before, c.cmd)
			continue
		}
		if got := strings.ReplaceAll(cmds[before].Lookup("collation").String(), " ", ""); got != strings.ReplaceAll(want, " ", "") {
			t.Errorf("%s sent collation %s, want %s", c.name, got, want)
		}
	}
	if n, err := d.db.Collection(PlansColl).CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Errorf("plans stored after refused plans: %d, %v", n, err)
	}
	sentBefore := len(sent("find"))
	for _, bad := range []string{`{"locale":"en","strenght":2}`, `{"strength":2}`, `{"locale":"en","version":"57.1"}`, `"en"`} {
		if _, err := d.Collated(input(bad)); errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "invalid collation") {
			t.Errorf("collation %s: %v", bad, err)
		}
	}
	for _, none := range []string{`{"locale":"simple"}`, `null`} {
		sd, err := d.Collated(input(none))
		if err != nil || sd != d {
			t.Fatalf("collation %s: %v, %v", none, sd, err)
		}
	}
	n := 0
	if err := d.Find(ctx, "k", &engine.Find{Filter: filter}, func(value.Value) error { n++; return nil }); err != nil || n != 1 {
		t.Errorf("find without a collation: %d, %v", n, err)
	}
	if cmds := sent("find"); len(cmds) != sentBefore+1 || cmds[sentBefore].Lookup("collation").Type != 0 {
		t.Errorf("find without a collation sent %v", cmds[sentBefore:])
	}
}
