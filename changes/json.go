package changes

import (
	"github.com/omgdb/omgdb/query/value"
)

// Doc is a document or value inside a result, marshalled as canonical JSON
// (value.AppendJSON), so results print exactly as documents are stored.
// The missing value (a document that does not exist) marshals as null.
type Doc struct{ value.Value }

// MarshalJSON returns the canonical JSON of the value.
func (d Doc) MarshalJSON() ([]byte, error) { return value.AppendJSON(nil, d.Value), nil }

// UnmarshalJSON parses canonical or Extended JSON.
func (d *Doc) UnmarshalJSON(b []byte) error {
	v, err := value.Parse(b)
	if err != nil {
		return err
	}
	d.Value = v
	return nil
}

// docPtr returns a *Doc for v, or nil when v is missing (for fields that
// are left out of a result when absent).
func docPtr(v value.Value) *Doc {
	if v.IsMissing() {
		return nil
	}
	return &Doc{v}
}
