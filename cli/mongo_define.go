package cli

import (
	"context"
	"fmt"

	"github.com/omgdb/omgdb/mongoengine"
	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/rules"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Validation rules over MongoDB (define, create --from): each
// collection's rules are one journaled change of kind define (mongoengine
// Define), kept in omgdb's record and checked by omgdb on every write it
// makes, and sent to the server as the collection's validator where the
// server takes one; where it does not (FerretDB), a note on standard
// error (and "note" in --json) says that writes made around omgdb are
// not checked there.

// mongoDefineReport is a define's report over MongoDB: the file's, with
// the change and who enforces the rules.
type mongoDefineReport struct {
	*rules.Report
	ChangeID       string `json:"change_id"`
	ServerEnforces bool   `json:"server_enforces"`
	Note           string `json:"note,omitempty"`
}

// mongoDefine defines the rules of one collection, or of each collection
// of a spec (--from), on the deployment.
func (e *env) mongoDefine(ctx context.Context, opts *defineOptions, spec value.Value) error {
	var colls []store.SpecCollection
	if opts.from != "" {
		var err error
		if colls, err = store.ParseSpec(spec); err != nil {
			return err
		}
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		if opts.from == "" {
			rep, err := defineOne(ctx, db, opts.coll, spec)
			if err != nil {
				return err
			}
			return e.printMongoDefine([]*mongoDefineReport{rep}, opts)
		}
		reps, _, err := applySpecMongo(ctx, db, colls)
		if err != nil {
			return err
		}
		return e.printMongoDefine(reps, opts)
	})
}

func defineOne(ctx context.Context, db *mongoengine.DB, coll string, spec value.Value) (*mongoDefineReport, error) {
	exists, err := db.HasCollection(ctx, coll)
	if err != nil {
		return nil, err
	}
	if !exists { // define creates it: the file's rule for a new name, and its message
		if err := store.ValidateCollectionName(coll); err != nil {
			return nil, err
		}
	}
	res, err := db.Define(ctx, coll, spec, "cli")
	if err != nil {
		return nil, err
	}
	return &mongoDefineReport{Report: res.Report, ChangeID: res.ChangeID, ServerEnforces: res.ServerEnforces, Note: res.Note}, nil
}

// applySpecMongo defines each collection of a spec in turn (creating it
// when missing), then creates its indexes that do not exist yet (by
// name), each a change of its own. It returns the reports and the
// indexes created ("coll.name").
func applySpecMongo(ctx context.Context, db *mongoengine.DB, colls []store.SpecCollection) ([]*mongoDefineReport, []string, error) {
	var reps []*mongoDefineReport
	var created []string
	for _, cs := range colls {
		rep, err := defineOne(ctx, db, cs.Name, cs.Rules)
		if err != nil {
			return nil, nil, err
		}
		reps = append(reps, rep)
		have, err := db.IndexSpecs(ctx, cs.Name)
		if err != nil {
			return nil, nil, err
		}
		var specs []value.Value
		for _, def := range cs.Indexes {
			spec, err := indexToMongo(cs.Name, def)
			if err != nil {
				return nil, nil, err
			}
			if !hasIndexNamed(have, spec.Get("name").Str()) {
				specs = append(specs, spec)
				created = append(created, cs.Name+"."+spec.Get("name").Str())
			}
		}
		if len(specs) > 0 {
			if _, err := db.CreateIndexes(ctx, cs.Name, specs, "cli"); err != nil {
				return nil, nil, err
			}
		}
	}
	return reps, created, nil
}

func hasIndexNamed(specs []value.Value, name string) bool {
	for _, s := range specs {
		if s.Get("name").Str() == name {
			return true
		}
	}
	return false
}

// printMongoDefine prints what printDefine prints for a file, then the
// note of each collection whose rules the server does not enforce.
func (e *env) printMongoDefine(reps []*mongoDefineReport, opts *defineOptions) error {
	if opts.json {
		return printDefineJSON(e, reps, opts)
	}
	files := make([]*store.DefineReport, len(reps))
	for i, r := range reps {
		files[i] = r.Report
	}
	if err := e.printDefine(files, opts); err != nil {
		return err
	}
	for _, r := range reps {
		if r.Note != "" {
			fmt.Fprintf(e.stderr, "note: %s\n", r.Note)
		}
	}
	return nil
}

// mongoCreate is create --from over MongoDB: the collections the spec
// declares, none of which may exist yet (as create refuses an existing
// store file), each with its rules and indexes. Without --from there is
// nothing to create: a database exists once it has a collection.
func (e *env) mongoCreate(ctx context.Context, opts *createOptions, spec value.Value) error {
	if spec.IsMissing() {
		return usage("`omgdb create` over MongoDB needs --from: a database exists once it has a collection").
			WithHint("give a spec with --from, or write to the database (insert, import, copy): it is created then")
	}
	colls, err := store.ParseSpec(spec)
	if err != nil {
		return err
	}
	return e.withMongo(ctx, opts.path, func(db *mongoengine.DB) error {
		for _, cs := range colls {
			exists, err := db.HasCollection(ctx, cs.Name)
			if err != nil {
				return err
			}
			if exists {
				return errs.Errorf(errs.Conflict, "collection `%s` already exists in %s", cs.Name, db.Target().Redacted).
					WithHint("nothing was created; change its rules with `omgdb define`, or apply the whole spec with `omgdb define --from`")
			}
		}
		reps, _, err := applySpecMongo(ctx, db, colls)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(e.stdout, "created store at %s (%d collection(s) defined)\n", db.Target().Redacted, len(reps)); err != nil {
			return err
		}
		for _, r := range reps {
			if r.Note != "" {
				fmt.Fprintf(e.stderr, "note: %s\n", r.Note)
			}
		}
		return nil
	})
}
