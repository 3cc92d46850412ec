package cli

import (
	"reflect"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/mcpserver"
)

// TestReaderOnly_NoWriteMethod: what a read-scope MCP server over MongoDB
// is handed has the methods of engine.Reader, engine.Inspector and
// engine.Collater (a collated view, itself readerOnly) and no other, so
// no tool of it can reach a write.
func TestReaderOnly_NoWriteMethod(t *testing.T) {
	allowed := map[string]bool{}
	for _, iface := range []reflect.Type{reflect.TypeFor[engine.Reader](), reflect.TypeFor[engine.Inspector](), reflect.TypeFor[engine.Collater]()} {
		for i := range iface.NumMethod() {
			allowed[iface.Method(i).Name] = true
		}
	}
	ro := reflect.TypeFor[readerOnly]()
	for i := range ro.NumMethod() {
		if name := ro.Method(i).Name; !allowed[name] {
			t.Errorf("readerOnly has %s, which is not a read method", name)
		}
	}
	var v any = readerOnly{}
	if _, ok := v.(mcpserver.EngineWriter); ok {
		t.Error("readerOnly is an EngineWriter")
	}
	if _, ok := v.(engine.Inspector); !ok {
		t.Error("readerOnly does not explain: the read-scope server would not serve explain")
	}
}
