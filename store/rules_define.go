package store

import (
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
)

func (c *Collection) compileRules() error {
	c.rules = nil
	if len(c.meta.Rules) == 0 {
		return nil
	}
	spec, err := value.Parse(c.meta.Rules)
	if err == nil {
		c.rules, err = CompileRules(spec)
	}
	if err != nil {
		return wrap(errs.IO, ErrCorrupt, "collection %s in %s: unreadable rules: %v", c.name, c.tx.db.path, err)
	}
	return nil
}

// Rules returns the collection's validation rules, or nil.
func (c *Collection) Rules() *Rules { return c.rules }

// DefineReport is the result of Define.
type DefineReport = rules.Report

// Define replaces the collection's validation rules (see CompileRules; an
// empty document clears them) and records the change in the journal. The
// rules apply to every later write. Existing documents are not changed:
// the report counts those that break the new rules.
func (c *Collection) Define(spec value.Value) (*DefineReport, error) {
	if err := c.checkWritable(); err != nil {
		return nil, err
	}
	compiled, err := CompileRules(spec)
	if err != nil {
		return nil, err
	}
	var before value.Value
	if c.rules != nil {
		before = c.rules.Spec()
	}
	c.meta.Rules = nil
	var after value.Value
	if compiled != nil {
		after = compiled.Spec()
		c.meta.Rules = value.JSON(after)
	}
	rep := rules.NewReport(c.name, c.meta.Rules)
	c.rules = compiled
	if err := c.saveMeta(); err != nil {
		return nil, err
	}
	c.tx.record(Op{Op: OpDefine, Coll: c.name, Rules: after, Before: before})
	cur := c.Scan()
	for compiled != nil && cur.Next() {
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return nil, err
		}
		rep.Count(compiled, doc)
	}
	return rep, cur.Err()
}
