package store

import "sync"

// metaCache keeps the decoded metadata records of collections, keyed by
// their stored bytes, so that a read transaction that opens a collection
// (every find, count and get of the CLI and the MCP server) does not
// unmarshal the same JSON again: a point find through an index spent a
// fifth of its time there. Read transactions share the cached value and
// never modify it; write transactions, which append index definitions to
// it, always decode their own.
type metaCache struct {
	mu sync.Mutex // guards m
	m  map[string]collMeta
}

// maxCachedMetas bounds the cache; past it, records are decoded each time.
const maxCachedMetas = 256

func (mc *metaCache) decode(raw []byte, name string, writable bool) (collMeta, error) {
	if writable {
		return decodeMeta(raw, name)
	}
	mc.mu.Lock()
	m, ok := mc.m[string(raw)]
	mc.mu.Unlock()
	if ok && (m.Name == "" || m.Name == name) {
		return m, nil
	}
	m, err := decodeMeta(raw, name)
	if err != nil {
		return m, err
	}
	mc.mu.Lock()
	if mc.m == nil {
		mc.m = map[string]collMeta{}
	}
	if len(mc.m) < maxCachedMetas {
		mc.m[string(raw)] = m
	}
	mc.mu.Unlock()
	return m, nil
}
