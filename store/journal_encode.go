package store

import (
	"strconv"

	"github.com/omgdb/omgdb/query/value"
)

// appendRecord appends the canonical JSON of r.Value() to dst without
// building the value: an import's record lists every inserted id, and the
// value tree cost two allocations per document.
func appendRecord(dst []byte, r *Record) []byte {
	dst = append(dst, `{"lsn":`...)
	dst = strconv.AppendUint(dst, r.LSN, 10)
	dst = append(dst, `,"ts":`...)
	dst = value.AppendJSON(dst, value.DateValue(r.Time.UnixMilli()))
	dst = appendStringField(dst, "change", r.Change)
	dst = appendStringField(dst, "kind", r.Kind)
	dst = appendStringField(dst, "actor", r.Actor)
	if r.Note != "" {
		dst = appendStringField(dst, "note", r.Note)
	}
	dst = append(dst, `,"ops":[`...)
	for i := range r.Ops {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendOp(dst, &r.Ops[i])
	}
	return append(dst, "]}"...)
}

// recordSize estimates the size of r's encoding, for the buffer
// appendRecord fills: an update of many documents journals each one's
// before-image, and growing the buffer copied them over and over.
func recordSize(r *Record) int {
	n := 256 + len(r.Note)
	for i := range r.Ops {
		n += 48 + len(r.Ops[i].Coll) + len(r.Ops[i].beforeJSON)
	}
	return n
}

func appendOp(dst []byte, op *Op) []byte {
	dst = append(dst, `{"op":`...)
	dst = value.AppendString(dst, op.Op)
	dst = appendStringField(dst, "coll", op.Coll)
	if !op.ID.IsMissing() {
		dst = value.AppendJSON(append(dst, `,"id":`...), op.ID)
	}
	switch {
	case op.beforeJSON != nil:
		dst = append(append(dst, `,"before":`...), op.beforeJSON...)
	case !op.Before.IsMissing():
		dst = value.AppendJSON(append(dst, `,"before":`...), op.Before)
	}
	if op.Index != nil {
		dst = value.AppendJSON(append(dst, `,"index":`...), op.Index.value())
	}
	if !op.Rules.IsMissing() {
		dst = value.AppendJSON(append(dst, `,"rules":`...), op.Rules)
	}
	return append(dst, '}')
}

func appendStringField(dst []byte, key, val string) []byte {
	dst = append(append(append(dst, ',', '"'), key...), '"', ':')
	return value.AppendString(dst, val)
}
