package agg

import (
	"github.com/omgdb/omgdb/query/value"
)

// Source is a stream of documents, read as
//
//	for src.Next() { doc := src.Doc() … }
//	if err := src.Err(); err != nil { … }
//	src.Close()
type Source interface {
	Next() bool
	Doc() value.Value
	Err() error
	Close() error
}
