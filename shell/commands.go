package shell

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/query/errs"
)

// install sets the globals: db, the value constructors and mongosh's
// helpers.
func (s *Shell) install() {
	s.installTypes()
	_ = s.rt.Set("db", s.newDB())
	_ = s.rt.Set("print", s.printValues)
	_ = s.rt.Set("printjson", s.printValues)
	_ = s.rt.Set("load", s.load)
	for _, name := range []string{"exit", "quit"} {
		_ = s.rt.Set(name, func(call goja.FunctionCall) goja.Value {
			s.exited = true
			s.exitCode = int(call.Argument(0).ToInteger())
			s.rt.Interrupt(errExit)
			return goja.Undefined()
		})
	}
}

// errExit stops the script that called exit().
var errExit = fmt.Errorf("exit")

// ExitError is what Eval, Exec and Run return after exit(n) or quit(n)
// with n other than 0: the process should exit with Code.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit(%d)", e.Code) }

// load runs a script file, as mongosh's load.
func (s *Shell) load(call goja.FunctionCall) goja.Value {
	path := call.Argument(0).String()
	src, err := os.ReadFile(path)
	if err != nil {
		s.throw(errs.Errorf(errs.NotFound, "load(%q): %v", path, err).WithHint("give the path of a JavaScript file"))
	}
	_, err = s.rt.RunScript(path, string(src))
	if err != nil {
		panic(err)
	}
	return s.rt.ToValue(true)
}

// command recognises the shell's commands that are not JavaScript: show,
// use, it, help, exit and quit without parentheses.
func (s *Shell) command(src string) ([]string, bool) {
	words := strings.Fields(strings.TrimSuffix(strings.TrimSpace(src), ";"))
	if len(words) == 0 {
		return nil, false
	}
	switch words[0] {
	case "show", "use":
		return words, len(words) == 2
	case "it", "help", "exit", "quit", "cls":
		return words, len(words) == 1
	}
	return nil, false
}

func (s *Shell) runCommand(ctx context.Context, words []string) error {
	defer s.begin(ctx)()
	switch words[0] {
	case "exit", "quit":
		s.exited = true
	case "help":
		s.printf("%s", helpShell)
	case "cls":
		s.printf("\x1b[H\x1b[2J")
	case "use":
		s.printf("'use' does not apply: omgdb shell works on one store file (%s); start `omgdb shell %s.omgdb` for another\n", s.storeName(), words[1])
	case "it":
		if s.last == nil {
			s.printf("no cursor\n")
			return nil
		}
		return s.catch(func() { s.printBatch(s.last) })
	case "show":
		return s.catch(func() { s.show(words[1]) })
	}
	return nil
}

func (s *Shell) storeName() string {
	if s.opts.Store == "" {
		return "no store"
	}
	return s.opts.Store
}

func (s *Shell) show(what string) {
	switch what {
	case "collections", "tables":
		for _, n := range s.collectionNames() {
			s.printf("%s\n", n)
		}
	case "dbs", "databases":
		if s.opts.Engine != nil {
			s.printf("%s (a MongoDB database)\n", s.opts.Store)
			return
		}
		if s.opts.Store == "" || !s.storeExists() {
			s.printf("%s (does not exist yet: the first write creates it)\n", s.storeName())
			return
		}
		info, err := os.Stat(s.opts.Store)
		s.must(err)
		s.printf("%s  %d bytes\n", s.opts.Store, info.Size())
	default:
		s.throw(errs.Errorf(errs.Usage, "show %s: unknown", what).WithHint("show collections, or show dbs"))
	}
}
