package changes

import (
	"github.com/omgdb/omgdb/store"
)

// Rollbacks are linked to the changes they undo in the store's rollback
// links (store.Rollbacks). The journal record of a rollback also says it,
// in its note ("rollback of <change>").

func link(tx *store.Tx, change, rollback string) error {
	return tx.Rollbacks().Link(change, rollback)
}

// rolledBackBy returns the rollback that undoes change id and is itself in
// effect (not undone by a rollback of its own), or "".
func rolledBackBy(tx *store.Tx, id string) string {
	for depth := 0; depth < 1000; depth++ {
		by := tx.Rollbacks().UndoneBy(id)
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
