package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/store"
)

var diagnoseCases = []struct {
	name, filter string
	emptiedBy    int
	hint         string // the kind of the first hint, or ""
}{
	{"matches", `{"age":30}`, -1, ""},
	{"unknown_field_case", `{"Name":"Ana"}`, 0, "unknown_field"},
	{"unknown_field_typo", `{"age":{"$gte":18},"nmae":"Ana"}`, 1, "unknown_field"},
	{"unknown_field_dotted", `{"city":"Paris"}`, 0, "unknown_field"},
	{"unknown_field_separator", `{"address_zip":"75001"}`, 0, "unknown_field"},
	{"unknown_field_no_suggestion", `{"qqqqqq":1}`, 0, "unknown_field"},
	{"type_string_for_number", `{"age":"30"}`, 0, "type_mismatch"},
	{"type_number_for_string", `{"address.zip":75001}`, 0, "type_mismatch"},
	{"type_int32_for_string", `{"address.zip":{"$numberInt":"75001"}}`, 0, "type_mismatch"},
	{"type_in", `{"age":{"$in":["30","41"]}}`, 0, "type_mismatch"},
	{"type_range", `{"age":{"$gt":"35"}}`, 0, "type_mismatch"},
	{"regex_case", `{"name":{"$regex":"^ana"}}`, 0, "regex_case"},
	{"in_nested_array", `{"tags":{"$in":[["a","c"]]}}`, 0, "in_nested_array"},
	{"conjunction", `{"age":30,"address.city":"Lima"}`, 1, ""},
	{"two_hints", `{"age":"30","city":"Paris"}`, 0, "type_mismatch"},
	{"and_flattened", `{"$and":[{"age":{"$gt":20}},{"age":{"$lt":20}}]}`, 1, ""},
}

// TestDiagnose_Golden pins diagnose's JSON for each hint.
func TestDiagnose_Golden(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "users",
		`{"_id":1,"name":"Ana","age":30,"address":{"city":"Paris","zip":"75001"},"tags":["a","b"]}`,
		`{"_id":2,"name":"bob","age":41,"address":{"city":"Lima","zip":"15001"},"tags":["c"]}`,
		`{"_id":3,"name":"Cy","age":17,"address":{"city":"Paris","zip":"75002"}}`)
	for _, c := range diagnoseCases {
		t.Run(c.name, func(t *testing.T) {
			var d *store.Diagnosis
			err := db.View(func(tx *store.Tx) error {
				coll, _ := tx.Collection("users")
				var err error
				d, err = coll.Diagnose(context.Background(), mustFilter(t, c.filter), nil)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.MarshalIndent(d, "", "  ")
			js = append(js, '\n')
			golden := filepath.Join("testdata", "diagnose", c.name+".json")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, js, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(js, want) {
				t.Errorf("diagnose differs from %s (run with -update and review the diff):\n%s", golden, js)
			}
			if d.EmptiedBy != c.emptiedBy {
				t.Errorf("emptied_by = %d, want %d", d.EmptiedBy, c.emptiedBy)
			}
			got := ""
			if len(d.Hints) > 0 {
				got = d.Hints[0].Kind
			}
			if got != c.hint {
				t.Errorf("first hint = %q, want %q", got, c.hint)
			}
			if c.name == "two_hints" && (string(d.FixAll) != `{"age":30,"address.city":"Paris"}` || d.WouldMatch != 1) {
				t.Errorf("fix_all = %s matching %d", d.FixAll, d.WouldMatch)
			}
			if c.hint != "" && c.hint != "unknown_field" && c.name != "two_hints" && d.Hints[0].WouldMatch == 0 {
				t.Errorf("hint %s fixes nothing: %+v", c.hint, d.Hints[0])
			}
		})
	}
}
