package engine

import "github.com/omgdb/omgdb/query/value"

// CollStats are the figures of a store file's statistics that a server's
// collStats also has, each taken from it: Documents from count, DataBytes
// from size (the documents' uncompressed size), Indexes from nindexes and
// IndexBytes from totalIndexSize; StorageBytes (storageSize: on disk,
// compressed) has no counterpart in a file's figures.
type CollStats struct {
	Name         string `json:"name"`
	Documents    int64  `json:"documents"`
	DataBytes    int64  `json:"data_bytes"`
	StorageBytes int64  `json:"storage_bytes"`
	Indexes      int64  `json:"indexes"`
	IndexBytes   int64  `json:"index_bytes"`
}

// CollStatsOf reads a collStats reply (at scale 1).
func CollStatsOf(name string, st value.Value) CollStats {
	num := func(k string) int64 { return StatNumber(st.Get(k)) }
	return CollStats{Name: name, Documents: num("count"), DataBytes: num("size"), StorageBytes: num("storageSize"),
		Indexes: num("nindexes"), IndexBytes: num("totalIndexSize")}
}

// StatNumber reads a figure of a server's statistics, which a server
// gives as an int, a long or a double; 0 when it is missing.
func StatNumber(v value.Value) int64 {
	switch v.Kind() {
	case value.Int, value.Long:
		return v.Long()
	case value.Double:
		return int64(v.Double())
	}
	return 0
}
