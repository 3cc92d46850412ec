package shell

import (
	"strings"

	"github.com/dop251/goja"

	"github.com/omgdb/omgdb/internal/pretty"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// printResult prints a statement's value as mongosh does: nothing for
// undefined, a cursor's first batch, a string as it is, anything else in
// mongosh's style.
func (s *Shell) printResult(v goja.Value) error {
	if v == nil || goja.IsUndefined(v) {
		return nil
	}
	if obj, ok := v.(*goja.Object); ok {
		if c := s.cursorOf(obj); c != nil {
			s.last = c
			return s.catch(func() { s.printBatch(c) })
		}
	}
	s.printf("%s\n", s.inspect(v))
	return nil
}

// printBatch prints the cursor's next batch and says whether `it` has
// more.
func (s *Shell) printBatch(c *cursor) {
	docs := c.batch(s.opts.BatchSize)
	if len(docs) == 0 {
		if c.read == 0 {
			s.printf("[]\n")
		} else {
			s.printf("no cursor\n")
		}
		return
	}
	s.printf("%s\n", pretty.Format(value.ArrayValue(docs), s.prettyOptions()))
	if c.hasNext() {
		s.printf("Type \"it\" for more\n")
	}
}

// catch runs fn, turning a JavaScript exception it throws into an error.
func (s *Shell) catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			obj, ok := r.(*goja.Object)
			if !ok {
				panic(r)
			}
			if e, ok := obj.Get("value").Export().(error); ok {
				err = e
				return
			}
			err = errs.Errorf(errs.Invalid, "%s", obj.String())
		}
	}()
	fn()
	return nil
}

// printValues is print(): values separated by spaces.
func (s *Shell) printValues(call goja.FunctionCall) goja.Value {
	parts := make([]string, len(call.Arguments))
	for i, a := range call.Arguments {
		parts[i] = s.inspect(a)
	}
	s.printf("%s\n", strings.Join(parts, " "))
	return goja.Undefined()
}
