package changes

import (
	"github.com/omgdb/omgdb/store"
)

// Rollbacks are linked to the changes they undo in the bucket "rollbacks"
// of the store file: "by\x00<change>" -> the rollback's change id, and
// "of\x00<rollback>" -> the change it undid. The journal record of a
// rollback also says it, in its note ("rollback of <change>").
const bucketRollbacks = "rollbacks"

func linkKey(kind, id string) []byte { return []byte(kind + "\x00" + id) }

func link(tx *store.Tx, change, rollback string) error {
	b, err := tx.Bucket(bucketRollbacks)
	if err != nil {
		return err
	}
	if err := b.Put(linkKey("by", change), []byte(rollback)); err != nil {
		return err
	}
	return b.Put(linkKey("of", rollback), []byte(change))
}

func getLink(tx *store.Tx, kind, id string) string {
	b, err := tx.Bucket(bucketRollbacks)
	if err != nil || b == nil {
		return ""
	}
	return string(b.Get(linkKey(kind, id)))
}

// rolledBackBy returns the rollback that undoes change id and is itself in
// effect (not undone by a rollback of its own), or "".
func rolledBackBy(tx *store.Tx, id string) string {
	for depth := 0; depth < 1000; depth++ {
		by := getLink(tx, "by", id)
		if by == "" {
			return ""
		}
		if rolledBackBy(tx, by) == "" {
			return by
		}
		return "" // the rollback was itself rolled back: the change is in effect again
	}
	return ""
}

// changeStatus describes whether a change is in effect.
func changeStatus(tx *store.Tx, id string) string {
	if by := rolledBackBy(tx, id); by != "" {
		return "rolled back by " + by
	}
	return StatusApplied
}
