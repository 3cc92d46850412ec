package vector

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Section is one ATX heading of a Markdown document and the text under it,
// up to the next heading of any level.
type Section struct {
	Level   int
	Heading string
	Text    string
	Start   int // byte offset of the heading line in the body
}

// ParseMarkdown turns a Markdown file into a document:
//
//	{"_id": path, <frontmatter fields>, "path": path, "body": …, "_sections": [{level, heading, text}…]}
//
// Frontmatter is a block between "---" lines at the start of the file;
// each "key: value" line becomes a field, whose value is parsed as JSON
// when it parses and is a string otherwise. body is the text after the
// frontmatter. Headings inside fenced code blocks are not headings.
func ParseMarkdown(path string, data []byte) (value.Value, error) {
	if !utf8.Valid(data) {
		return value.Value{}, errs.Errorf(errs.Invalid, "%s is not valid UTF-8", path)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	front, body := splitFrontmatter(text)
	fields := []value.Field{{Key: "_id", Value: value.StringValue(path)}}
	reserved := map[string]bool{"_id": true, "path": true, "body": true, "_sections": true}
	for _, line := range front {
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || reserved[k] || strings.HasPrefix(k, "$") || strings.Contains(k, ".") {
			continue
		}
		reserved[k] = true
		val, err := value.ParseString(v)
		if err != nil || v == "" {
			val = value.StringValue(v)
		}
		fields = append(fields, value.Field{Key: k, Value: val})
	}
	secs := Sections(body)
	arr := make([]value.Value, len(secs))
	for i, s := range secs {
		arr[i] = value.ObjectValue([]value.Field{
			{Key: "level", Value: value.LongValue(int64(s.Level))},
			{Key: "heading", Value: value.StringValue(s.Heading)},
			{Key: "text", Value: value.StringValue(s.Text)},
		})
	}
	fields = append(fields,
		value.Field{Key: "path", Value: value.StringValue(path)},
		value.Field{Key: "body", Value: value.StringValue(body)},
		value.Field{Key: "_sections", Value: value.ArrayValue(arr)},
	)
	return value.ObjectValue(fields), nil
}

// splitFrontmatter returns the lines of a leading "---" block and the
// text after it.
func splitFrontmatter(text string) ([]string, string) {
	if !strings.HasPrefix(text, "---\n") {
		return nil, text
	}
	rest := text[4:]
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimRight(line, " \t") == "---" {
			body := ""
			if end >= 0 {
				body = rest[off+end+1:]
			}
			return strings.Split(strings.TrimSuffix(rest[:off], "\n"), "\n"), body
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return nil, text // no closing line: not frontmatter
}

// Sections returns the ATX headings of a Markdown text with the text under
// each, ignoring headings inside ``` or ~~~ fences.
func Sections(body string) []Section {
	var secs []Section
	fence := ""
	off := 0
	var cur *Section
	var buf []string
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimSpace(strings.Join(buf, "\n"))
			secs = append(secs, *cur)
		}
		buf = nil
	}
	for _, line := range strings.SplitAfter(body, "\n") {
		start := off
		off += len(line)
		line = strings.TrimSuffix(line, "\n")
		trimmed := strings.TrimLeft(line, " ")
		if f := fenceOf(trimmed); f != "" && len(line)-len(trimmed) < 4 {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence) && strings.TrimSpace(strings.TrimLeft(trimmed, f[:1])) == "":
				fence = ""
			}
		} else if fence == "" && len(line)-len(trimmed) < 4 {
			if level, heading, ok := atxHeading(trimmed); ok {
				flush()
				cur = &Section{Level: level, Heading: heading, Start: start}
				continue
			}
		}
		buf = append(buf, line)
	}
	flush()
	return secs
}

func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// atxHeading parses "## Heading ##".
func atxHeading(line string) (int, string, bool) {
	level := len(line) - len(strings.TrimLeft(line, "#"))
	if level < 1 || level > 6 || (len(line) > level && line[level] != ' ' && line[level] != '\t') {
		return 0, "", false
	}
	h := strings.TrimSpace(line[level:])
	if t := strings.TrimRight(h, "#"); t != h && (t == "" || strings.HasSuffix(t, " ")) {
		h = strings.TrimSpace(t)
	}
	return level, h, true
}

// MarkdownFiles expands paths into the Markdown files (*.md, *.markdown)
// they name, sorted: files as given, directories by their entries
// (recursively with recursive).
func MarkdownFiles(paths []string, recursive bool) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, errs.Errorf(errs.NotFound, "cannot read %s: %v", p, err)
		}
		if !fi.IsDir() {
			out = append(out, filepath.Clean(p))
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			if ext := strings.ToLower(filepath.Ext(path)); ext == ".md" || ext == ".markdown" {
				out = append(out, filepath.Clean(path))
			}
			return nil
		})
		if err != nil {
			return nil, errs.Errorf(errs.IO, "walk %s: %v", p, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// MarkdownSummary is what ImportMarkdown did.
type MarkdownSummary struct {
	Files     int    `json:"files"`
	Inserted  int    `json:"inserted"`
	Replaced  int    `json:"replaced"`
	Unchanged int    `json:"unchanged"`
	Change    string `json:"change,omitempty"`
}

// ImportMarkdown stores one document per Markdown file in coll, in one
// transaction, keyed by the file's path as given (with forward slashes): a
// file imported again replaces its document when it changed.
func ImportMarkdown(ctx context.Context, db *store.DB, coll string, files []string) (*MarkdownSummary, error) {
	return ImportMarkdownRoot(ctx, db, coll, "", files)
}

// ImportMarkdownRoot is ImportMarkdown with each file keyed by its path
// relative to the directory root, so that a relative and an absolute path
// to one file give one key; a file outside root is an error. An empty
// root keys files by their paths as given.
func ImportMarkdownRoot(ctx context.Context, db *store.DB, coll, root string, files []string) (*MarkdownSummary, error) {
	docs := make([]value.Value, 0, len(files))
	for _, f := range files {
		key, err := markdownKey(root, f)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, errs.Errorf(errs.NotFound, "cannot read %s: %v", f, err)
		}
		doc, err := ParseMarkdown(key, data)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	sum := &MarkdownSummary{Files: len(files)}
	err := db.Update(store.Change{Kind: "import-md"}, func(tx *store.Tx) error {
		c, err := tx.CreateCollection(coll)
		if err != nil {
			return err
		}
		for _, doc := range docs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := upsert(c, doc, sum); err != nil {
				return err
			}
		}
		sum.Change = tx.ChangeID()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if sum.Inserted+sum.Replaced == 0 {
		sum.Change = ""
	}
	return sum, nil
}

// markdownKey is the _id of file f: its path relative to root (its path
// as given when root is ""), with forward slashes.
func markdownKey(root, f string) (string, error) {
	if root == "" {
		return filepath.ToSlash(f), nil
	}
	absRoot, err := filepath.Abs(root)
	if err == nil {
		var absFile string
		if absFile, err = filepath.Abs(f); err == nil {
			f, err = filepath.Rel(absRoot, absFile)
		}
	}
	if err != nil {
		return "", errs.Errorf(errs.IO, "key %s under root %s: %v", f, root, err)
	}
	if f == ".." || strings.HasPrefix(f, ".."+string(filepath.Separator)) {
		return "", errs.Errorf(errs.Invalid, "%s is outside the root %s", f, root).
			WithHint("documents are keyed by their path under --root: pass a --root that holds every file")
	}
	return filepath.ToSlash(f), nil
}

func upsert(c *store.Collection, doc value.Value, sum *MarkdownSummary) error {
	id := doc.Get("_id")
	old, err := c.Get(id)
	switch {
	case err != nil && errs.KindOf(err) == errs.NotFound:
		_, err := c.Insert(doc)
		sum.Inserted++
		return err
	case err != nil:
		return err
	case value.Equal(old, doc):
		sum.Unchanged++
		return nil
	}
	sum.Replaced++
	return c.Replace(id, doc)
}
