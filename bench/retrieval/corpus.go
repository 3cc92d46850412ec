package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// item is one known-item: a query and the one text that answers it.
type item struct {
	ID    string `json:"_id"`
	Query string `json:"query"`
	Text  string `json:"text"`
}

// goItems reads the package doc comments of the Go tree at root: the first
// sentence is the query, the rest of the comment the relevant text.
func goItems(root string) ([]item, error) {
	var items []item
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			return filepath.SkipDir
		}
		text := packageDoc(path)
		first, rest := splitFirstSentence(text)
		if len(strings.Fields(rest)) < 20 || len(strings.Fields(first)) < 3 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		items = append(items, item{ID: filepath.ToSlash(rel), Query: first, Text: rest})
		return nil
	})
	return items, err
}

// packageDoc returns the longest package doc comment among the non-test
// Go files of dir, as plain text.
func packageDoc(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	best := ""
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || af.Doc == nil {
			continue
		}
		if t := docText(af.Doc); len(t) > len(best) {
			best = t
		}
	}
	return best
}

func docText(g *ast.CommentGroup) string {
	var p comment.Parser
	var pr comment.Printer
	pr.TextWidth = -1
	return strings.TrimSpace(string(pr.Text(p.Parse(g.Text()))))
}

// splitFirstSentence splits text after its first sentence: the first
// period followed by a space or newline.
func splitFirstSentence(text string) (string, string) {
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '.' && (text[i+1] == ' ' || text[i+1] == '\n') {
			return strings.TrimSpace(text[:i+1]), strings.TrimSpace(text[i+1:])
		}
	}
	return text, ""
}

// debianItems reads an apt Translation-en (or Packages) file: the synopsis
// is the query, the long description the relevant text.
func debianItems(r io.Reader) ([]item, error) {
	var items []item
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var pkg, syn string
	var long []string
	inDesc := false
	flush := func() {
		text := strings.Join(long, "\n")
		if pkg != "" && len(strings.Fields(text)) >= 20 && len(strings.Fields(syn)) >= 3 {
			items = append(items, item{ID: pkg, Query: syn, Text: text})
		}
		pkg, syn, long, inDesc = "", "", nil, false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "Package: "):
			pkg = strings.TrimPrefix(line, "Package: ")
		case strings.HasPrefix(line, "Description-en: "), strings.HasPrefix(line, "Description: "):
			_, syn, _ = strings.Cut(line, ": ")
			inDesc = true
		case inDesc && strings.HasPrefix(line, " "):
			if l := strings.TrimSpace(line); l != "." {
				long = append(long, l)
			} else {
				long = append(long, "")
			}
		default:
			inDesc = false
		}
	}
	flush()
	return dedupe(items), sc.Err()
}

// dedupe drops items whose query or text repeats another's (package
// families share descriptions), keeping the first by id.
func dedupe(items []item) []item {
	sort.Slice(items, func(i, j int) bool { return items[i].ID < items[j].ID })
	seenQ, seenT := map[string]bool{}, map[string]bool{}
	out := items[:0]
	for _, it := range items {
		q, t := strings.ToLower(it.Query), it.Text
		if seenQ[q] || seenT[t] {
			continue
		}
		seenQ[q], seenT[t] = true, true
		out = append(out, it)
	}
	return out
}

func writeItems(w io.Writer, items []item) error {
	bw := bufio.NewWriter(w)
	for _, it := range items {
		b, _ := json.Marshal(it)
		bw.Write(append(b, '\n'))
	}
	return bw.Flush()
}

func readItems(path string) ([]item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []item
	dec := json.NewDecoder(f)
	for {
		var it item
		if err := dec.Decode(&it); err == io.EOF {
			return items, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		items = append(items, it)
	}
}
