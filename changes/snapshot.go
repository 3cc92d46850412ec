package changes

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/omgdb/omgdb/query/errs"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// Snapshots are names for revisions, kept in the store's snapshots area
// (store.Snapshots: name -> JSON). They cost nothing: the journal already
// holds what is needed to go back to any revision.

// Snapshot names a revision.
type Snapshot struct {
	Name    string    `json:"name"`
	LSN     uint64    `json:"lsn"`
	Created time.Time `json:"created"`
	Actor   string    `json:"actor,omitempty"`
}

// ValidateSnapshotName checks a snapshot name: 1 to 64 letters, digits,
// '_', '-' and '.', starting with a letter, and not an ObjectId (which
// would read as a change id).
func ValidateSnapshotName(name string) error {
	bad := name == "" || len(name) > 64 || !isLetter(rune(name[0]))
	for _, r := range name {
		if !(isLetter(r) || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			bad = true
		}
	}
	if _, oid := value.ParseOID(name); bad || oid || name == RevNow {
		return errs.Errorf(errs.Invalid, "invalid snapshot name %q", name).
			WithHint("use 1 to 64 letters, digits, '_', '-' or '.', starting with a letter, such as before-migration")
	}
	return nil
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// SnapshotOptions configures CreateSnapshot. The zero value names the
// current revision "snap-<lsn>".
type SnapshotOptions struct {
	At    string // the revision to name (see ResolveRevision); default now
	Actor string // who made it
}

// CreateSnapshot names a revision. An empty name means "snap-<lsn>", which
// is idempotent; an explicit name that is taken is a Conflict error.
func CreateSnapshot(ctx context.Context, db *store.DB, name string, opts *SnapshotOptions) (*Snapshot, error) {
	if opts == nil {
		opts = &SnapshotOptions{}
	}
	if name != "" {
		if err := ValidateSnapshotName(name); err != nil {
			return nil, err
		}
	}
	var snap *Snapshot
	err := db.Update(store.Change{Kind: "snapshot"}, func(tx *store.Tx) error {
		rev, err := ResolveRevision(tx, opts.At)
		if err != nil {
			return err
		}
		auto := name == ""
		if auto {
			name = fmt.Sprintf("snap-%d", rev.LSN)
		}
		old, err := getSnapshot(tx, name)
		switch {
		case err != nil:
			return err
		case old != nil && auto && old.LSN == rev.LSN:
			snap = old
			return nil
		case old != nil:
			return wrap(errs.Conflict, nil, "snapshot %s already exists (lsn %d)", name, old.LSN).
				WithHint("choose another name, or delete it first with `omgdb snapshot delete`")
		}
		snap = &Snapshot{Name: name, LSN: rev.LSN, Created: time.Now().UTC(), Actor: opts.Actor}
		return putSnapshot(tx, snap)
	})
	return snap, err
}

// Snapshots returns every snapshot, oldest revision first.
func Snapshots(ctx context.Context, db *store.DB) ([]Snapshot, error) {
	snaps := []Snapshot{}
	err := db.View(func(tx *store.Tx) error {
		return tx.Snapshots().Each(func(name string, v store.Blob) error {
			s, err := decodeSnapshot(name, v)
			if err == nil {
				snaps = append(snaps, *s)
			}
			return err
		})
	})
	sortSnapshots(snaps)
	return snaps, err
}

// DeleteSnapshot removes a snapshot name. The history it named stays.
func DeleteSnapshot(ctx context.Context, db *store.DB, name string) (*Snapshot, error) {
	var snap *Snapshot
	err := db.Update(store.Change{Kind: "snapshot"}, func(tx *store.Tx) error {
		s, err := getSnapshot(tx, name)
		if err != nil {
			return err
		}
		if s == nil {
			names, _ := snapshotNames(tx)
			return wrap(errs.NotFound, ErrNotFound, "no snapshot %s%s", name, errs.DidYouMean(name, names)).
				WithHint("list snapshots with `omgdb snapshot list %s`", tx.DB().Path())
		}
		snap = s
		return tx.Snapshots().Delete(name)
	})
	return snap, err
}

func getSnapshot(tx *store.Tx, name string) (*Snapshot, error) {
	raw := tx.Snapshots().Get(name)
	if raw == nil {
		return nil, nil
	}
	return decodeSnapshot(name, raw)
}

func putSnapshot(tx *store.Tx, s *Snapshot) error {
	js, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return tx.Snapshots().Put(s.Name, js)
}

func decodeSnapshot(name string, raw store.Blob) (*Snapshot, error) {
	js, err := store.DecodeBlob(raw)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", name, err)
	}
	s := &Snapshot{}
	if err := json.Unmarshal(js, s); err != nil {
		return nil, errs.Errorf(errs.IO, "snapshot %s: unreadable: %v", name, err)
	}
	return s, nil
}

func snapshotNames(tx *store.Tx) ([]string, error) {
	var names []string
	err := tx.Snapshots().Each(func(name string, _ store.Blob) error { names = append(names, name); return nil })
	return names, err
}

func sortSnapshots(s []Snapshot) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].LSN != s[j].LSN {
			return s[i].LSN < s[j].LSN
		}
		return s[i].Name < s[j].Name
	})
}
