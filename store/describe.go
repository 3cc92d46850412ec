package store

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/omgdb/omgdb/query/value"
)

// DescribeOptions configures Describe. The zero value samples
// DefaultSchemaSample documents per collection.
type DescribeOptions struct {
	// Sample is the most documents per collection schema inference reads;
	// 0 means DefaultSchemaSample, a negative value all of them.
	Sample int
}

// Describe writes the store's Markdown manual, OMGDB's format: a heading
// with the file's name, the number of collections, and for each collection
// its document count, a table of its fields (top-level and one level down,
// with their types and in how many documents they are present), a sample
// document, then its indexes and validation rules. _id is left out of the
// table and the sample. When a collection has more documents than the
// sample size, a line says how many were read.
func (db *DB) Describe(ctx context.Context, w io.Writer, opts *DescribeOptions) error {
	if opts == nil {
		opts = &DescribeOptions{}
	}
	limit := opts.Sample
	if limit == 0 {
		limit = DefaultSchemaSample
	}
	bw := bufio.NewWriter(w)
	name := strings.TrimSuffix(filepath.Base(db.path), ".omgdb")
	err := db.View(func(tx *Tx) error {
		names := tx.Collections()
		WriteDescribeHeading(bw, name, len(names))
		for _, coll := range names {
			c, err := tx.Collection(coll)
			if err != nil {
				return err
			}
			if err := describeCollection(ctx, bw, c, limit); err != nil {
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

func describeCollection(ctx context.Context, w *bufio.Writer, c *Collection, limit int) error {
	s, err := c.Schema(ctx, limit, 2)
	if err != nil {
		return err
	}
	sample, _, err := c.sampleDoc()
	if err != nil {
		return err
	}
	WriteCollectionDescription(w, s, sample)
	return describeExtras(w, c)
}

// WriteDescribeHeading writes the start of Describe's manual: the
// database's name and how many collections follow.
func WriteDescribeHeading(w io.Writer, name string, collections int) {
	fmt.Fprintf(w, "# Database: %s\n\n%d collection(s).\n", name, collections)
}

// WriteCollectionDescription writes a collection's part of Describe's
// manual from its schema: the heading with its count, the sample note,
// the table of fields, and the sample document (nil: none).
func WriteCollectionDescription(w io.Writer, s *Schema, sample []byte) {
	fmt.Fprintf(w, "\n## %s (%d document(s))\n", s.Collection, s.Documents)
	if s.Sampled < s.Documents {
		fmt.Fprintf(w, "\nFields from a sample of the first %d of %d documents.\n", s.Sampled, s.Documents)
	}
	if len(s.Fields) > 0 {
		fmt.Fprintf(w, "\n| field | types | present |\n|-------|-------|---------|\n")
		for _, f := range s.Fields {
			fmt.Fprintf(w, "| %s | %s | %d/%d |\n", mdCell(f.Path), strings.Join(f.Types, ", "), f.Present, s.Sampled)
		}
	}
	if sample != nil {
		fmt.Fprintf(w, "\nSample:\n```json\n%s\n```\n", sample)
	}
}

// WriteIndexesLine writes Describe's Indexes line for the B-tree indexes
// among infos, when there are any.
func WriteIndexesLine(w io.Writer, infos []IndexInfo) {
	var btrees []string
	for _, ix := range infos {
		if ix.Kind != BTreeKind {
			continue
		}
		s := fmt.Sprintf("`%s` %s", ix.Name, ix.Key)
		if ix.Unique {
			s += " unique"
		}
		if ix.Sparse {
			s += " sparse"
		}
		btrees = append(btrees, s)
	}
	if len(btrees) > 0 {
		fmt.Fprintf(w, "\nIndexes: %s\n", strings.Join(btrees, ", "))
	}
}

// sampleDoc returns the first document's JSON, without _id.
func (c *Collection) sampleDoc() ([]byte, bool, error) {
	cur := c.Scan()
	if !cur.Next() {
		return nil, false, cur.Err()
	}
	doc := cur.Doc()
	if err := cur.Err(); err != nil {
		return nil, false, err
	}
	return value.JSON(doc.Without("_id")), true, nil
}

// describeExtras writes the Indexes line, other kinds of index, and the
// rules.
func describeExtras(w *bufio.Writer, c *Collection) error {
	infos, err := c.IndexInfos()
	if err != nil {
		return err
	}
	WriteIndexesLine(w, infos)
	for _, ix := range infos {
		if ix.Kind != BTreeKind {
			fmt.Fprintf(w, "\n%s index `%s`: %s\n", ix.Kind, ix.Name, ix.Spec)
		}
	}
	if c.rules != nil {
		fmt.Fprintf(w, "\nRules: `%s`\n", c.rules.Spec())
	}
	return nil
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
