package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// Exports: the export tool writes a result as NDJSON to a temporary
// resource, omgdb://<store>/exports/<id>, which the session that made it
// reads in pages of at most --max-bytes (page n at …/exports/<id>/<n>).
// They live in memory, bounded in number, size and lifetime.
const (
	maxExports     = 8                // kept at once; making another drops the oldest
	maxExportBytes = 16 << 20         // of one export; documents past it are left out
	maxExportDocs  = 100000           // of one export
	exportLifetime = 10 * time.Minute // after which an export is gone
)

// export is one exported result.
type export struct {
	id      string
	owner   *session // only the session that made it reads it
	store   string   // the store path as the agent named it
	pages   [][]byte // NDJSON, split on document boundaries
	docs    int
	bytes   int
	expires time.Time
}

// exportStore holds the exports of a server.
type exportStore struct {
	mu   sync.Mutex // guards list
	list []*export  // oldest first
}

// add keeps an export, dropping expired ones and, beyond maxExports, the
// oldest.
func (es *exportStore) add(e *export, now time.Time) {
	es.mu.Lock()
	defer es.mu.Unlock()
	es.dropExpired(now)
	if len(es.list) >= maxExports {
		es.list = es.list[1:]
	}
	es.list = append(es.list, e)
}

func (es *exportStore) dropExpired(now time.Time) {
	kept := es.list[:0]
	for _, e := range es.list {
		if now.Before(e.expires) {
			kept = append(kept, e)
		}
	}
	es.list = kept
}

// get returns the export with this id made by ss, or nil.
func (es *exportStore) get(ss *session, id string, now time.Time) *export {
	es.mu.Lock()
	defer es.mu.Unlock()
	es.dropExpired(now)
	for _, e := range es.list {
		if e.id == id && e.owner == ss {
			return e
		}
	}
	return nil
}

// paginate splits NDJSON lines into pages of at most max bytes; a line
// longer than max is a page of its own.
func paginate(lines [][]byte, max int) [][]byte {
	var pages [][]byte
	var cur []byte
	for _, l := range lines {
		if len(cur) > 0 && len(cur)+len(l)+1 > max {
			pages, cur = append(pages, cur), nil
		}
		cur = append(append(cur, l...), '\n')
	}
	if len(cur) > 0 || len(pages) == 0 {
		pages = append(pages, cur)
	}
	return pages
}

// exportURI is the URI of an export's page (1-based; page 1 has none).
func exportURI(store, id string, page int) string {
	uri := storeURI(store) + "/exports/" + id
	if page > 1 {
		uri += "/" + strconv.Itoa(page)
	}
	return uri
}

// exportResource recognises …/exports/<id>[/<page>] and returns the
// store, id and page.
func exportResource(rest string) (store, id string, page int, ok bool) {
	i := strings.LastIndex(rest, "/exports/")
	if i <= 0 {
		return "", "", 0, false
	}
	id, pg, hasPage := strings.Cut(rest[i+len("/exports/"):], "/")
	page = 1
	if hasPage {
		n, err := strconv.Atoi(pg)
		if err != nil || n < 1 || strconv.Itoa(n) != pg {
			return "", "", 0, false
		}
		page = n
	}
	return rest[:i], id, page, id != ""
}

// readExport answers resources/read of an export's page.
func (ss *session) readExport(_ context.Context, uri, storePath, id string, page int) (value.Value, *rpcError) {
	e := ss.srv.exports.get(ss, id, ss.srv.cfg.Now())
	if e == nil || storeURI(e.store) != "omgdb://"+storePath || page > len(e.pages) {
		return value.Value{}, &rpcError{code: codeResourceNotFound, msg: "resource not found: " + truncate(uri, 200),
			data: obj("uri", truncate(uri, 200), "hint", fmt.Sprintf("exports last %s, at most %d at a time, and only in the session that made them; call export again", exportLifetime, maxExports))}
	}
	meta := obj("page", page, "pages", len(e.pages), "documents", e.docs)
	if page < len(e.pages) {
		meta = meta.With("next", jv(exportURI(e.store, id, page+1)))
	}
	return obj("contents", arr(obj("uri", uri, "mimeType", "application/x-ndjson", "text", string(e.pages[page-1]))),
		"_meta", meta), nil
}
