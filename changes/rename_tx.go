package changes

import (
	"context"

	"github.com/omgdb/omgdb/store"
)

// RenameInTx renames a collection inside the caller's transaction, as
// RenameCollection does in its own (the same journal operations, so a
// rollback undoes it the same way). omgdb copy --history uses it to
// replay a rename made over MongoDB into a store file, under the
// carried change's id.
func RenameInTx(ctx context.Context, tx *store.Tx, from, to string, dropTarget bool) error {
	res := &CollectionResult{}
	if err := renameTarget(tx, from, to, dropTarget, res); err != nil {
		return err
	}
	if err := copyCollection(ctx, tx, from, to, res); err != nil {
		return err
	}
	return tx.DropCollection(from)
}
