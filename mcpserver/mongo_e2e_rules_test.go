package mcpserver_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestMongo_MCPReadWrite_Rules: the MCP server's writes over MongoDB
// (insert, insert_many, plan_update) refuse a document that breaks the
// collection's validation rules (as omgdb define keeps them, in
// omgdb.copy) with the file's error and write nothing; on a collection
// with redacted fields the message does not show the value; good
// documents are written.
func TestMongo_MCPReadWrite_Rules(t *testing.T) {
	cs, tools, db, _, audit := mongoRW(t)
	for coll, rules := range map[string]string{
		"visits":   `{"required":["ward"],"fields":{"ward":{"type":"string","enum":["A","B","C","D"]},"patient":["long","array"]}}`,
		"patients": `{"fields":{"ssn":["string","null"]}}`,
	} {
		if _, err := db.Collection("omgdb.copy").InsertOne(context.Background(), bson.D{{Key: "_id", Value: coll}, {Key: "rules", Value: rules}}); err != nil {
			t.Fatal(err)
		}
	}
	origVisits, origPatients := rawDocs(t, db, "visits"), rawDocs(t, db, "patients")
	var texts []string
	for _, tc := range []mongoCase{
		{name: "insert_type", tool: "insert", args: m{"collection": "visits", "document": m{"_id": 9, "ward": 5}}, code: "INVALID_ARGUMENT",
			check: wantMessage("document _id 9 breaks the rules of collection `visits`: field `ward` must be string, got int 5")},
		{name: "insert_missing", tool: "insert", args: m{"collection": "visits", "document": m{"_id": 9, "patient": m{"$numberLong": "1"}}}, code: "INVALID_ARGUMENT",
			check: wantMessage("required field `ward` is missing")},
		{name: "insert_double", tool: "insert", args: m{"collection": "visits", "document": m{"_id": 9, "ward": "A", "patient": 1.5}}, code: "INVALID_ARGUMENT",
			check: wantMessage("field `patient` must be long or array, got double 1.5")},
		{name: "insert_many_one_bad", tool: "insert_many", args: m{"collection": "visits", "documents": []any{m{"_id": 10, "ward": "A"}, m{"_id": 11, "ward": nil}}}, code: "INVALID_ARGUMENT",
			check: wantMessage("document _id 11 breaks the rules of collection `visits`: field `ward` must be string, got null")},
		{name: "plan_update", tool: "plan_update", args: m{"collection": "visits", "filter": m{"_id": 1}, "update": m{"$set": m{"ward": "Z"}}}, code: "INVALID_ARGUMENT",
			check: wantMessage("field `ward` must be one of [\"A\",\"B\",\"C\",\"D\"], got \"Z\"")},
		{name: "redacted", tool: "insert", args: m{"collection": "patients", "document": m{"_id": 9, "ssn": 123456789}}, code: "INVALID_ARGUMENT",
			check: wantMessage("details are not shown: this server redacts fields of `patients`")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, text := callMongo(t, cs, tools, tc)
			texts = append(texts, text)
			tc.check(t, sc)
		})
	}
	wantRaw(t, db, "visits", origVisits...)
	wantRaw(t, db, "patients", origPatients...)
	sc, text := callMongo(t, cs, tools, mongoCase{tool: "insert_many", args: m{"collection": "visits", "documents": []any{
		m{"_id": 10, "ward": "D", "patient": m{"$numberLong": "3"}}, m{"_id": 11, "ward": "A", "patient": []any{1, 2.5}}}}})
	texts = append(texts, text)
	wantField("inserted", 2.0)(t, sc)
	if got := rawDocs(t, db, "visits"); len(got) != len(origVisits)+2 {
		t.Errorf("good documents not written: %v", got)
	}
	checkLeaks(t, texts, "", audit, len(texts), []string{"123456789"}, []string{"123456789"})
}
