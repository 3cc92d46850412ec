package mcpserver

import (
	"testing"
)

// TestDiff_DeniedCollectionsUncounted: a diff's totals count only the
// documents of collections the agent may see, however many it lists.
func TestDiff_DeniedCollectionsUncounted(t *testing.T) {
	open := newFixture(t, Config{Scope: ScopeReadWrite})
	open.standardStore()
	open.ok("create_snapshot", `{"path":"app.omgdb","name":"start"}`)
	for _, doc := range []string{`{"_id":11}`, `{"_id":12}`, `{"_id":13}`} {
		open.ok("insert", `{"path":"app.omgdb","collection":"orders","document":`+doc+`}`)
	}
	open.ok("insert", `{"path":"app.omgdb","collection":"users","document":{"_id":9,"name":"dee"}}`)
	tok := open.ok("plan_delete", `{"path":"app.omgdb","collection":"orders","filter":{"_id":10}}`)["token"].(string)
	open.ok("apply", `{"path":"app.omgdb","token":"`+tok+`"}`)

	f := newFixture(t, Config{Root: open.root, DenyCollections: []string{"orders"}, MaxDocs: 1})
	diff := f.ok("diff", `{"path":"app.omgdb","from":"start"}`)
	if diff["inserted"] != 1.0 || diff["deleted"] != 0.0 || diff["updated"] != 0.0 || len(diff["documents"].([]any)) != 1 {
		t.Errorf("diff with orders denied: %v", diff)
	}
	all := open.ok("diff", `{"path":"app.omgdb","from":"start"}`)
	if all["inserted"] != 4.0 || all["deleted"] != 1.0 {
		t.Errorf("diff with every collection: %v", all)
	}
}
