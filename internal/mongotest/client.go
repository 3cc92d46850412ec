package mongotest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// waitReady pings the server until it answers, for at most 30 seconds.
func waitReady(uri string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return fmt.Errorf("mongotest: connect %s: %w", uri, err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Ping(ctx, nil); err != nil {
		return fmt.Errorf("mongotest: FerretDB at %s does not answer: %w", uri, err)
	}
	return nil
}

// dropDatabase drops a test's database; a failure fails the test.
func dropDatabase(tb testing.TB, uri, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		tb.Errorf("mongotest: connect to drop %s: %v", name, err)
		return
	}
	defer c.Disconnect(context.Background())
	if err := c.Database(name).Drop(ctx); err != nil {
		tb.Errorf("mongotest: drop database %s: %v", name, err)
	}
}

// Client connects to the server for a test and disconnects when it ends.
func Client(tb testing.TB, uri string) *mongo.Client {
	tb.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		tb.Fatalf("mongotest: connect: %v", err)
	}
	tb.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

// Insert inserts documents given as Extended JSON into db.coll, for
// fixtures set up around omgdb.
func Insert(tb testing.TB, c *mongo.Client, db, coll string, docs ...string) {
	tb.Helper()
	var many []any
	for _, d := range docs {
		var doc bson.D
		if err := bson.UnmarshalExtJSON([]byte(d), false, &doc); err != nil {
			tb.Fatalf("mongotest: fixture %s: %v", d, err)
		}
		many = append(many, doc)
	}
	if _, err := c.Database(db).Collection(coll).InsertMany(context.Background(), many); err != nil {
		tb.Fatalf("mongotest: insert into %s.%s: %v", db, coll, err)
	}
}
