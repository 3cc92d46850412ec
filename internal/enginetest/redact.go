package enginetest

import (
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
)

// RedactFixtures are the collections of the redaction suite: "patients"
// has redacted fields (Redactions), "visits" has none.
var RedactFixtures = []Fixture{
	{Name: "patients", Docs: []string{
		`{"_id":1,"name":"ana","ssn":"111-11","card":{"number":"4111","exp":"12/30"},"age":{"$numberInt":"30"}}`,
		`{"_id":2,"name":"bob","ssn":null,"card":[{"number":"4222"},{"number":"4333","exp":"01/31"}],"age":41}`,
		`{"_id":3,"name":"cy","age":{"$numberDouble":"25.5"}}`,
	}},
	{Name: "visits", Docs: []string{
		`{"_id":1,"patient":1,"ward":"A"}`,
		`{"_id":2,"patient":2,"ward":"B"}`,
	}},
}

// Redactions are the redacted paths of the redaction suite, by
// collection.
var Redactions = map[string][]string{"patients": {"ssn", "card.number"}}

const (
	redactDesign = "omgdb: DESIGN.md section 6 (redaction before filters)"
	redactDeny   = "omgdb: DESIGN.md section 8 (deny lists on the parsed pipeline)"
)

// all three patients as a reader with the redactions sees them
var redactedPatients = []string{
	`{"_id":1,"name":"ana","card":{"exp":"12/30"},"age":{"$numberInt":"30"}}`,
	`{"_id":2,"name":"bob","card":[{},{"exp":"01/31"}],"age":41}`,
	`{"_id":3,"name":"cy","age":{"$numberDouble":"25.5"}}`,
}

// RedactCases are reads through engine.Redacting: no result may hold a
// redacted value or depend on one, and joins of a collection with
// redacted fields are refused.
var RedactCases = []Case{
	{Name: "redact_find_all", From: redactDesign, Coll: "patients", Want: redactedPatients},
	{Name: "redact_filter_equality_probe", From: redactDesign, Coll: "patients", Filter: `{"ssn":"111-11"}`, Want: nil},
	{Name: "redact_filter_exists_probe", From: redactDesign, Coll: "patients", Filter: `{"ssn":{"$exists":true}}`, Want: nil},
	{Name: "redact_filter_null_matches_all", From: nullQuery, Coll: "patients", Filter: `{"ssn":null}`, Project: `{"name":1}`,
		Want: []string{`{"_id":1,"name":"ana"}`, `{"_id":2,"name":"bob"}`, `{"_id":3,"name":"cy"}`}},
	{Name: "redact_filter_regex_probe_through_array", From: redactDesign, Coll: "patients", Filter: `{"card.number":{"$regex":"^4"}}`, Want: nil},
	{Name: "redact_filter_not_redacted_sibling", From: redactDesign, Coll: "patients", Filter: `{"card.exp":"01/31"}`, Project: `{"name":1}`,
		Want: []string{`{"_id":2,"name":"bob"}`}},
	{Name: "redact_sort_by_redacted_is_id_order", From: redactDesign, Coll: "patients", Sort: `{"ssn":-1}`, Project: `{"name":1}`,
		Want: []string{`{"_id":1,"name":"ana"}`, `{"_id":2,"name":"bob"}`, `{"_id":3,"name":"cy"}`}},
	{Name: "redact_project_redacted", From: redactDesign, Coll: "patients", Project: `{"ssn":1}`,
		Want: []string{`{"_id":1}`, `{"_id":2}`, `{"_id":3}`}},
	{Name: "redact_sort_mixed_numbers_skip_limit", From: numberLong, Coll: "patients", Sort: `{"age":-1}`, Skip: 1, Limit: 1, Project: `{"age":1}`,
		Want: []string{`{"_id":1,"age":{"$numberInt":"30"}}`}},
	{Name: "redact_count_probe", From: redactDesign, Op: Count, Coll: "patients", Filter: `{"ssn":{"$type":"string"}}`, Want: []string{`{"$numberLong":"0"}`}},
	{Name: "redact_count_all", From: redactDesign, Op: Count, Coll: "patients", Want: []string{`{"$numberLong":"3"}`}},
	{Name: "redact_count_mixed_numbers", From: numberLong, Op: Count, Coll: "patients", Filter: `{"age":{"$gte":30}}`, Want: []string{`{"$numberLong":"2"}`}},
	{Name: "redact_distinct_redacted", From: redactDesign, Op: Distinct, Coll: "patients", Field: "ssn", Want: nil},
	{Name: "redact_distinct_redacted_through_array", From: redactDesign, Op: Distinct, Coll: "patients", Field: "card.number", Want: nil},
	{Name: "redact_distinct_sibling_through_array", From: distArray, Op: Distinct, Coll: "patients", Field: "card.exp",
		Want: []string{`"01/31"`, `"12/30"`}},
	{Name: "redact_distinct_filter_probe", From: redactDesign, Op: Distinct, Coll: "patients", Field: "name", Filter: `{"ssn":"111-11"}`, Want: nil},
	{Name: "redact_aggregate_match_probe", From: redactDesign, Op: Aggregate, Coll: "patients", Pipeline: `[{"$match":{"ssn":"111-11"}}]`, Want: nil},
	{Name: "redact_aggregate_project", From: redactDesign, Op: Aggregate, Coll: "patients",
		Pipeline: `[{"$match":{"ssn":{"$exists":false}}},{"$project":{"name":1,"card":1}}]`,
		Want:     []string{`{"_id":1,"name":"ana","card":{"exp":"12/30"}}`, `{"_id":2,"name":"bob","card":[{},{"exp":"01/31"}]}`, `{"_id":3,"name":"cy"}`}},
	{Name: "redact_aggregate_other_collection", From: redactDesign, Op: Aggregate, Coll: "visits", Pipeline: `[{"$match":{"ward":"B"}}]`,
		Want: []string{`{"_id":2,"patient":2,"ward":"B"}`}},
	{Name: "redact_lookup_refused", From: redactDeny, Op: Aggregate, Coll: "visits",
		Pipeline: `[{"$lookup":{"from":"patients","localField":"patient","foreignField":"_id","as":"p"}}]`,
		Err:      "joins `patients`, which has redacted fields", ErrKind: errs.Denied},
	{Name: "redact_unionwith_refused", From: redactDeny, Op: Aggregate, Coll: "visits", Pipeline: `[{"$unionWith":"patients"}]`,
		Err: "joins `patients`", ErrKind: errs.Denied},
	{Name: "redact_graphlookup_refused", From: redactDeny, Op: Aggregate, Coll: "visits",
		Pipeline: `[{"$graphLookup":{"from":"patients","startWith":"$patient","connectFromField":"_id","connectToField":"_id","as":"p"}}]`,
		Err:      "joins `patients`", ErrKind: errs.Denied},
	{Name: "redact_facet_lookup_refused", From: redactDeny, Op: Aggregate, Coll: "visits",
		Pipeline: `[{"$facet":{"x":[{"$lookup":{"from":"patients","pipeline":[{"$match":{"ssn":"111-11"}}],"as":"p"}}]}}]`,
		Err:      "joins `patients`", ErrKind: errs.Denied},
	{Name: "redact_nested_unionwith_refused", From: redactDeny, Op: Aggregate, Coll: "visits",
		Pipeline: `[{"$unionWith":{"coll":"visits","pipeline":[{"$lookup":{"from":"patients","as":"p","pipeline":[]}}]}}]`,
		Err:      "joins `patients`", ErrKind: errs.Denied},
}

// RunRedacting runs RedactCases against the engine open makes, read
// through engine.Redacting with Redactions. unsupported maps a case's
// name to why the engine cannot run it.
func RunRedacting(t *testing.T, open Open, unsupported map[string]string) {
	r := engine.Redacting(open(t, RedactFixtures), func(coll string) []string { return Redactions[coll] })
	runCases(t, r, RedactCases, unsupported)
}
