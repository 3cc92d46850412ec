package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/shell"
)

func init() { commands = append(commands, command{"shell", newShellCmd}) }

type shellOptions struct {
	storeFlags
	store, script, eval string
	evalSet             bool
}

func newShellCmd(e *env) *cobra.Command {
	opts := &shellOptions{}
	cmd := &cobra.Command{
		Use:   "shell [store] [script.js]",
		Short: "An interactive shell with mongosh's syntax and habits",
		Long: `Open an interactive shell on a store, in mongosh's language (JavaScript):
db.users.find({age: {$gt: 30}}).sort({age: -1}), show collections, it,
help. Line editing, history (~/.omgdb_shell_history, or $OMGDB_HISTORY) and
tab completion of collections, methods and field names on a terminal.

With --eval CODE the shell runs the code, prints its result and exits; with
a script (a file ending in .js) it runs the script and exits. An uncaught
error then exits with the code of its kind (65 bad data, 66 not found, ...).

Reads never create a missing store; the first write creates it. Every write
is one journaled change and prints its change id, for omgdb rollback. See
omgdb docs shell.

A MongoDB URI (mongodb://…/DB, or mongodb: with $OMGDB_MONGODB_URI) as the
store opens a shell on that database. It reads with find, findOne,
countDocuments, count, estimatedDocumentCount, distinct, aggregate,
getIndexes and show collections, and writes with insertOne, insertMany,
updateOne, updateMany, replaceOne, deleteOne, deleteMany,
findOneAndUpdate, findOneAndReplace, findOneAndDelete and bulkWrite,
each one journaled change (bulkWrite one per operation) with its change id; the other writes are refused there
(omgdb docs mongodb).`,
		Example: `  omgdb shell app.omgdb
  omgdb shell app.omgdb --eval 'db.users.countDocuments({age: {$gt: 30}})'
  omgdb shell app.omgdb migrate.js
  omgdb shell mongodb://localhost:27017/app --eval 'db.users.find({age: {$gt: 30}})'`,
		Args: cobra.RangeArgs(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.setArgs(args); err != nil {
				return err
			}
			opts.evalSet = cmd.Flags().Changed("eval")
			return e.runShell(context.WithoutCancel(cmd.Context()), opts)
		},
		ValidArgsFunction: completeStoreArgs,
	}
	opts.register(cmd)
	cmd.Flags().StringVar(&opts.eval, "eval", "", "run this JavaScript, print its result and exit")
	return cmd
}

// setArgs sorts the arguments: a file ending in .js is the script, the
// other one the store.
func (o *shellOptions) setArgs(args []string) error {
	for _, a := range args {
		switch {
		case strings.HasSuffix(a, ".js") && o.script == "":
			o.script = a
		case o.store == "":
			o.store = a
		default:
			return usage("shell takes one store and one script (a .js file), got %q", a)
		}
	}
	return nil
}

func (e *env) runShell(ctx context.Context, opts *shellOptions) error {
	storeName, errOut := opts.store, e.stderr
	var eng engine.Reader
	var writer shell.Writer
	if isMongo(opts.store) {
		db, err := e.openMongo(ctx, opts.store)
		if err != nil {
			return err
		}
		defer db.Close()
		eng, storeName = db, db.Target().Redacted
		writer = mongoShellWriter{db: db, path: opts.store}
		errOut = redactingWriter{w: e.stderr, uri: db.Target().URI}
	}
	sh := shell.New(&shell.Options{
		Store:       storeName,
		Engine:      eng,
		Writer:      writer,
		Out:         e.stdout,
		Err:         errOut,
		Color:       isTerminal(e.stdout) && os.Getenv("NO_COLOR") == "",
		LockTimeout: opts.lockTimeout,
	})
	stop := onInterrupt(sh.Interrupt)
	defer stop()
	if opts.evalSet || opts.script != "" {
		return e.runShellScript(ctx, sh, opts)
	}
	if opts.store != "" && eng == nil {
		if _, err := os.Stat(opts.store); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.stderr, "note: %s does not exist yet: reads fail until the first write creates it\n", opts.store)
		}
	}
	in, closeIn, err := e.lineReader(sh)
	if err != nil {
		return err
	}
	defer closeIn()
	if err := sh.Run(ctx, in); err != nil {
		return err
	}
	if _, editor := in.(*shell.Editor); !editor && sh.FirstError() != nil {
		// Statements from a pipe: every one ran, and the first error
		// (printed already) gives the exit code, as in a script.
		return &shell.ExitError{Code: exitCode(runError{sh.FirstError()})}
	}
	return nil
}

func (e *env) runShellScript(ctx context.Context, sh *shell.Shell, opts *shellOptions) error {
	if opts.script != "" {
		src, err := os.ReadFile(opts.script)
		if err != nil {
			return errs.Errorf(errs.NotFound, "script %s: %v", opts.script, err).WithHint("give the path of a JavaScript file")
		}
		if err := sh.Exec(ctx, opts.script, string(src)); err != nil {
			return err
		}
	}
	if opts.evalSet {
		return sh.Eval(ctx, "--eval", opts.eval)
	}
	return nil
}

// lineReader returns a line editor on a terminal, a plain reader
// otherwise.
func (e *env) lineReader(sh *shell.Shell) (shell.LineReader, func(), error) {
	f, ok := e.stdin.(*os.File)
	if !ok || !isTerminalFile(f) {
		return shell.NewPlain(e.stdin, nil), func() {}, nil
	}
	ed, err := shell.NewEditor(sh, shell.EditorOptions{History: historyFile(), In: f, Out: e.stdout})
	if err != nil {
		return nil, nil, err
	}
	return ed, func() { _ = ed.Close() }, nil
}

// historyFile is $OMGDB_HISTORY, else ~/.omgdb_shell_history.
func historyFile() string {
	if p := os.Getenv("OMGDB_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".omgdb_shell_history")
}

func isTerminalFile(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// onInterrupt calls fn on every Ctrl-C until the returned function is
// called: in the shell, Ctrl-C stops the running statement, not the
// shell.
func onInterrupt(fn func()) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				fn()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
