// Command retrieval builds the known-item corpora that measure omgdb's
// retrieval quality (docs/retrieval.md) from real text available offline:
//
//	go run ./bench/retrieval go [GOROOT/src] > go.jsonl
//	go run ./bench/retrieval debian /var/lib/apt/lists/*Translation-en* > debian.jsonl
//	go run ./bench/retrieval sample N SEED < corpus.jsonl > subset.jsonl
//
// Each line is {"_id","query","text"}: the query is a Go package's first
// doc sentence (the text is the rest of its doc comment) or a Debian
// package's synopsis (the text is its long description). The measurement
// itself runs as a test over a corpus:
//
//	go test ./vector -run TestQuality -corpus debian.jsonl -v
package main
