package changes

import (
	"strconv"
	"strings"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Revision is a point in the store's history: the state right after the
// journal record LSN committed (0 is the empty store before the first).
type Revision struct {
	LSN  uint64 `json:"lsn"`
	Spec string `json:"spec"` // as given: an lsn, a snapshot name, a change id, a time, or "now"
	Kind string `json:"kind"` // lsn, snapshot, change, time or now
}

// Revision kinds.
const (
	RevLSN      = "lsn"
	RevSnapshot = "snapshot"
	RevChange   = "change"
	RevTime     = "time"
	RevNow      = "now"
)

// timeLayouts are the ISO 8601 forms a revision may take.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// ResolveRevision turns a revision spec into an LSN. A spec is, tried in
// this order: "now" (or empty), a snapshot name, a journal LSN (digits), a
// change id (the state right after the change's last record), or an ISO
// 8601 time (the state as of that moment; without a zone, UTC).
//
// A revision older than the history that compaction kept is an error: the
// records needed to reach it are gone.
func ResolveRevision(tx *store.Tx, spec string) (Revision, error) {
	rev, err := resolveRevision(tx, spec)
	if err != nil {
		return rev, err
	}
	if pruned := tx.PrunedLSN(); rev.LSN < pruned {
		return Revision{}, errs.Errorf(errs.NotFound, "revision %s (lsn %d) is before the history this store keeps: `compact --history-before %d` dropped records 1 to %d", rev.Spec, rev.LSN, pruned, pruned).
			WithHint("the oldest reachable revision is lsn %d", pruned)
	}
	return rev, nil
}

func resolveRevision(tx *store.Tx, spec string) (Revision, error) {
	spec = strings.TrimSpace(spec)
	last := tx.LastLSN()
	if spec == "" || spec == RevNow {
		return Revision{LSN: last, Spec: RevNow, Kind: RevNow}, nil
	}
	if s, err := getSnapshot(tx, spec); err != nil || s != nil {
		if err != nil {
			return Revision{}, err
		}
		return Revision{LSN: s.LSN, Spec: spec, Kind: RevSnapshot}, nil
	}
	if isDigits(spec) {
		return lsnRevision(spec, last)
	}
	if _, ok := value.ParseOID(spec); ok {
		return changeRevision(tx, spec)
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, spec); err == nil {
			return timeRevision(tx, spec, t)
		}
	}
	return Revision{}, unknownRevision(tx, spec)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func lsnRevision(spec string, last uint64) (Revision, error) {
	n, err := strconv.ParseUint(spec, 10, 64)
	if err != nil || n > last {
		return Revision{}, wrap(errs.NotFound, ErrNotFound, "revision %s is past the end of the journal (last lsn %d)", spec, last).
			WithHint("the journal's lsns run from 1 to %d; see `omgdb log`", last)
	}
	return Revision{LSN: n, Spec: spec, Kind: RevLSN}, nil
}

func changeRevision(tx *store.Tx, id string) (Revision, error) {
	recs, err := tx.ChangeRecords(id)
	if err != nil {
		return Revision{}, err
	}
	if len(recs) == 0 {
		return Revision{}, noChange(tx, id)
	}
	return Revision{LSN: recs[len(recs)-1].LSN, Spec: id, Kind: RevChange}, nil
}

func noChange(tx *store.Tx, id string) error {
	return wrap(errs.NotFound, ErrNotFound, "no change %s in the journal", id).
		WithHint("list changes with `omgdb history %s`", tx.DB().Path())
}

// timeRevision finds the last record committed at or before t.
func timeRevision(tx *store.Tx, spec string, t time.Time) (Revision, error) {
	rev := Revision{Spec: spec, Kind: RevTime}
	err := tx.JournalReverse(0, func(r *store.Record) (bool, error) {
		if !r.Time.After(t) {
			rev.LSN = r.LSN
			return false, nil
		}
		return true, nil
	})
	return rev, err
}

func unknownRevision(tx *store.Tx, spec string) error {
	names, _ := snapshotNames(tx)
	return wrap(errs.NotFound, ErrNotFound, "unknown revision %q%s", spec, errs.DidYouMean(spec, names)).
		WithHint("a revision is a journal lsn (`omgdb log`), a snapshot name (`omgdb snapshot list`), a change id (`omgdb history`) or an ISO time such as 2024-05-01T12:00:00Z")
}
