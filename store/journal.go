package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
)

// Journal operation names.
const (
	OpInsert           = "insert"
	OpUpdate           = "update"
	OpDelete           = "delete"
	OpCreateCollection = "create_collection"
	OpDropCollection   = "drop_collection"
	OpCreateIndex      = "create_index"
	OpDropIndex        = "drop_index"
	OpDefine           = "define" // new validation rules (Rules) replacing Before
)

// Op is one operation of a journal record. An insert carries the new
// document's id; an update or delete carries the id and the document as it
// was before (Before).
type Op struct {
	Op     string
	Coll   string
	ID     value.Value // missing for collection and index operations
	Before value.Value // update and delete only
	Index  *IndexDef   // create_index and drop_index only
	Rules  value.Value // define only: the new rules, missing when cleared
	// beforeJSON, when set, is the canonical JSON of the before-image,
	// written to the journal as it is (Before is then missing): a write
	// need not parse the document it replaces.
	beforeJSON []byte
}

// Record is one committed write transaction.
type Record struct {
	LSN    uint64    // log sequence number, from 1, ascending
	Time   time.Time // commit time
	Change string    // change id
	Kind   string    // what made it: insert, import, apply, rollback, …
	Actor  string    // who made it
	Note   string
	Ops    []Op
}

// Value returns the record as a document, the form `omgdb log` prints:
// {"lsn","ts","change","kind","actor","note","ops":[{"op","coll","id","before"}]}.
func (r *Record) Value() value.Value {
	ops := make([]value.Value, len(r.Ops))
	for i, op := range r.Ops {
		f := []value.Field{{Key: "op", Value: value.StringValue(op.Op)}, {Key: "coll", Value: value.StringValue(op.Coll)}}
		if !op.ID.IsMissing() {
			f = append(f, value.Field{Key: "id", Value: op.ID})
		}
		if !op.Before.IsMissing() {
			f = append(f, value.Field{Key: "before", Value: op.Before})
		}
		if op.Index != nil {
			f = append(f, value.Field{Key: "index", Value: op.Index.value()})
		}
		if !op.Rules.IsMissing() {
			f = append(f, value.Field{Key: "rules", Value: op.Rules})
		}
		ops[i] = value.ObjectValue(f)
	}
	fields := []value.Field{
		{Key: "lsn", Value: value.LongValue(int64(r.LSN))},
		{Key: "ts", Value: value.DateValue(r.Time.UnixMilli())},
		{Key: "change", Value: value.StringValue(r.Change)},
		{Key: "kind", Value: value.StringValue(r.Kind)},
		{Key: "actor", Value: value.StringValue(r.Actor)},
	}
	if r.Note != "" {
		fields = append(fields, value.Field{Key: "note", Value: value.StringValue(r.Note)})
	}
	fields = append(fields, value.Field{Key: "ops", Value: value.ArrayValue(ops)})
	return value.ObjectValue(fields)
}

// recordFromValue is the inverse of Record.Value.
func recordFromValue(v value.Value) (*Record, error) {
	r := &Record{
		LSN:    uint64(v.Get("lsn").Long()),
		Time:   time.UnixMilli(v.Get("ts").Date()).UTC(),
		Change: v.Get("change").Str(),
		Kind:   v.Get("kind").Str(),
		Actor:  v.Get("actor").Str(),
		Note:   v.Get("note").Str(),
	}
	if v.Get("lsn").Kind() != value.Long || v.Get("ops").Kind() != value.Array {
		return nil, fmt.Errorf("record lacks lsn or ops")
	}
	for _, o := range v.Get("ops").Array() {
		op := Op{Op: o.Get("op").Str(), Coll: o.Get("coll").Str(), ID: o.Get("id"), Before: o.Get("before")}
		switch op.Op {
		case OpInsert:
			if op.ID.IsMissing() {
				return nil, fmt.Errorf("insert without id")
			}
		case OpUpdate, OpDelete:
			if op.ID.IsMissing() || op.Before.Kind() != value.Object {
				return nil, fmt.Errorf("%s without id or before-image", op.Op)
			}
		case OpCreateCollection, OpDropCollection:
		case OpDefine:
			op.Rules = o.Get("rules")
		case OpCreateIndex, OpDropIndex:
			def, err := indexDefFromValue(o.Get("index"))
			if err != nil {
				return nil, err
			}
			op.Index = def
		default:
			return nil, fmt.Errorf("unknown operation %q", op.Op)
		}
		r.Ops = append(r.Ops, op)
	}
	return r, nil
}

// value returns the definition as a document {"name","kind","spec"}.
func (d *IndexDef) value() value.Value {
	fields := []value.Field{{Key: "name", Value: value.StringValue(d.Name)}, {Key: "kind", Value: value.StringValue(d.Kind)}}
	if len(d.Spec) > 0 {
		if spec, err := value.Parse(d.Spec); err == nil {
			fields = append(fields, value.Field{Key: "spec", Value: spec})
		}
	}
	return value.ObjectValue(fields)
}

func indexDefFromValue(v value.Value) (*IndexDef, error) {
	if v.Get("name").Kind() != value.String || v.Get("kind").Kind() != value.String {
		return nil, fmt.Errorf("index operation without a definition")
	}
	def := &IndexDef{Name: v.Get("name").Str(), Kind: v.Get("kind").Str()}
	if spec := v.Get("spec"); !spec.IsMissing() {
		def.Spec = value.JSON(spec)
	}
	return def, nil
}

func lsnKey(lsn uint64) []byte { return binary.BigEndian.AppendUint64(nil, lsn) }

// appendJournal writes the transaction's record under the next LSN.
func (tx *Tx) appendJournal() error {
	j, err := tx.btx.CreateBucketIfNotExists(bucketJournal)
	if err != nil {
		return err
	}
	j.FillPercent = 1.0
	var lsn uint64 = 1
	if k, _ := j.Cursor().Last(); k != nil {
		lsn = binary.BigEndian.Uint64(k) + 1
	}
	when := time.Now().UTC()
	if !tx.change.Time.IsZero() {
		when = tx.change.Time.UTC()
	}
	r := Record{LSN: lsn, Time: when, Change: tx.change.ID, Kind: tx.change.Kind,
		Actor: tx.change.Actor, Note: tx.change.Note, Ops: tx.ops}
	rec := appendRecord(make([]byte, 0, recordSize(&r)), &r)
	if n := len(rec); n > maxRecordSize {
		return errs.Errorf(errs.Limit, "the transaction's journal record would be %d bytes, over the %d-byte limit", n, maxRecordSize).
			WithHint("split the change: the record holds a before-image of every document it changes (narrow the filter of a plan, or import in batches)")
	}
	val := encodeFast(rec)
	tx.lsn = lsn
	if err := j.Put(lsnKey(lsn), val); err != nil {
		return err
	}
	ch, err := tx.btx.CreateBucketIfNotExists(bucketChanges)
	if err != nil {
		return err
	}
	return ch.Put(changeKey(tx.change.ID, lsn), nil)
}

func changeKey(id string, lsn uint64) []byte {
	k := append([]byte(id), 0)
	return binary.BigEndian.AppendUint64(k, lsn)
}

// ChangeRecords returns the journal records written under a change id, in
// LSN order (an import writes one per batch). It returns none for an
// unknown id.
func (tx *Tx) ChangeRecords(id string) ([]*Record, error) {
	ch, j := tx.btx.Bucket(bucketChanges), tx.btx.Bucket(bucketJournal)
	if ch == nil || j == nil {
		return nil, nil
	}
	prefix := append([]byte(id), 0)
	var recs []*Record
	c := ch.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, _ = c.Next() {
		key := k[len(prefix):]
		r, err := decodeRecord(key, j.Get(key))
		if err != nil {
			return nil, journalError(tx.db.path, key, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func decodeRecord(key, raw []byte) (*Record, error) {
	js, err := valueJSON(raw, true)
	if err != nil {
		return nil, err
	}
	v, err := value.ParseLarge(js)
	if err != nil {
		return nil, corruptValue(err.Error())
	}
	r, err := recordFromValue(v)
	if err != nil {
		return nil, err
	}
	if len(key) != 8 || binary.BigEndian.Uint64(key) != r.LSN {
		return nil, fmt.Errorf("record lsn %d stored under key %x", r.LSN, key)
	}
	return r, nil
}

// journalError reports a journal record that cannot be read.
func journalError(path string, key []byte, err error) error {
	lsn := uint64(0)
	if len(key) == 8 {
		lsn = binary.BigEndian.Uint64(key)
	}
	return wrap(errs.IO, ErrCorrupt, "store %s: journal record %d is unreadable: %v", path, lsn, err).
		WithHint("run `omgdb verify`; the documents may still be salvaged")
}

// Journal calls fn for each journal record with an LSN of at least from,
// in ascending order, until fn returns false or an error.
func (tx *Tx) Journal(from uint64, fn func(*Record) (bool, error)) error {
	j := tx.btx.Bucket(bucketJournal)
	if j == nil {
		return nil
	}
	c := j.Cursor()
	for k, v := c.Seek(lsnKey(from)); k != nil; k, v = c.Next() {
		r, err := decodeRecord(k, v)
		if err != nil {
			return journalError(tx.db.path, k, err)
		}
		more, err := fn(r)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// JournalReverse calls fn for each journal record with an LSN above after,
// newest first, until fn returns false or an error.
func (tx *Tx) JournalReverse(after uint64, fn func(*Record) (bool, error)) error {
	j := tx.btx.Bucket(bucketJournal)
	if j == nil {
		return nil
	}
	c := j.Cursor()
	for k, v := c.Last(); k != nil && binary.BigEndian.Uint64(k) > after; k, v = c.Prev() {
		r, err := decodeRecord(k, v)
		if err != nil {
			return journalError(tx.db.path, k, err)
		}
		more, err := fn(r)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// LastLSN returns the LSN of the newest journal record, or 0.
func (tx *Tx) LastLSN() uint64 {
	j := tx.btx.Bucket(bucketJournal)
	if j == nil {
		return 0
	}
	if k, _ := j.Cursor().Last(); len(k) == 8 {
		return binary.BigEndian.Uint64(k)
	}
	return 0
}

// LSN returns the LSN a committed write transaction was given (0 before
// commit or when it wrote nothing). Valid after Update returns, through
// the Tx pointer kept by the caller.
func (tx *Tx) LSN() uint64 { return tx.lsn }
