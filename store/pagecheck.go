package store

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// bbolt page layout, as its file format fixes it.
const (
	pageHeaderSize  = 16
	elementSize     = 16
	branchPageFlag  = 0x01
	leafPageFlag    = 0x02
	maxPageProblems = 20
)

// checkPages reads the file page by page and checks that every branch and
// leaf page's elements lie inside the page and point inside the file. It
// runs before any tree walk: bbolt trusts these offsets, and a damaged one
// makes it read outside its memory map, a fault no recover can catch when
// it happens in bbolt's own checker goroutine.
func checkPages(path string, pageSize int, highWater uint64) []string {
	f, err := os.Open(path)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	var problems []string
	buf := make([]byte, pageSize)
	for id := uint64(2); id < highWater && len(problems) < maxPageProblems; {
		if _, err := f.ReadAt(buf[:pageSize], int64(id)*int64(pageSize)); err != nil && err != io.EOF {
			return append(problems, fmt.Sprintf("page %d: %v", id, err))
		}
		flags := binary.LittleEndian.Uint16(buf[8:10])
		overflow := uint64(binary.LittleEndian.Uint32(buf[12:16]))
		span := int(overflow+1) * pageSize
		if id+overflow >= highWater {
			problems = append(problems, fmt.Sprintf("page %d: overflow %d runs past the end of the file", id, overflow))
			break
		}
		if flags == branchPageFlag || flags == leafPageFlag {
			if p := checkElements(buf[:pageSize], flags, span, highWater); p != "" {
				problems = append(problems, fmt.Sprintf("page %d: %s", id, p))
			}
		}
		id += overflow + 1
	}
	return problems
}

func checkElements(page []byte, flags uint16, span int, highWater uint64) string {
	count := int(binary.LittleEndian.Uint16(page[10:12]))
	if pageHeaderSize+count*elementSize > span {
		return fmt.Sprintf("%d elements do not fit in the page", count)
	}
	for i := 0; i < count; i++ {
		at := pageHeaderSize + i*elementSize
		if at+elementSize > len(page) {
			return "" // elements continue on overflow pages; their data is checked by reads
		}
		e := page[at : at+elementSize]
		var end uint64
		if flags == branchPageFlag {
			pos, ksize, child := binary.LittleEndian.Uint32(e[0:4]), binary.LittleEndian.Uint32(e[4:8]), binary.LittleEndian.Uint64(e[8:16])
			if child < 2 || child >= highWater {
				return fmt.Sprintf("branch element %d points to page %d, outside the file", i, child)
			}
			end = uint64(at) + uint64(pos) + uint64(ksize)
		} else {
			pos, ksize, vsize := binary.LittleEndian.Uint32(e[4:8]), binary.LittleEndian.Uint32(e[8:12]), binary.LittleEndian.Uint32(e[12:16])
			end = uint64(at) + uint64(pos) + uint64(ksize) + uint64(vsize)
		}
		if end > uint64(span) {
			return fmt.Sprintf("element %d reaches byte %d of a %d-byte page", i, end, span)
		}
	}
	return ""
}
