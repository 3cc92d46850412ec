package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
)

// rawFile reads a bbolt file page by page with ReadAt and trusts nothing in
// it: every offset, size and page id is checked before it is used. Verify
// uses it to check the shape of the tree before bbolt follows it (bbolt
// trusts the file and would read outside its memory map, or loop forever,
// on a damaged page), and Salvage uses it to read what it can of a file
// bbolt cannot open.
type rawFile struct {
	r         io.ReaderAt
	size      int64
	pageSize  int
	highWater uint64          // pages at or past it are not part of the tree
	root      uint64          // the root bucket's page (Salvage)
	free      map[uint64]bool // free pages, never read as part of the tree (Salvage)
}

// bbolt's file format, as bbolt v1.4 writes it.
const (
	pageHeaderSize   = 16
	elementSize      = 16
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	metaPageFlag     = 0x04
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01
	bucketHeaderSize = 16
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	maxTreeDepth     = 64
	maxRawPageSpan   = 1 << 30
)

// rawMeta is a meta page.
type rawMeta struct {
	page     uint64 // 0 or 1
	pageSize int
	root     uint64 // root page of the root bucket
	freelist uint64
	pgid     uint64 // high water mark
	txid     uint64
	err      string // why the page is invalid; empty when it is valid
}

// readMeta reads the meta page at off.
func readMeta(r io.ReaderAt, off int64, page uint64) rawMeta {
	buf := make([]byte, pageHeaderSize+64)
	if n, _ := r.ReadAt(buf, off); n < len(buf) {
		return rawMeta{page: page, err: "cannot be read (file too short)"}
	}
	le := binary.LittleEndian
	m := rawMeta{page: page, pageSize: int(le.Uint32(buf[24:])), root: le.Uint64(buf[32:]),
		freelist: le.Uint64(buf[48:]), pgid: le.Uint64(buf[56:]), txid: le.Uint64(buf[64:])}
	h := fnv.New64a()
	h.Write(buf[16:72])
	switch {
	case le.Uint64(buf) != page || le.Uint16(buf[8:]) != metaPageFlag:
		m.err = fmt.Sprintf("page header says page %d with flags 0x%x", le.Uint64(buf), le.Uint16(buf[8:]))
	case le.Uint32(buf[16:]) != boltMagic:
		m.err = "bad magic number"
	case le.Uint32(buf[20:]) != boltVersion:
		m.err = fmt.Sprintf("unknown version %d", le.Uint32(buf[20:]))
	case le.Uint64(buf[72:]) != h.Sum64():
		m.err = "checksum mismatch"
	case m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0:
		m.err = fmt.Sprintf("bad page size %d", m.pageSize)
	}
	return m
}

// readMetas reads both meta pages, finding the second one as bbolt does
// when the first is damaged.
func readMetas(r io.ReaderAt, size int64) [2]rawMeta {
	m0 := readMeta(r, 0, 0)
	if m0.err == "" {
		return [2]rawMeta{m0, readMeta(r, int64(m0.pageSize), 1)}
	}
	m1 := rawMeta{page: 1, err: "not found"}
	for off := int64(1024); off <= 1<<24 && off < size-1024; off <<= 1 {
		if m := readMeta(r, off, 1); m.err == "" && int64(m.pageSize) == off {
			m1 = m
			break
		}
	}
	return [2]rawMeta{m0, m1}
}

// bestMeta returns the valid meta page with the highest transaction id, as
// bbolt chooses it.
func bestMeta(metas [2]rawMeta) (rawMeta, bool) {
	m0, m1 := metas[0], metas[1]
	switch {
	case m0.err == "" && (m1.err != "" || m0.txid >= m1.txid):
		return m0, true
	case m1.err == "":
		return m1, true
	}
	return rawMeta{}, false
}

// rawPage is one page, with its overflow pages, as read from the file.
type rawPage struct {
	id    uint64
	flags uint16
	count int
	buf   []byte // the whole span: header, elements and data
}

// rawElem is one element of a branch or leaf page.
type rawElem struct {
	key, value []byte
	flags      uint32 // leaf elements: bucketLeafFlag for a nested bucket
	child      uint64 // branch elements
}

// page reads page id and its overflow pages, checking that they lie below
// the high water mark and that the header names the page.
func (rf *rawFile) page(id uint64) (*rawPage, error) {
	if id < 2 || id >= rf.highWater {
		return nil, fmt.Errorf("page %d is outside the file's %d pages", id, rf.highWater)
	}
	head := make([]byte, pageHeaderSize)
	if _, err := rf.r.ReadAt(head, int64(id)*int64(rf.pageSize)); err != nil {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	le := binary.LittleEndian
	p := &rawPage{id: id, flags: le.Uint16(head[8:]), count: int(le.Uint16(head[10:]))}
	overflow := uint64(le.Uint32(head[12:]))
	switch {
	case le.Uint64(head) != id:
		return nil, fmt.Errorf("page %d: header names page %d", id, le.Uint64(head))
	case id+overflow >= rf.highWater:
		return nil, fmt.Errorf("page %d: overflow of %d pages runs past the end of the file", id, overflow)
	case (overflow+1)*uint64(rf.pageSize) > maxRawPageSpan:
		return nil, fmt.Errorf("page %d: overflow of %d pages is implausible", id, overflow)
	}
	p.buf = make([]byte, int(overflow+1)*rf.pageSize)
	if _, err := rf.r.ReadAt(p.buf, int64(id)*int64(rf.pageSize)); err != nil && err != io.EOF {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	return p, nil
}

// inlinePage reads the page embedded in an inline bucket's value.
func inlinePage(value []byte) (*rawPage, error) {
	if len(value) < bucketHeaderSize+pageHeaderSize {
		return nil, fmt.Errorf("inline bucket of %d bytes is too short", len(value))
	}
	buf := value[bucketHeaderSize:]
	le := binary.LittleEndian
	return &rawPage{flags: le.Uint16(buf[8:]), count: int(le.Uint16(buf[10:])), buf: buf}, nil
}

// elems decodes the page's elements, checking that each lies inside it.
func (p *rawPage) elems() ([]rawElem, error) {
	if p.flags != branchPageFlag && p.flags != leafPageFlag {
		return nil, fmt.Errorf("page %d: flags 0x%x, want a branch or leaf page", p.id, p.flags)
	}
	if pageHeaderSize+p.count*elementSize > len(p.buf) {
		return nil, fmt.Errorf("page %d: %d elements do not fit in the page", p.id, p.count)
	}
	le := binary.LittleEndian
	out := make([]rawElem, p.count)
	for i := range out {
		at := pageHeaderSize + i*elementSize
		e := p.buf[at : at+elementSize]
		var pos, ksize, vsize uint64
		if p.flags == branchPageFlag {
			pos, ksize = uint64(le.Uint32(e[0:])), uint64(le.Uint32(e[4:]))
			out[i].child = le.Uint64(e[8:])
		} else {
			out[i].flags = le.Uint32(e[0:])
			pos, ksize, vsize = uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		}
		start := uint64(at) + pos
		if end := start + ksize + vsize; end > uint64(len(p.buf)) {
			return nil, fmt.Errorf("page %d: element %d reaches byte %d of a %d-byte page", p.id, i, end, len(p.buf))
		}
		out[i].key = p.buf[start : start+ksize]
		out[i].value = p.buf[start+ksize : start+ksize+vsize]
	}
	return out, nil
}

// rawBucket is a bucket: its root page, or its inline page when root is 0.
type rawBucket struct {
	root   uint64
	inline []byte // the bucket's value, for an inline bucket
}

// bucketOf returns the bucket a leaf element holds.
func bucketOf(e rawElem) (rawBucket, error) {
	if len(e.value) < bucketHeaderSize {
		return rawBucket{}, fmt.Errorf("bucket %q: header of %d bytes", e.key, len(e.value))
	}
	b := rawBucket{root: binary.LittleEndian.Uint64(e.value)}
	if b.root == 0 {
		b.inline = e.value
	}
	return b, nil
}

// rawProblem is a page or subtree the walk could not read.
type rawProblem struct {
	page     uint64 // 0 for an inline page
	firstKey []byte // the first key the unreadable subtree should hold, when known
	err      error
}

func (p rawProblem) String() string { return p.err.Error() }

// rawWalk walks trees of the file. Each page may be visited once: a page
// reached twice (a cycle, or two parents) is a problem, never a loop.
type rawWalk struct {
	rf   *rawFile
	seen map[uint64]bool
}

func (rf *rawFile) walker() *rawWalk { return &rawWalk{rf: rf, seen: map[uint64]bool{}} }

// forEach calls fn for each leaf element of bucket b in key order. Pages it
// cannot read are reported and skipped; the walk goes on past them.
func (w *rawWalk) forEach(b rawBucket, fn func(rawElem)) []rawProblem {
	if b.root == 0 {
		p, err := inlinePage(b.inline)
		if err != nil {
			return []rawProblem{{err: err}}
		}
		return w.visit(p, nil, 0, fn)
	}
	return w.visitID(b.root, nil, 0, fn)
}

func (w *rawWalk) visitID(id uint64, firstKey []byte, depth int, fn func(rawElem)) []rawProblem {
	if w.seen[id] {
		return []rawProblem{{page: id, firstKey: firstKey, err: fmt.Errorf("page %d is reached twice in the tree", id)}}
	}
	w.seen[id] = true
	if w.rf.free[id] {
		return []rawProblem{{page: id, firstKey: firstKey, err: fmt.Errorf("page %d is free: it holds no current data", id)}}
	}
	p, err := w.rf.page(id)
	if err != nil {
		return []rawProblem{{page: id, firstKey: firstKey, err: err}}
	}
	return w.visit(p, firstKey, depth, fn)
}

func (w *rawWalk) visit(p *rawPage, firstKey []byte, depth int, fn func(rawElem)) []rawProblem {
	if depth > maxTreeDepth {
		return []rawProblem{{page: p.id, firstKey: firstKey, err: fmt.Errorf("page %d: tree deeper than %d levels", p.id, maxTreeDepth)}}
	}
	elems, err := p.elems()
	if err != nil {
		return []rawProblem{{page: p.id, firstKey: firstKey, err: err}}
	}
	if p.flags == leafPageFlag {
		for _, e := range elems {
			fn(e)
		}
		return nil
	}
	var problems []rawProblem
	for _, e := range elems {
		problems = append(problems, w.visitID(e.child, e.key, depth+1, fn)...)
	}
	return problems
}

// readFreelist reads the freelist page into rf.free.
func (rf *rawFile) readFreelist(id uint64) error {
	p, err := rf.page(id)
	if err != nil {
		return err
	}
	if p.flags != freelistPageFlag {
		return fmt.Errorf("page %d: flags 0x%x, want a freelist page", id, p.flags)
	}
	le := binary.LittleEndian
	n, at := uint64(p.count), pageHeaderSize
	if p.count == 0xFFFF {
		n, at = le.Uint64(p.buf[pageHeaderSize:]), pageHeaderSize+8
	}
	if n > uint64(len(p.buf)-at)/8 {
		return fmt.Errorf("page %d: %d free page ids do not fit in the page", id, n)
	}
	for i := uint64(0); i < n; i++ {
		rf.free[le.Uint64(p.buf[at+int(i)*8:])] = true
	}
	return nil
}
