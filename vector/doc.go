// Package vector is omgdb's retrieval for agents: a hashing embedder, an
// exact vector index, a BM25 full-text index, hybrid ranking by reciprocal
// rank fusion, token-budgeted context packs, and Markdown import. It
// registers two store index kinds, "vector" and "search".
//
// # Model
//
// Both kinds keep their data inside the store file, through the typed API
// the store offers index kinds (store.Vectors for vectors and their int8
// copies; store.TextIndex for postings, document frequencies, field
// lengths and statistics): this package decides what goes in, the store
// how it is laid out, and its Verify, Compact and Salvage cover it. They
// are maintained by the store in every write transaction (insert, replace,
// delete; hence apply and rollback), so searches never read stale data and
// need only a read transaction: any number of processes search while one
// writes. The store buffers the writes of a transaction and writes them in
// key order when it flushes the index, because the file's B+tree makes
// random inserts in one large transaction quadratic.
// Verify checks both kinds against the documents (store.IndexChecker), and
// Reindex rebuilds them.
//
// The embedder (Embedder, model ids "hashing-fnv1a-v<1|2>-d<dim>") needs no
// model files and gives the same vectors on every machine; a vector index
// records the model and a probe of its behaviour, so vectors of a changed
// embedder are detected and rebuilt, never mixed.
//
// # Guarantees
//
// VectorSearch is exact: every candidate is scored (an int8 first pass
// with error bounds only skips documents that provably cannot enter the
// top k). A filter is applied before ranking. Ties are broken by _id order,
// so results are deterministic; so are TextSearch, HybridSearch and Pack.
//
// # Caveats
//
// Inside a write transaction, a search does not see the transaction's own
// buffered index writes until the store flushes them at commit. The
// full-text index is our own inverted index over bbolt: bleve supplies the
// analyzers, the query-string parser and the BM25 formula, not the index.
// docs/retrieval.md describes the algorithms and the measured quality.
package vector
