package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/vector"
)

func init() { commands = append(commands, command{"import-md", newImportMDCmd}) }

type importMDOptions struct {
	storeFlags
	path, coll string
	files      []string
	recursive  bool
	root       string
}

func newImportMDCmd(e *env) *cobra.Command {
	opts := &importMDOptions{}
	cmd := &cobra.Command{
		Use:   "import-md <store> <collection> <file|dir>…",
		Short: "Import Markdown files, one document per file, keyed by path",
		Long: `Store one document per Markdown file (*.md, *.markdown; directories are
read for them, with --recursive into subdirectories), in one transaction:
{"_id":<path>, <frontmatter fields>, "path", "body", "_sections":[{"level","heading","text"}]}.
The path is relative to --root (default: the current directory), so notes/
and $(pwd)/notes/ give the same documents; a file outside the root is an
error.
Frontmatter is a leading block between "---" lines; each "key: value" line
becomes a field, parsed as JSON when it parses (numbers, true, lists) and a
string otherwise. body is the text after the frontmatter; _sections has one
entry per ATX heading (# to ######), ignoring headings inside code fences.
Importing a file again replaces its document when it changed. Prints
{"files","inserted","replaced","unchanged","change"}.`,
		Example: `  omgdb import-md app.omgdb notes README.md docs --recursive`,
		Args:    cobra.MinimumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.path, opts.coll, opts.files = args[0], args[1], args[2:]
			return e.runImportMD(cmd.Context(), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().BoolVarP(&opts.recursive, "recursive", "r", false, "read directories recursively")
	cmd.Flags().StringVar(&opts.root, "root", ".", "the directory that document keys (paths) are relative to")
	return cmd
}

func (e *env) runImportMD(ctx context.Context, opts *importMDOptions) error {
	files, err := vector.MarkdownFiles(opts.files, opts.recursive)
	if err != nil {
		return err
	}
	db, err := e.open(opts.path, createIfNone, opts.storeFlags)
	if err != nil {
		return err
	}
	defer db.Close()
	sum, err := vector.ImportMarkdownRoot(ctx, db, opts.coll, opts.root, files)
	if err != nil {
		return err
	}
	js, _ := json.Marshal(sum)
	_, err = e.stdout.Write(append(js, '\n'))
	return err
}
