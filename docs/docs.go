package docs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var pages embed.FS

// Topics returns the names of the pages (file names without .md), sorted.
func Topics() []string {
	entries, _ := fs.ReadDir(pages, ".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".md"))
	}
	sort.Strings(names)
	return names
}

// Read returns the Markdown of a topic, and false when there is no such page.
func Read(topic string) (string, bool) {
	b, err := pages.ReadFile(topic + ".md")
	if err != nil {
		return "", false
	}
	return string(b), true
}

// Title returns the first heading of a topic's page.
func Title(topic string) string {
	text, _ := Read(topic)
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "# ") {
			return strings.TrimPrefix(line, "# ")
		}
	}
	return topic
}
