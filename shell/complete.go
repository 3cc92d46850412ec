package shell

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/omgdb/omgdb/store"
)

// completion patterns, matched against the text before the cursor.
var (
	reCollMethod = regexp.MustCompile(`db\.([A-Za-z_$][\w$]*)\.([\w$]*)$`)
	reDBMember   = regexp.MustCompile(`db\.([\w$]*)$`)
	reCursor     = regexp.MustCompile(`\)\.([\w$]*)$`)
	reField      = regexp.MustCompile(`db\.([A-Za-z_$][\w$]*)\.\w+\([^;]*[{,]\s*['"]?([\w$.]*)$`)
	reWord       = regexp.MustCompile(`([\w$]*)$`)
)

// globals are the names completed at the start of a statement.
var globals = []string{"db", "show", "use", "it", "help", "exit", "quit", "print", "printjson", "load",
	"ObjectId", "ISODate", "NumberLong", "Long", "Date", "BinData"}

// schemaSample is how many documents field completion reads.
const schemaSample = 200

// Completions returns the words that can complete the text before the
// cursor, and the length of the part of the word already typed:
// collection names after db., methods after a collection or a cursor,
// field names (from a sample of the collection) inside a filter.
func (s *Shell) Completions(before string) ([]string, int) {
	if m := reField.FindStringSubmatch(before); m != nil && !strings.HasSuffix(m[0], ")") {
		return prefixed(s.fieldNames(m[1]), m[2]), len(m[2])
	}
	if m := reCollMethod.FindStringSubmatch(before); m != nil {
		return prefixed(collMethods, m[2]), len(m[2])
	}
	if m := reDBMember.FindStringSubmatch(before); m != nil {
		return prefixed(append(s.collectionNamesQuiet(), dbMethods...), m[1]), len(m[1])
	}
	if m := reCursor.FindStringSubmatch(before); m != nil {
		return prefixed(cursorMethods, m[1]), len(m[1])
	}
	if strings.HasPrefix(strings.TrimSpace(before), "show ") {
		w := reWord.FindString(before)
		return prefixed([]string{"collections", "dbs", "tables"}, w), len(w)
	}
	w := reWord.FindString(before)
	if w == "" {
		return nil, 0
	}
	return prefixed(globals, w), len(w)
}

func prefixed(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

// collectionNamesQuiet is collectionNames that answers nothing rather
// than fail: completion must never print an error.
func (s *Shell) collectionNamesQuiet() (names []string) {
	_ = s.catch(func() { names = s.collectionNames() })
	return names
}

// fieldNames lists the dotted field paths seen in a sample of coll.
func (s *Shell) fieldNames(coll string) (names []string) {
	if s.opts.Engine != nil {
		return s.engineFieldNames(coll)
	}
	if s.opts.Store == "" || !s.storeExists() {
		return nil
	}
	_ = s.catch(func() {
		s.collection(coll, func(c *store.Collection) error {
			schema, err := c.Schema(context.Background(), schemaSample, 3)
			if err != nil {
				return err
			}
			for _, f := range schema.Fields {
				names = append(names, f.Path)
			}
			return nil
		})
	})
	return names
}
