package store

import (
	"encoding/json"

	"github.com/omgdb/omgdb/query/errs"
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
type DefineReport struct {
	Collection string          `json:"collection"`
	Rules      json.RawMessage `json:"rules"` // null when cleared
	Checked    int64           `json:"checked"`
	Violations int64           `json:"violations"` // existing documents that break the new rules
	Examples   []string        `json:"examples"`   // the first few of them, as error messages
}

// maxDefineExamples bounds DefineReport.Examples.
const maxDefineExamples = 5

// Define replaces the collection's validation rules (see CompileRules; an
// empty document clears them) and records the change in the journal. The
// rules apply to every later write. Existing documents are not changed:
// the report counts those that break the new rules.
func (c *Collection) Define(spec value.Value) (*DefineReport, error) {
	if err := c.checkWritable(); err != nil {
		return nil, err
	}
	rules, err := CompileRules(spec)
	if err != nil {
		return nil, err
	}
	var before value.Value
	if c.rules != nil {
		before = c.rules.Spec()
	}
	rep := &DefineReport{Collection: c.name, Rules: json.RawMessage("null"), Examples: []string{}}
	c.meta.Rules = nil
	var after value.Value
	if rules != nil {
		after = rules.Spec()
		c.meta.Rules = value.JSON(after)
		rep.Rules = c.meta.Rules
	}
	c.rules = rules
	if err := c.saveMeta(); err != nil {
		return nil, err
	}
	c.tx.record(Op{Op: OpDefine, Coll: c.name, Rules: after, Before: before})
	cur := c.Scan()
	for rules != nil && cur.Next() {
		doc := cur.Doc()
		if err := cur.Err(); err != nil {
			return nil, err
		}
		rep.Checked++
		if err := rules.Check(c.name, doc); err != nil {
			rep.Violations++
			if len(rep.Examples) < maxDefineExamples {
				rep.Examples = append(rep.Examples, err.Error())
			}
		}
	}
	return rep, cur.Err()
}
