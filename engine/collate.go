package engine

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Collater is a Reader that can read with a collation (the MongoDB
// engine, and the wrappers around it): CollatedReader returns the same
// reader comparing strings by spec, checked first by omgdb's collation
// parser (an Invalid error names the field at fault).
type Collater interface {
	CollatedReader(spec value.Value) (Reader, error)
}

// Collated returns r reading with the collation spec: r itself for a
// missing spec, and a Usage error when r cannot take one.
func Collated(r Reader, spec value.Value) (Reader, error) {
	if spec.IsMissing() {
		return r, nil
	}
	c, ok := r.(Collater)
	if !ok {
		return nil, errs.Errorf(errs.Usage, "this engine takes no collation").
			WithHint("leave the collation out")
	}
	return c.CollatedReader(spec)
}

// CollatedReader is the redacting reader over r collated: the redaction
// stays the first stage of every read.
func (rd *redacting) CollatedReader(spec value.Value) (Reader, error) {
	in, err := Collated(rd.Reader, spec)
	if err != nil {
		return nil, err
	}
	return &redacting{Reader: in, paths: rd.paths}, nil
}
