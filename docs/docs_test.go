package docs_test

import (
	"strings"
	"testing"

	"github.com/omgdb/omgdb/docs"
)

// TestIndexListsEveryTopic keeps the manual's table of contents complete.
func TestIndexListsEveryTopic(t *testing.T) {
	index, ok := docs.Read("index")
	if !ok {
		t.Fatal("no index page")
	}
	for _, topic := range docs.Topics() {
		if topic != "index" && !strings.Contains(index, "| "+topic+" |") {
			t.Errorf("docs/index.md does not list the topic %q", topic)
		}
	}
}

func TestEveryPageHasATitle(t *testing.T) {
	for _, topic := range docs.Topics() {
		text, _ := docs.Read(topic)
		if !strings.HasPrefix(text, "# ") {
			t.Errorf("docs/%s.md does not start with a '# ' title", topic)
		}
	}
}
