package engine_test

import (
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/internal/enginetest"
	"github.com/omgdb/omgdb/internal/storetest"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// TestFile_Conformance runs the conformance suite against the store
// file.
func TestFile_Conformance(t *testing.T) {
	enginetest.Run(t, openFile, map[string]string{
		"aggregate_count_stage": "omgdb's $count gives a long where MongoDB gives an int (docs/differences.md)",
	})
}

// openFile loads the fixtures into a new store file.
func openFile(t *testing.T, fixtures []enginetest.Fixture) engine.Reader {
	db := storetest.MustOpen(t)
	err := db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		for _, fx := range fixtures {
			c, err := tx.CreateCollection(fx.Name)
			if err != nil {
				return err
			}
			for _, d := range fx.Docs {
				if _, err := c.Insert(value.MustParse(d)); err != nil {
					return err
				}
			}
			for _, ix := range fx.Indexes {
				fields, err := store.ParseKeyPattern(ix.Key)
				if err != nil {
					return err
				}
				def := store.BTreeIndex("", store.BTreeSpec{Fields: fields, Unique: ix.Unique, Sparse: ix.Sparse})
				if _, err := c.CreateBTreeIndexes(def); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("load fixtures: %v", err)
	}
	r := engine.NewFile(db)
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRedacting_File runs the redaction suite against the store file.
func TestRedacting_File(t *testing.T) {
	enginetest.RunRedacting(t, openFile, nil)
}
