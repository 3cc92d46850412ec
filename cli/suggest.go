package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/query/errs"
)

// mongoWords maps the words a mongosh or SQL user tries, lower-cased
// without '-' and '_', to the omgdb command that does it.
var mongoWords = map[string]string{
	"updatemany": "update", "updateone": "update --one", "findoneandupdate": "update --one",
	"deletemany": "delete", "deleteone": "delete --one", "findoneanddelete": "delete --one",
	"removeone": "delete --one", "rm": "delete",
	"replaceone": "replace", "findoneandreplace": "replace",
	"dropcollection": "drop", "removecollection": "drop", "deletecollection": "drop",
	"rmcollection":     "drop",
	"renamecollection": "rename", "mv": "rename", "move": "rename",
	"insertone": "insert", "insertmany": "insert", "save": "insert",
	"countdocuments": "count", "estimateddocumentcount": "count",
	"createindex": "create-index", "ensureindex": "create-index", "dropindex": "drop-index",
	"getindexes": "indexes", "findone": "find --limit 1", "select": "find",
	"showcollections": "inspect", "collections": "inspect",
}

// unknownCommand turns cobra's "unknown command" error for args into one
// with a did-you-mean: the omgdb command for a mongosh word
// (updateMany: update), else a command name within edit distance 2.
// Other errors are returned as they are.
func unknownCommand(root *cobra.Command, args []string, err error) error {
	if len(args) == 0 || !strings.HasPrefix(err.Error(), fmt.Sprintf("unknown command %q for %q", args[0], root.Name())) {
		return err
	}
	word := args[0]
	key := strings.ToLower(strings.NewReplacer("-", "", "_", "", ".", "").Replace(word))
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
		if strings.ReplaceAll(c.Name(), "-", "") == key {
			return didYouMean(word, c.Name())
		}
	}
	if cmd, ok := mongoWords[key]; ok {
		return didYouMean(word, cmd)
	}
	if best, ok := errs.Suggest(word, names); ok {
		return didYouMean(word, best)
	}
	return err
}

func didYouMean(word, cmd string) error {
	name, _, _ := strings.Cut(cmd, " ")
	return errs.Errorf(errs.Usage, "unknown command %q (did you mean `omgdb %s`?)", word, cmd).
		WithHint("see `omgdb %s --help`; `omgdb help` lists every command", name)
}
