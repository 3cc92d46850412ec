package store

import (
	"context"

	"github.com/omgdb/omgdb/query"
)

// Env returns the environment a pipeline runs in within tx: $lookup and
// $unionWith read the other collections of the store through it, as of
// the same transaction.
func (tx *Tx) Env() query.Env { return txEnv{tx} }

type txEnv struct{ tx *Tx }

func (e txEnv) Collection(ctx context.Context, name string) (query.Source, error) {
	c, err := e.tx.Collection(name)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, Query{}), nil
}

// Aggregate runs a compiled pipeline over the collection's documents. A
// leading $match is evaluated while scanning, so documents it rejects are
// never handed to the pipeline.
func (c *Collection) Aggregate(ctx context.Context, p *query.Pipeline) query.Source {
	return p.Run(ctx, c.Find(ctx, Query{}), c.tx.Env())
}
