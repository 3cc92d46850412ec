package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// sameFile reports whether two store paths name one file.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// verifyCopy compares every copied collection on both sides: counts, and
// the SHA-256 of their documents in _id order (omgdb's canonical JSON of
// each, one per line). It fills the summary and returns an error naming
// each collection that differs and its first difference.
func (e *env) verifyCopy(ctx context.Context, src, dst copyEnd, sum *copySummary) error {
	var diffs []string
	for _, res := range sum.Collections {
		if err := verifyOne(ctx, src, dst, res); err != nil {
			return err
		}
		if !res.Verified {
			diffs = append(diffs, res.diff)
		}
	}
	sum.Verified = len(diffs) == 0
	if len(diffs) > 0 {
		return errs.Errorf(errs.IO, "verify: %s", strings.Join(diffs, "; ")).
			WithHint("something wrote to the source or the target during the copy, or a type did not survive the target; compare with omgdb find on both sides")
	}
	return nil
}

// digest is a running SHA-256 of documents and their count.
type digest struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	} // a sha256 hash
	n int64
}

func newDigest() *digest { return &digest{h: sha256.New()} }

func (d *digest) add(js []byte) {
	d.h.Write(js)
	d.h.Write([]byte{'\n'})
	d.n++
}

func (d *digest) sum() string { return "sha256:" + hex.EncodeToString(d.h.Sum(nil)) }

// verifyOne reads the collection on both sides in step (the source in a
// goroutine), so that memory stays one document each, and notes the
// first _id where they differ.
func verifyOne(ctx context.Context, src, dst copyEnd, res *copyResult) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	docs := make(chan value.Value, 64)
	srcErr := make(chan error, 1)
	go func() {
		defer close(docs)
		srcErr <- src.scan(ctx, res.Name, value.Value{}, func(doc value.Value) error {
			select {
			case docs <- doc:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	s, t := newDigest(), newDigest()
	first := ""
	note := func(format string, id value.Value) {
		if first == "" {
			first = fmt.Sprintf(format, value.AppendEJSON(nil, id, value.EJSONRelaxed))
		}
	}
	err := dst.scan(ctx, res.Name, value.Value{}, func(doc value.Value) error {
		tj := value.JSON(doc)
		t.add(tj)
		sd, ok := <-docs
		if !ok {
			note("_id %s is in the target only", doc.Get("_id"))
			return nil
		}
		sj := value.JSON(sd)
		s.add(sj)
		if !bytes.Equal(sj, tj) {
			note("the documents at _id %s differ", sd.Get("_id"))
		}
		return nil
	})
	if err != nil {
		cancel()
	}
	for sd := range docs {
		s.add(value.JSON(sd))
		note("_id %s is in the source only", sd.Get("_id"))
	}
	if err == nil {
		err = <-srcErr
	}
	if err != nil {
		return err
	}
	res.SourceCount, res.TargetCount = s.n, t.n
	res.SourceDigest, res.TargetDigest = s.sum(), t.sum()
	res.Verified = first == "" && res.SourceDigest == res.TargetDigest
	if !res.Verified {
		res.diff = fmt.Sprintf("`%s` differs: %d document(s) in the source, %d in the target; %s", res.Name, s.n, t.n, first)
	}
	return nil
}
