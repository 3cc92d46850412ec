package rules

import (
	"encoding/json"

	"github.com/omgdb/omgdb/query/value"
)

// Report is what defining rules found: the existing documents checked
// against the new rules and those that break them. Defining rules never
// changes a document, and is not refused when some break them: later
// writes must follow them.
type Report struct {
	Collection string          `json:"collection"`
	Rules      json.RawMessage `json:"rules"` // null when cleared
	Checked    int64           `json:"checked"`
	Violations int64           `json:"violations"` // existing documents that break the new rules
	Examples   []string        `json:"examples"`   // the first few of them, as error messages
}

// MaxExamples bounds Report.Examples.
const MaxExamples = 5

// NewReport starts the report of defining spec (Missing: the rules are
// cleared) on coll.
func NewReport(coll string, spec json.RawMessage) *Report {
	rep := &Report{Collection: coll, Rules: json.RawMessage("null"), Examples: []string{}}
	if spec != nil {
		rep.Rules = spec
	}
	return rep
}

// Count checks one existing document against r and counts it.
func (rep *Report) Count(r *Rules, doc value.Value) {
	rep.Checked++
	if err := r.Check(rep.Collection, doc); err != nil {
		rep.Violations++
		if len(rep.Examples) < MaxExamples {
			rep.Examples = append(rep.Examples, err.Error())
		}
	}
}
