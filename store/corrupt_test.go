package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// makeStore writes n documents with a recognisable marker and closes the store.
func makeStore(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.omgdb")
	db, err := store.Open(path, &store.Options{Create: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(store.Change{}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection("docs")
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if _, err := c.Insert(value.MustParse(fmt.Sprintf(`{"_id":%d,"marker":"MARKER-%05d","pad":"%s"}`, i, i, strings.Repeat("x", 200)))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

func verifyFile(t *testing.T, path string) (*store.VerifyReport, error) {
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Verify(context.Background())
}

func TestVerify_DetectsFlippedDocumentByte(t *testing.T) {
	path := makeStore(t, 50)
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("MARKER-00025"))
	if i < 0 {
		t.Fatal("marker not found")
	}
	data[i+7] = '9' // MARKER-90025: still valid JSON, wrong data
	os.WriteFile(path, data, 0o644)
	rep, err := verifyFile(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), "checksum mismatch") {
		t.Fatalf("verify missed a flipped byte: %+v", rep)
	}
	// Reading the damaged document is an error, not wrong data.
	db, _ := store.Open(path, &store.Options{ReadOnly: true})
	defer db.Close()
	err = db.View(func(tx *store.Tx) error {
		c, _ := tx.Collection("docs")
		_, err := c.Get(value.LongValue(25))
		return err
	})
	if errs.KindOf(err) != errs.IO {
		t.Errorf("reading a damaged document = %v, want an I/O (corruption) error", err)
	}
}

// TestVerify_RandomDamage flips random bytes and truncates copies: every
// outcome must be a clean error or a report, never a panic; damage to
// pages in use must be detected.
func TestVerify_RandomDamage(t *testing.T) {
	path := makeStore(t, 300)
	orig, _ := os.ReadFile(path)
	detected, cases := 0, 0
	for i := 0; i < 60; i++ {
		data := append([]byte(nil), orig...)
		switch i % 3 {
		case 0:
			data = data[:len(data)*(i+1)/61]
		default:
			for j := 0; j < 8; j++ {
				data[(i*7919+j*104729)%len(data)] ^= 0x5a
			}
		}
		p := filepath.Join(t.TempDir(), "d.omgdb")
		os.WriteFile(p, data, 0o644)
		cases++
		rep, err := verifyFile(t, p)
		if err != nil || !rep.OK {
			detected++
		}
	}
	t.Logf("damaged copies: %d, detected: %d", cases, detected)
	if detected < cases/2 {
		t.Errorf("only %d of %d damaged copies detected", detected, cases)
	}
}
