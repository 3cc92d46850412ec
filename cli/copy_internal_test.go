package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestIndexToFromMongo converts store indexes to createIndexes
// specifications and back (the way a server without omgdb's record
// gives them): B-tree with direction, unique, sparse and collation;
// 2dsphere; text with weights; vector is refused by name.
func TestIndexToFromMongo(t *testing.T) {
	defs := []string{
		`{"name":"age_-1_name_1","kind":"btree","spec":{"fields":[{"path":"age","desc":true},{"path":"name"}],"unique":true,"sparse":true}}`,
		`{"name":"loc_2dsphere","kind":"btree","spec":{"fields":[{"path":"loc","type":"2dsphere"}]}}`,
		`{"name":"title_text_body_text","kind":"text","spec":{"weights":{"body":1,"title":10},"default_language":"french","language_override":"lang"}}`,
	}
	wants := []string{
		`{"name":"age_-1_name_1","key":{"age":-1,"name":1},"unique":true,"sparse":true}`,
		`{"name":"loc_2dsphere","key":{"loc":"2dsphere"}}`,
		`{"name":"title_text_body_text","key":{"body":"text","title":"text"},"weights":{"body":1.0,"title":10.0},"default_language":"french","language_override":"lang"}`,
	}
	for i, d := range defs {
		var def store.IndexDef
		if err := json.Unmarshal([]byte(d), &def); err != nil {
			t.Fatal(err)
		}
		spec, err := indexToMongo("c", def)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if js := string(value.AppendEJSON(nil, spec, value.EJSONRelaxed)); js != wants[i] {
			t.Errorf("indexToMongo(%s)\n got %s\nwant %s", d, js, wants[i])
		}
		if def.Kind == "text" {
			continue // the server lists a text index by _fts: see below
		}
		back, err := indexFromMongo(spec)
		if err != nil || back.Name != def.Name || !sameJSON(back.Spec, def.Spec) {
			t.Errorf("indexFromMongo(%s) = %s %s, %v", wants[i], back.Name, back.Spec, err)
		}
	}
	listed, _ := value.ParseString(`{"v":2,"key":{"_fts":"text","_ftsx":1},"name":"t","weights":{"title":10,"body":1},"default_language":"french","language_override":"lang","textIndexVersion":3}`)
	back, err := indexFromMongo(listed)
	if err != nil || back.Kind != "text" || !sameJSON(back.Spec, []byte(`{"weights":{"body":1,"title":10},"default_language":"french","language_override":"lang"}`)) {
		t.Errorf("a listed text index: %+v %s, %v", back, back.Spec, err)
	}
	withColl, _ := value.ParseString(`{"v":2,"key":{"s":1},"name":"s_1","collation":{"locale":"fr","strength":2}}`)
	if back, err := indexFromMongo(withColl); err != nil || !json.Valid(back.Spec) || !contains(string(back.Spec), `"locale":"fr"`, `"strength":2`) {
		t.Errorf("an index with a collation: %s, %v", back.Spec, err)
	}
	vec := store.IndexDef{Name: "emb", Kind: "vector", Spec: json.RawMessage(`{}`)}
	if _, err := indexToMongo("docs", vec); err == nil || err.Error() != "index `emb` of `docs` is a vector index, which is omgdb's own: MongoDB cannot hold it" {
		t.Errorf("a vector index: %v", err)
	}
}

func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !json.Valid([]byte(s)) || !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
