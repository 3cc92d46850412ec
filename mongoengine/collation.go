package mongoengine

import (
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/collation"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Collated returns the engine with reads (Find, Count, Distinct,
// Aggregate) and the reads that make plans (PlanUpdate, PlanDelete)
// comparing strings by the collation spec: checked by omgdb's own parser
// (query/collation) first, then sent to the server with every field as
// that parser read it (its defaults made explicit). A missing or null
// spec, or {"locale":"simple"}, is the engine itself. The result shares
// d's connection: close d, not it.
func (d *DB) Collated(spec value.Value) (*DB, error) {
	c, err := collation.Parse(spec)
	if err != nil || c == nil {
		return d, err
	}
	s := c.Spec()
	cd := *d
	cd.collation = &options.Collation{Locale: s.Locale, CaseLevel: s.CaseLevel, CaseFirst: s.CaseFirst, Strength: s.Strength,
		NumericOrdering: s.NumericOrdering, Alternate: s.Alternate, MaxVariable: s.MaxVariable, Normalization: s.Normalization,
		Backwards: s.Backwards}
	cd.collationSpec = c.Value()
	return &cd, nil
}

// notImplemented is the server's NotImplemented error code (FerretDB
// answers it for a collation).
const notImplemented = 238

// collationRefused is the error of a server that refused a collation it
// does not implement (FerretDB v1), or nil.
func (d *DB) collationRefused(err error) error {
	if d.collation == nil {
		return nil
	}
	return d.noCollations(err)
}

// noCollations is the error of a server that answered err, NotImplemented
// for a collation (a query's or an index's), or nil.
func (d *DB) noCollations(err error) error {
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != notImplemented || !strings.Contains(ce.Message, "collation") {
		return nil
	}
	return errs.Errorf(errs.Usage, "MongoDB at %s does not support collations: it answered NotImplemented (%s)", d.target.Redacted, Redact(ce.Message, d.target.URI)).
		WithHint("leave the collation out (strings then compare by code point), or use a server that has collations (MongoDB 3.4 or later; FerretDB v1 has none)")
}

// CollatedReader is Collated as an engine.Reader (engine.Collater).
func (d *DB) CollatedReader(spec value.Value) (engine.Reader, error) {
	cd, err := d.Collated(spec)
	if err != nil {
		return nil, err
	}
	return cd, nil
}
