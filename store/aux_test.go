package store_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

func TestBlob_LargeIsCompressedAndDamageIsAnError(t *testing.T) {
	big := []byte(`"` + strings.Repeat("abc", 10000) + `"`)
	raw := store.EncodeBlob(big)
	if len(raw) >= len(big) {
		t.Errorf("a %d-byte payload was stored in %d bytes", len(big), len(raw))
	}
	if got, err := store.DecodeBlob(raw); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("round trip: %v", err)
	}
	raw[len(raw)/2] ^= 0xff
	if _, err := store.DecodeBlob(raw); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("damaged blob = %v, want corrupt", err)
	}
}

func TestCursor_KeyIsTheKeyOfTheID(t *testing.T) {
	db := storetest.MustOpen(t)
	storetest.Insert(t, db, "c", `{"_id":"b"}`, `{"_id":2}`, `{"_id":{"$oid":"665f1c2e9b1d4a0c8e7f6a5b"}}`)
	db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("c")
		n := 0
		for cur := c.Scan(); cur.Next(); n++ {
			if want := value.AppendKey(nil, cur.Doc().Get("_id")); !bytes.Equal(cur.Key(), want) {
				t.Errorf("key %x, want %x", cur.Key(), want)
			}
		}
		if n != 3 {
			t.Errorf("scanned %d documents", n)
		}
		return nil
	})
}

// sliceDocs is a agg.Source over documents given as JSON.
type sliceDocs struct {
	docs []string
	i    int
}

func (s *sliceDocs) Next() bool       { s.i++; return s.i <= len(s.docs) }
func (s *sliceDocs) Doc() value.Value { return value.MustParse(s.docs[s.i-1]) }
func (s *sliceDocs) Err() error       { return nil }
func (s *sliceDocs) Close() error     { return nil }

func TestFindIn_AppliesTheWholeQuery(t *testing.T) {
	src := &sliceDocs{docs: []string{`{"_id":1,"n":5}`, `{"_id":2,"n":1}`, `{"_id":3,"n":3}`, `{"_id":4,"n":9}`}}
	f, _ := query.CompileFilter(value.MustParse(`{"n":{"$lt":9}}`))
	s, _ := query.CompileSort(value.MustParse(`{"n":-1}`))
	p, _ := query.CompileProjection(value.MustParse(`{"_id":1}`))
	out := store.FindIn(context.Background(), src, store.Query{Filter: f, Sort: s, Projection: p, Skip: 1, Limit: 1})
	var got []string
	for out.Next() {
		got = append(got, out.Doc().String())
	}
	if strings.Join(got, ",") != `{"_id":3}` || out.Err() != nil {
		t.Errorf("FindIn = %v, %v", got, out.Err())
	}
}
