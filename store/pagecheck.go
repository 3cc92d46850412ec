package store

import (
	"fmt"
	"os"
)

// maxPageProblems bounds the page problems one check lists.
const maxPageProblems = 20

// checkPages checks the shape of the tree of transaction txid, reading the
// file itself: that the meta page is valid, that every page reached lies
// inside the file and names itself, that every element lies inside its
// page, and that no page is reached twice. It runs before any bbolt walk:
// bbolt trusts these offsets, and a damaged one makes it read outside its
// memory map (a fault no recover can catch in bbolt's own checker
// goroutine) or loop forever. Free pages are not read: they may hold
// anything, such as the pages of a transaction that never committed.
func checkPages(path string, txid uint64, highWater uint64) []string {
	f, err := os.Open(path)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return []string{err.Error()}
	}
	metas := readMetas(f, fi.Size())
	var problems []string
	var meta *rawMeta
	for i := range metas {
		switch {
		case metas[i].err == "" && metas[i].txid == txid:
			meta = &metas[i]
		case metas[i].err != "":
			problems = append(problems, fmt.Sprintf("meta page %d: %s (bbolt falls back to the other meta page, the commit before)", i, metas[i].err))
		}
	}
	if meta == nil {
		return append(problems, fmt.Sprintf("no valid meta page for transaction %d", txid))
	}
	rf := &rawFile{r: f, size: fi.Size(), pageSize: meta.pageSize, highWater: highWater}
	return append(problems, checkTree(rf, meta)...)
}

// checkTree walks every bucket from the root and lists the problems.
func checkTree(rf *rawFile, meta *rawMeta) []string {
	// bbolt's own check reads the freelist in a goroutine of its own, where
	// a damaged one crashes the process: check it here first.
	rf.free = map[uint64]bool{}
	if meta.freelist != ^uint64(0) { // ^0: bbolt's NoFreelistSync, no freelist page
		if err := rf.readFreelist(meta.freelist); err != nil {
			return []string{fmt.Sprintf("meta page %d: freelist: %v", meta.page, err)}
		}
	}
	w := rf.walker()
	w.seen[meta.freelist] = true
	var problems []string
	var walk func(b rawBucket, name string)
	walk = func(b rawBucket, name string) {
		ps := w.forEach(b, func(e rawElem) {
			if e.flags&bucketLeafFlag == 0 || len(problems) >= maxPageProblems {
				return
			}
			sub, err := bucketOf(e)
			if err != nil {
				problems = append(problems, fmt.Sprintf("bucket %s: %v", bucketPath(name), err))
				return
			}
			walk(sub, name+"/"+string(e.key))
		})
		for _, p := range ps {
			if len(problems) < maxPageProblems {
				problems = append(problems, fmt.Sprintf("bucket %s: %v", bucketPath(name), p))
			}
		}
	}
	walk(rawBucket{root: meta.root}, "")
	return problems
}

// bucketPath names a bucket in problems: "/" for the root.
func bucketPath(name string) string {
	if name == "" {
		return "/"
	}
	return name
}
