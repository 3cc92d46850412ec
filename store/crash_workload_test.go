package store_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/store"
)

// The crash workload writes to four collections, in transactions numbered
// by the parent (txn): "single" (one document per transaction), "multi"
// (2 to 40 documents per transaction, later updated or deleted as a
// group), "imp" (imports in batches) and "loaded" (loads of dumps). Every
// document is a function of its transaction, its position i, the number
// of documents n of its transaction, and the transaction v that last
// updated it, so the parent can rebuild the expected store exactly.
//
// The child prints, each in one write:
//
//	begin <kind> <txn> <args…>   before a transaction starts
//	ack <txn>                    after it committed (Update returned nil)
//	ack <txn> <lines>            after each committed batch of an import
//
// Kinds and their arguments: single; multi <n>; import <m> <batch>;
// load <n>; update <group> <n>; delete <group> <n>.

// crashDoc returns document i of transaction txn of n documents in coll,
// last updated by transaction v (0: never). About one in 25 documents
// outside "single" carries 6 to 16 KiB of hex, so it is stored compressed
// and often spans overflow pages.
func crashDoc(coll string, txn, i, n, v int64) query.Value {
	r := rand.New(rand.NewPCG(uint64(txn), uint64(i)))
	pad := make([]byte, r.IntN(32))
	if coll != "single" && r.IntN(25) == 0 {
		pad = make([]byte, 3000+r.IntN(5000))
	}
	for j := range pad {
		pad[j] = byte(r.Uint32())
	}
	f := []query.Field{
		{Key: "_id", Value: query.StringValue(crashID(txn, i))},
		{Key: "txn", Value: query.LongValue(txn)},
		{Key: "i", Value: query.LongValue(i)},
		{Key: "n", Value: query.LongValue(n)},
	}
	if v != 0 {
		f = append(f, query.Field{Key: "v", Value: query.LongValue(v)})
	}
	f = append(f, query.Field{Key: "pad", Value: query.StringValue(hex.EncodeToString(pad))})
	return query.ObjectValue(f)
}

func crashID(txn, i int64) string {
	return "T" + strconv.FormatInt(txn, 10) + "-" + strconv.FormatInt(i, 10)
}

// crashWriter is the child: args are the store path, a seed and the first
// transaction number.
func crashWriter(w io.Writer, args []string) error {
	seed, _ := strconv.ParseUint(args[1], 10, 64)
	txn, _ := strconv.ParseInt(args[2], 10, 64)
	db, err := store.Open(args[0], &store.Options{Create: true, Timeout: 10 * time.Second, Actor: "crash"})
	if err != nil {
		return err
	}
	groups, err := multiGroups(db)
	if err != nil {
		return err
	}
	say := func(format string, a ...any) { io.WriteString(w, fmt.Sprintf(format, a...)+"\n") }
	say("ready")
	r := rand.New(rand.NewPCG(seed, uint64(txn)))
	for ; ; txn++ {
		if err := crashStep(db, r, txn, groups, say); err != nil {
			return err
		}
	}
}

// multiGroups returns the transactions whose documents are in "multi",
// with their sizes.
func multiGroups(db *store.DB) (map[int64]int64, error) {
	groups := map[int64]int64{}
	err := db.View(func(tx *store.Tx) error {
		c, err := tx.Collection("multi")
		if err != nil {
			return nil
		}
		cur := c.Scan()
		for cur.Next() {
			d := cur.Doc()
			groups[d.Get("txn").Long()] = d.Get("n").Long()
		}
		return cur.Err()
	})
	return groups, err
}

func crashStep(db *store.DB, r *rand.Rand, txn int64, groups map[int64]int64, say func(string, ...any)) error {
	switch k := r.IntN(20); {
	case k < 5:
		say("begin single %d", txn)
		return crashInsert(db, "single", txn, 1, say)
	case k < 10:
		n := 2 + r.Int64N(39)
		say("begin multi %d %d", txn, n)
		groups[txn] = n
		return crashInsert(db, "multi", txn, n, say)
	case k < 14:
		m, b := 1+r.Int64N(300), 1+r.IntN(120)
		say("begin import %d %d %d", txn, m, b)
		return crashImport(db, txn, m, b, say)
	case k < 16:
		n := 1 + r.Int64N(60)
		say("begin load %d %d", txn, n)
		return crashLoad(db, txn, n, say)
	}
	g, n, ok := anyGroup(r, groups)
	if !ok {
		return nil
	}
	if r.IntN(2) == 0 {
		say("begin update %d %d %d", txn, g, n)
		return crashRewrite(db, txn, g, n, false, say)
	}
	say("begin delete %d %d %d", txn, g, n)
	delete(groups, g)
	return crashRewrite(db, txn, g, n, true, say)
}

func anyGroup(r *rand.Rand, groups map[int64]int64) (int64, int64, bool) {
	if len(groups) == 0 {
		return 0, 0, false
	}
	skip := r.IntN(len(groups))
	for g, n := range groups {
		if skip == 0 {
			return g, n, true
		}
		skip--
	}
	return 0, 0, false
}

func crashInsert(db *store.DB, coll string, txn, n int64, say func(string, ...any)) error {
	err := db.Update(store.Change{Kind: "insert"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for i := int64(0); i < n; i++ {
			if _, err := c.Insert(crashDoc(coll, txn, i, n, 0)); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		say("ack %d", txn)
	}
	return err
}

func crashNDJSON(coll string, txn, n int64, prefix string) string {
	var b strings.Builder
	if prefix != "" {
		b.WriteString(prefix + "}\n")
	}
	for i := int64(0); i < n; i++ {
		js := string(query.AppendJSON(nil, crashDoc(coll, txn, i, n, 0)))
		if prefix != "" {
			js = prefix + `,"document":` + js + "}"
		}
		b.WriteString(js + "\n")
	}
	return b.String()
}

func crashImport(db *store.DB, txn, m int64, batch int, say func(string, ...any)) error {
	_, err := db.Import(context.Background(), "imp", strings.NewReader(crashNDJSON("imp", txn, m, "")), &store.ImportOptions{
		BatchSize: batch,
		Progress:  func(lines, _ int64) { say("ack %d %d", txn, lines) },
	})
	return err
}

func crashLoad(db *store.DB, txn, n int64, say func(string, ...any)) error {
	_, err := db.Load(context.Background(), strings.NewReader(crashNDJSON("loaded", txn, n, `{"collection":"loaded"`)))
	if err == nil {
		say("ack %d", txn)
	}
	return err
}

// crashRewrite updates (v = txn) or deletes every document of group g.
func crashRewrite(db *store.DB, txn, g, n int64, del bool, say func(string, ...any)) error {
	err := db.Update(store.Change{Kind: "rewrite"}, func(tx *store.Tx) error {
		c, err := tx.Collection("multi")
		if err != nil {
			return err
		}
		for i := int64(0); i < n; i++ {
			id := query.StringValue(crashID(g, i))
			if del {
				err = c.Delete(id)
			} else {
				err = c.Replace(id, crashDoc("multi", g, i, n, txn))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		say("ack %d", txn)
	}
	return err
}
