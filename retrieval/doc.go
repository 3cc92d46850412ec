// Package retrieval runs omgdb's retrieval (vector search, full-text
// search and context packs, package vector) over any engine.Reader, such
// as a MongoDB deployment, where omgdb has no vector or search index.
//
// # Model: a bounded exact scan
//
// A search reads the first documents of the collection in _id order that
// match the caller's filter (the filter runs in the engine, on the
// server), at most Options.MaxScan of them (DefaultMaxScan, at most
// MaxScan), into a scratch store file of its own in the temporary
// directory, removed when the search ends. The scratch store is searched
// with package vector's own code, exactly as a store file without a vector
// index is: vector search embeds Options' field of each scanned document
// with omgdb's hashing embedder and scores it by cosine; full-text search
// indexes Options.Fields with a search index of the given analyzer and
// ranks by BM25; a context pack is built from the vector ranking. So
// on the same documents a search over an engine gives the same hits and
// scores as the same search on a store file (BM25 statistics are those of
// the scanned documents).
//
// Every result says what was scanned (Scan): how many documents, the cap,
// and whether the collection had more documents past it, in which case a
// document past the cap is never ranked and the result may miss the best
// hits.
//
// # Guarantees and caveats
//
// The scan reads through the Reader it is given: a server's
// engine.Redacting reader removes redacted paths in the first stage the
// server runs, so a redacted value is never stored in the scratch file,
// embedded, indexed, scored or returned. The scratch file holds copies of
// up to MaxScan documents for the duration of one search (mode 0600, in
// os.TempDir, removed afterwards, never synced to disk). Atlas
// $vectorSearch and $search and a server's $text are not used: none of
// them can be tested here (docs/mongodb.md).
package retrieval
