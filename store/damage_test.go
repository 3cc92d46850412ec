package store_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The damage suite builds real stores of several shapes, damages copies of
// them (random byte flips anywhere, flips inside pages in use, zeroed
// pages, truncations) and checks every outcome: opening fails cleanly with
// an I/O error, or Verify reports the damage and says where, or the data
// users can see is exactly as before (the damage hit free space). Reads of
// a damaged store return the original documents or an error, never other
// data, and Salvage copies only original documents into a store that
// verifies clean. No outcome may be a panic.

// damageFixture is a store built for the damage suite.
type damageFixture struct {
	name string
	path string
	orig *damageSnapshot
	live []int // pages in use (tree, meta, freelist), with overflow pages
	size int
}

// buildFixtures makes the stores: one page of documents; many pages with
// updates and deletes (so free pages hold old versions); and large
// documents stored compressed over overflow pages, with journal records
// over 4 KiB (compressed).
func buildFixtures(t *testing.T) []*damageFixture {
	t.Helper()
	dir := t.TempDir()
	specs := []struct {
		name  string
		steps []func(db *store.DB) error // one snapshot of history after each
	}{
		{"small", []func(*store.DB) error{
			func(db *store.DB) error { return damageInsert(db, "c", 0, 20, 60) },
		}},
		{"multipage", []func(*store.DB) error{
			func(db *store.DB) error { return damageImport(db, "users", 2000, 300, 500) },
			func(db *store.DB) error { return damageInsert(db, "tags", 0, 50, 20) },
			func(db *store.DB) error { return damageRewrite(db, "users", 100, 50) },
		}},
		{"compressed", []func(*store.DB) error{
			func(db *store.DB) error { return damageInsert(db, "blobs", 0, 30, 12000) },
			func(db *store.DB) error { return damageImport(db, "many", 600, 10, 600) },
			func(db *store.DB) error { return damageRewrite(db, "blobs", 10, 3) },
		}},
	}
	var out []*damageFixture
	for _, s := range specs {
		path := filepath.Join(dir, s.name+".omgdb")
		db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		// Every document version ever committed: a damaged newest meta page
		// makes bbolt fall back to the commit before.
		stored := map[string]bool{}
		var snap *damageSnapshot
		for _, step := range s.steps {
			if err := step(db); err != nil {
				t.Fatal(err)
			}
			if snap, err = takeSnapshot(db); err != nil {
				t.Fatal(err)
			}
			for l := range snap.docs {
				stored[l] = true
			}
		}
		snap.docs = stored
		db.Close()
		fi, _ := os.Stat(path)
		out = append(out, &damageFixture{name: s.name, path: path, orig: snap, live: livePages(t, path), size: int(fi.Size())})
	}
	return out
}

// damageDoc is document i of a fixture collection, with pad bytes of
// random hex (incompressible enough to need overflow pages when large).
func damageDoc(i, pad, version int) value.Value {
	r := rand.New(rand.NewPCG(uint64(i), uint64(pad)))
	b := make([]byte, pad/2)
	for j := range b {
		b[j] = byte(r.Uint32())
	}
	return value.MustParse(fmt.Sprintf(`{"_id":%d,"name":"doc-%d","v":%d,"pad":"%s"}`, i, i, version, hex.EncodeToString(b)))
}

func damageInsert(db *store.DB, coll string, from, n, pad int) error {
	return db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for i := from; i < from+n; i++ {
			if _, err := c.Insert(damageDoc(i, pad, 0)); err != nil {
				return err
			}
		}
		return nil
	})
}

func damageImport(db *store.DB, coll string, n, pad, batch int) error {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.Write(value.AppendJSON(nil, damageDoc(i, pad, 0)))
		b.WriteByte('\n')
	}
	_, err := db.Import(context.Background(), coll, strings.NewReader(b.String()), &store.ImportOptions{BatchSize: batch})
	return err
}

// damageRewrite updates the first n documents and deletes the next d.
func damageRewrite(db *store.DB, coll string, n, d int) error {
	return db.Update(store.Change{Kind: "rewrite"}, func(tx *store.Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		for i := 0; i < n+d; i++ {
			id := value.LongValue(int64(i))
			old, err := c.Get(id)
			if err != nil {
				return err
			}
			if i >= n {
				err = c.Delete(id)
			} else {
				err = c.Replace(id, old.With("v", value.LongValue(1)))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// livePages lists the pages bbolt uses, with their overflow pages.
func livePages(t *testing.T, path string) []int {
	bdb, err := bolt.Open(path, 0o644, nil) // read-write: a read-only handle has no freelist
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var live []int
	bdb.View(func(tx *bolt.Tx) error {
		high := int(tx.Size()) / bdb.Info().PageSize
		for id := 0; id < high; id++ {
			p, err := tx.Page(id)
			if err != nil || p == nil || p.Type == "free" {
				continue
			}
			for j := 0; j <= p.OverflowCount; j++ {
				live = append(live, id+j)
			}
			id += p.OverflowCount
		}
		return nil
	})
	return live
}

// damageSnapshot is what users can see of a store.
type damageSnapshot struct {
	docs    map[string]bool // dump lines (for a fixture: of every version ever committed)
	dump    string
	journal string // the log, and the change index for each record
	meta    string // store and collection metadata shown by inspect
}

func takeSnapshot(db *store.DB) (*damageSnapshot, error) {
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		return nil, err
	}
	s := &damageSnapshot{docs: map[string]bool{}, dump: b.String()}
	for _, l := range strings.Split(s.dump, "\n") {
		s.docs[l] = true
	}
	var j strings.Builder
	err := db.View(func(tx *store.Tx) error {
		return tx.Journal(0, func(r *store.Record) (bool, error) {
			recs, err := tx.ChangeRecords(r.Change)
			fmt.Fprintf(&j, "%s %d %v\n", value.AppendJSON(nil, r.Value()), len(recs), err)
			return true, nil
		})
	})
	if err != nil {
		return nil, err
	}
	s.journal = j.String()
	info, err := db.Info()
	if err != nil {
		return nil, err
	}
	s.meta = fmt.Sprint(info.Format, info.StoreID, info.Created, info.LastLSN)
	for _, c := range info.Collections {
		s.meta += fmt.Sprint(c.Name, c.Documents, c.Created)
	}
	return s, nil
}

// damageStats counts the outcomes.
type damageStats struct {
	cases, openRefused, detected, harmless, metaOnly int
	salvaged, salvageRefused                         int
	docsBefore, docsSalvaged                         int
}

// wherePattern is what a problem must name: a page, bucket, collection,
// document key, journal record or meta page.
var wherePattern = regexp.MustCompile(`page ?\(?\d+|bucket |collection |journal|meta page|file is truncated|store .* is damaged`)

func TestDamage_RandomCopies(t *testing.T) {
	seed := testSeed(t)
	fixtures := buildFixtures(t)
	var st damageStats
	for _, fx := range fixtures {
		data, err := os.ReadFile(fx.path)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, uint64(len(fx.name))))
		for i := 0; i < 40; i++ {
			damaged, how := damage(r, data, fx, i%5)
			p := filepath.Join(t.TempDir(), "d.omgdb")
			if err := os.WriteFile(p, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			checkDamaged(t, fx, p, fmt.Sprintf("%s copy %d (%s)", fx.name, i, how), &st, i%4 == 0)
		}
	}
	t.Logf("damage: %d damaged copies: %d refused at open, %d detected by verify, %d harmless (free space), %d changed only unchecksummed metadata",
		st.cases, st.openRefused, st.detected, st.harmless, st.metaOnly)
	t.Logf("damage: salvage ran on %d copies (%d refused: no valid meta page): %d of %d original documents recovered, none altered",
		st.salvaged+st.salvageRefused, st.salvageRefused, st.docsSalvaged, st.docsBefore)
}

// damage returns a damaged copy of data and says how.
func damage(r *rand.Rand, data []byte, fx *damageFixture, kind int) ([]byte, string) {
	d := append([]byte(nil), data...)
	ps := os.Getpagesize() // bbolt's page size
	switch kind {
	case 0: // flip bytes anywhere
		n := 1 + r.IntN(8)
		for j := 0; j < n; j++ {
			d[r.IntN(len(d))] ^= byte(1 + r.IntN(255))
		}
		return d, fmt.Sprintf("%d bytes flipped anywhere", n)
	case 1, 2: // flip bytes in pages in use
		n := 1 + r.IntN(4)
		for j := 0; j < n; j++ {
			page := fx.live[r.IntN(len(fx.live))]
			d[page*ps+r.IntN(ps)] ^= byte(1 + r.IntN(255))
		}
		return d, fmt.Sprintf("%d bytes flipped in pages in use", n)
	case 3: // zero a page in use
		page := fx.live[r.IntN(len(fx.live))]
		copy(d[page*ps:(page+1)*ps], make([]byte, ps))
		return d, fmt.Sprintf("page %d zeroed", page)
	}
	n := r.IntN(len(d))
	if r.IntN(2) == 0 {
		n -= n % ps
	}
	return d[:n], fmt.Sprintf("truncated to %d of %d bytes", n, len(d))
}

// checkDamaged checks one damaged copy, recovering a panic into a failure.
func checkDamaged(t *testing.T, fx *damageFixture, path, what string, st *damageStats, salvage bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", what, r)
		}
	}()
	st.cases++
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		if errs.KindOf(err) != errs.IO {
			t.Errorf("%s: open failed with %v, want an I/O (corruption) error", what, err)
		}
		st.openRefused++
	} else {
		checkOpenDamaged(t, fx, db, what, st)
		db.Close()
	}
	if salvage {
		checkSalvage(t, fx, path, what, st)
	}
}

func checkOpenDamaged(t *testing.T, fx *damageFixture, db *store.DB, what string, st *damageStats) {
	rep, verr := db.Verify(context.Background())
	// Reads return original documents or an error, never other data.
	var b bytes.Buffer
	db.Dump(context.Background(), &b)
	for _, l := range strings.Split(b.String(), "\n") {
		if !fx.orig.docs[l] && !strings.HasSuffix(b.String(), l) {
			t.Errorf("%s: a read returned data that was never stored: %.120s", what, l)
		}
	}
	switch {
	case verr != nil:
		st.detected++
	case !rep.OK:
		st.detected++
		for _, p := range rep.Problems {
			if !wherePattern.MatchString(p) {
				t.Errorf("%s: problem does not say where: %s", what, p)
			}
		}
	default:
		snap, err := takeSnapshot(db)
		switch {
		case err != nil:
			t.Errorf("%s: verify found nothing, but reading failed: %v", what, err)
		case snap.dump != fx.orig.dump || snap.journal != fx.orig.journal:
			t.Errorf("%s: verify found nothing, but the documents or journal changed", what)
		case snap.meta != fx.orig.meta:
			st.metaOnly++
		default:
			st.harmless++
		}
	}
}

// checkSalvage salvages the copy: what comes out must verify clean and
// hold only original documents.
func checkSalvage(t *testing.T, fx *damageFixture, path, what string, st *damageStats) {
	out := filepath.Join(t.TempDir(), "s.omgdb")
	rep, err := store.Salvage(context.Background(), path, out)
	if err != nil {
		if !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: salvage: %v", what, err)
		}
		st.salvageRefused++
		return
	}
	st.salvaged++
	db, err := store.Open(out, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("%s: open salvaged store: %v", what, err)
	}
	defer db.Close()
	vrep, err := db.Verify(context.Background())
	if err != nil || !vrep.OK {
		t.Errorf("%s: salvaged store does not verify: %v %v", what, err, vrep.Problems)
	}
	var b bytes.Buffer
	if err := db.Dump(context.Background(), &b); err != nil {
		t.Errorf("%s: dump salvaged store: %v", what, err)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !fx.orig.docs[l] {
			t.Errorf("%s: salvage produced a line that was never stored: %.120s", what, l)
		}
		if strings.Contains(l, `"document":`) {
			n++
		}
	}
	if int64(n) != rep.Recovered {
		t.Errorf("%s: report says %d recovered, the store holds %d", what, rep.Recovered, n)
	}
	st.docsSalvaged += n
	st.docsBefore += strings.Count(fx.orig.dump, `"document":`)
}

// TestSalvage_Healthy: a healthy store comes out identical and complete.
func TestSalvage_Healthy(t *testing.T) {
	for _, fx := range buildFixtures(t) {
		out := filepath.Join(t.TempDir(), "s.omgdb")
		rep, err := store.Salvage(context.Background(), fx.path, out)
		if err != nil || !rep.Complete || rep.Unreadable != 0 {
			t.Fatalf("%s: salvage = %+v, %v", fx.name, rep, err)
		}
		db, _ := store.Open(out, &store.Options{ReadOnly: true})
		var b bytes.Buffer
		db.Dump(context.Background(), &b)
		db.Close()
		if b.String() != fx.orig.dump {
			t.Errorf("%s: salvaged dump differs", fx.name)
		}
	}
}

// TestSalvage_DamagedDocument: one document's checksum fails: salvage
// copies the others, names the lost one, and reports incomplete.
func TestSalvage_DamagedDocument(t *testing.T) {
	path := makeStore(t, 300)
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("MARKER-00123"))
	data[i+8] ^= 1
	os.WriteFile(path, data, 0o644)
	out := filepath.Join(t.TempDir(), "s.omgdb")
	rep, err := store.Salvage(context.Background(), path, out)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Collections[0]
	if rep.Complete || c.Recovered != 299 || c.Expected != 300 || len(c.Unreadable) != 1 ||
		c.Unreadable[0].Key != hex.EncodeToString(value.AppendKey(nil, value.LongValue(123))) ||
		!strings.Contains(c.Unreadable[0].Reason, "checksum mismatch") {
		t.Fatalf("report = %+v %+v", rep, c)
	}
	if _, err := store.Salvage(context.Background(), path, out); errs.KindOf(err) != errs.Conflict {
		t.Errorf("salvage over an existing file = %v, want a conflict", err)
	}
}

// TestSalvage_LostPage: a zeroed leaf page of documents: the documents
// elsewhere are copied, the page is named with the first key it held.
func TestSalvage_LostPage(t *testing.T) {
	path := makeStore(t, 2000)
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("MARKER-01000"))
	ps := os.Getpagesize() // bbolt's page size
	page := i / ps
	copy(data[page*ps:(page+1)*ps], make([]byte, ps))
	os.WriteFile(path, data, 0o644)
	rep, err := store.Salvage(context.Background(), path, filepath.Join(t.TempDir(), "s.omgdb"))
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Collections[0]
	if rep.Complete || len(c.Unreadable) != 1 || c.Unreadable[0].Page != uint64(page) || c.Recovered < 1900 || c.Recovered >= 2000 {
		t.Fatalf("report = %+v %+v", rep, c)
	}
	keys := []string{}
	for _, l := range c.Unreadable {
		keys = append(keys, l.Reason)
	}
	sort.Strings(keys)
	t.Logf("lost page %d: %d of 2000 recovered; %v", page, c.Recovered, keys)
}
