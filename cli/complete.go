package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/omgdb/omgdb/store"
)

// completeStoreArgs completes the collection argument from the store named
// by the first argument, opened read-only without waiting for a lock.
func completeStoreArgs(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) != 1 {
		return nil, cobra.ShellCompDirectiveDefault
	}
	db, err := store.Open(args[0], &store.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	var names []string
	db.View(func(tx *store.Tx) error { names = tx.Collections(); return nil })
	return names, cobra.ShellCompDirectiveNoFileComp
}
