// Package vector is omgdb's retrieval for agents: a hashing embedder, an
// exact vector index, a BM25 full-text index, hybrid ranking by reciprocal
// rank fusion, token-budgeted context packs, and Markdown import.
package vector
