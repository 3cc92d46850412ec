package store

import (
	"encoding/json"
	"reflect"
	"testing"
)

// checkDecodeMetaFast fails unless decodeMetaFast, when it takes js,
// decodes it as encoding/json does.
func checkDecodeMetaFast(t *testing.T, js []byte) (taken bool) {
	t.Helper()
	fast, ok := decodeMetaFast(js)
	var want collMeta
	err := json.Unmarshal(js, &want)
	switch {
	case ok && err != nil:
		t.Errorf("%s: decoded, encoding/json refuses it: %v", js, err)
	case ok && !reflect.DeepEqual(fast, want):
		t.Errorf("%s: decoded as\n%#v\nencoding/json:\n%#v", js, fast, want)
	}
	return ok
}

func TestDecodeMetaFast_EqualsJSON(t *testing.T) {
	written := []collMeta{
		{Created: "2026-01-02T03:04:05.123456789Z"},
		{Name: "users", Created: "2026-01-02T03:04:05Z", Indexes: []IndexDef{
			BTreeIndex("", BTreeSpec{Fields: []IndexField{{Path: "age"}, {Path: "name", Desc: true}}, Unique: true}),
			{Name: "search_body", Kind: "search", Spec: json.RawMessage(`{"fields":["body","title"],"analyzer":"en"}`)},
			{Name: "v", Kind: "vector", Spec: json.RawMessage(`{"field":"t","note":"a \"quoted\" ] } string","dims":[1,2.5e3,-0]}`)},
		}, Rules: json.RawMessage(`{"$jsonSchema":{"required":["a"]},"x":[{"y":null}]}`)},
		{Name: "ünïcode ☃", Created: "c", Indexes: []IndexDef{}},
	}
	for _, m := range written {
		js, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !checkDecodeMetaFast(t, js) {
			t.Errorf("%s: what collMeta.encode writes goes to encoding/json", js)
		}
	}
	// Anything else must be refused or decoded alike.
	for _, js := range []string{
		``, `{}`, `null`, `[]`, `{"name":"a"} `, ` {"name" : "a" , "indexes" : [ ] }`, `{"name":"a\"b"}`,
		`{"Name":"a"}`, `{"name":"a","name":"b"}`, `{"name":null}`, `{"indexes":null}`, `{"rules":null}`,
		`{"rules":"x"}`, `{"rules":1}`, `{"rules":{"a":"}"}}`, `{"other":1}`, `{"indexes":[{"name":"a","kind":"b","spec":{}}]}`,
		`{"indexes":[{"name":"a","extra":1}]}`, `{"indexes":[{"name":"a","name":"b"}]}`, `{"indexes":[{}, {}]}`,
		`{"indexes":[1]}`, `{"indexes":{}}`, "{\"name\":\"\xff\"}", `{"name":"a"`, `{"name":"a"}}`, `{"created":5}`,
		`{"indexes":[{"spec":[1,{"a":[]}]}]}`, `{"indexes":[{"spec":"s"}]}`, "{\"name\":\"a\tb\"}",
	} {
		checkDecodeMetaFast(t, []byte(js))
	}
}

func FuzzDecodeMetaFast(f *testing.F) {
	f.Add([]byte(`{"name":"users","created":"c","indexes":[{"name":"age_1","kind":"btree","spec":{"fields":[{"path":"age"}]}}],"rules":{"a":1}}`))
	f.Add([]byte(`{"indexes":[{"spec":{"s":"\"}"}}]}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		checkDecodeMetaFast(t, js)
	})
}

// checkDecodeBTreeSpecFast is checkDecodeMetaFast for B-tree specs.
func checkDecodeBTreeSpecFast(t *testing.T, js []byte) (taken bool) {
	t.Helper()
	fast, ok := decodeBTreeSpecFast(js)
	var want BTreeSpec
	err := json.Unmarshal(js, &want)
	switch {
	case ok && err != nil:
		t.Errorf("%s: decoded, encoding/json refuses it: %v", js, err)
	case ok && !reflect.DeepEqual(fast, want):
		t.Errorf("%s: decoded as\n%#v\nencoding/json:\n%#v", js, fast, want)
	}
	return ok
}

func TestDecodeBTreeSpecFast_EqualsJSON(t *testing.T) {
	for _, s := range []BTreeSpec{
		{Fields: []IndexField{{Path: "age"}}},
		{Fields: []IndexField{{Path: "a.b"}, {Path: "ünï", Desc: true}}, Unique: true, Sparse: true},
	} {
		if !checkDecodeBTreeSpecFast(t, BTreeIndex("", s).Spec) {
			t.Errorf("%s: what BTreeIndex writes goes to encoding/json", BTreeIndex("", s).Spec)
		}
	}
	for _, js := range []string{
		``, `{}`, `null`, `{"fields":[]}`, `{"fields":null}`, `{"fields":[{"path":"a","desc":false}],"unique":false}`,
		`{"fields":[{"path":"a"}],"unique":1}`, `{"fields":[{"path":"a"}],"unique":null}`, `{"Fields":[{"path":"a"}]}`,
		`{"fields":[{"path":"a\"b"}]}`, `{"fields":[{"path":"a","path":"b"}]}`, `{"fields":[{"path":"a"}],"x":true}`,
		`{"fields":[{"path":"a"}],"unique":truex}`, ` { "fields" : [ { "path" : "a" , "desc" : true } ] } `, `{"fields":[{}]}`,
	} {
		checkDecodeBTreeSpecFast(t, []byte(js))
	}
}

func FuzzDecodeBTreeSpecFast(f *testing.F) {
	f.Add([]byte(`{"fields":[{"path":"age","desc":true}],"unique":true,"sparse":false}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		checkDecodeBTreeSpecFast(t, js)
	})
}
