package store

import (
	"bufio"
	"context"
	"io"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Dump writes the whole store as deterministic canonical NDJSON: for each
// collection in name order, a line {"collection":"<name>"}, one line
// {"collection":"<name>","document":{…}} per document in _id order, then
// {"collection":"<name>","rules":{…}} when it has validation rules and one
// {"collection":"<name>","index":{"name","kind","spec"}} per index, by
// name. Load reads it back, applying rules and building indexes after the
// documents; dump, load, dump gives the same bytes.
func (db *DB) Dump(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	err := db.View(func(tx *Tx) error {
		for _, name := range tx.Collections() {
			if err := dumpCollection(ctx, tx, name, bw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func dumpCollection(ctx context.Context, tx *Tx, name string, w *bufio.Writer) error {
	c, err := tx.Collection(name)
	if err != nil {
		return err
	}
	prefix := value.AppendString([]byte(`{"collection":`), name)
	w.Write(prefix)
	w.WriteString("}\n")
	prefix = append(prefix, `,"document":`...)
	cur := c.Scan()
	for n := 0; cur.Next(); n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		js, err := cur.JSON()
		if err != nil {
			return err
		}
		w.Write(prefix)
		w.Write(js)
		if _, err := w.WriteString("}\n"); err != nil {
			return err
		}
	}
	if err := cur.Err(); err != nil {
		return err
	}
	return dumpDefinitions(c, w)
}

// dumpDefinitions writes a collection's rules and index definitions.
func dumpDefinitions(c *Collection, w *bufio.Writer) error {
	name := value.StringValue(c.name)
	if c.rules != nil {
		w.Write(value.JSON(value.ObjectValue([]value.Field{{Key: "collection", Value: name}, {Key: "rules", Value: c.rules.Spec()}})))
		w.WriteByte('\n')
	}
	for _, def := range c.Indexes() {
		w.Write(value.JSON(value.ObjectValue([]value.Field{{Key: "collection", Value: name}, {Key: "index", Value: def.value()}})))
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}

// Export writes one collection as canonical NDJSON in _id order.
func (db *DB) Export(ctx context.Context, coll string, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	err := db.View(func(tx *Tx) error {
		c, err := tx.Collection(coll)
		if err != nil {
			return err
		}
		cur := c.Scan()
		for n := 0; cur.Next(); n++ {
			if n%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			js, err := cur.JSON()
			if err != nil {
				return err
			}
			bw.Write(js)
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
		}
		return cur.Err()
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// LoadSummary is the result of Load.
type LoadSummary struct {
	Collections int   `json:"collections"`
	Documents   int64 `json:"documents"`
	Lines       int64 `json:"lines"`
}

// Load reads a dump (see Dump) into the store in one transaction: all or
// nothing. A line that is not a dump line is an error naming it.
func (db *DB) Load(ctx context.Context, r io.Reader) (*LoadSummary, error) {
	in := &lineReader{r: bufio.NewReaderSize(r, 1<<20)}
	var sum LoadSummary
	err := db.Update(Change{Kind: "load"}, func(tx *Tx) error {
		sum = LoadSummary{}
		for {
			line, err := in.next()
			if err == io.EOF {
				return nil
			}
			if err == nil {
				err = loadLine(tx, line, &sum)
			}
			if err != nil {
				e := errs.Errorf(errs.KindOf(err), "line %d: %v", in.line, err)
				e.Err, e.Hint = err, "nothing was loaded; a dump line is {\"collection\":…} or {\"collection\":…,\"document\":{…}}"
				return e
			}
			if in.line%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
		}
	})
	sum.Lines = in.line
	return &sum, err
}

func loadLine(tx *Tx, line []byte, sum *LoadSummary) error {
	v, err := value.Parse(line)
	if err != nil {
		return err
	}
	name, doc := v.Get("collection"), v.Get("document")
	rules, index := v.Get("rules"), v.Get("index")
	if v.Kind() != value.Object || name.Kind() != value.String || v.Len() > 2 {
		return errs.Errorf(errs.Invalid, "not a dump line")
	}
	if v.Len() == 2 && doc.IsMissing() && rules.IsMissing() && index.IsMissing() {
		return errs.Errorf(errs.Invalid, "not a dump line")
	}
	c, err := tx.CreateCollection(name.Str())
	if err != nil {
		return err
	}
	switch {
	case !rules.IsMissing():
		_, err := c.Define(rules)
		return err
	case !index.IsMissing():
		def, err := indexDefFromValue(index)
		if err != nil {
			return errs.Errorf(errs.Invalid, "%v", err)
		}
		_, err = c.CreateIndex(*def)
		return err
	}
	if doc.IsMissing() {
		sum.Collections++
		return nil
	}
	_, err = c.Insert(doc)
	sum.Documents++
	return err
}
