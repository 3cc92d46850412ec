// Package changes makes writes reviewable and reversible, on top of the
// store's journal: plan -> apply -> rollback, history, snapshots, diff,
// time travel and revert. Every call returns a structured result (Go
// structs with JSON tags) that the CLI prints and the MCP server returns;
// lifecycle results carry the next valid actions.
//
// # Plans
//
// PlanDelete (and PlanUpdate, PlanRevert) compute a change without
// writing any document: every affected document with its after-image and
// a digest of its current bytes, which names its before-image (the current
// document while the plan is not stale, else its state at the plan's base
// LSN in the journal: ShowPlan reads it there). The plan is stored in the
// store file, through the store's plans area (store.Tx.Plans: a header and
// chunks of items and after-images, each a checksummed store.Blob), under
// an opaque token, an ObjectId in hex, and stays pending for 24 hours by
// default. Storing a plan is a write transaction that touches only the
// plans area: it adds no journal record, because it changes no document.
// This package decides what plans, snapshots and rollback links say; the
// store decides how they are laid out in the file, verifies and compacts
// them (docs/file-format.md).
//
// Apply checks, in one transaction, that every planned document is still
// exactly as planned as it writes its after-image, marks the plan applied
// and journals the change with the token as its change id. If any
// document changed, nothing is written and the error is a *ConflictError
// that lists them. A plan applies once.
//
// # One-step writes
//
// Update, Replace and Delete are plan and apply in one transaction,
// without storing the plan: the planner's code finds the documents and
// computes the after-images, and Apply's code writes them, so their
// semantics are PlanUpdate's and PlanDelete's exactly. Each is one
// journaled change with a new change id (History shows it, Rollback
// undoes it) and returns MongoDB's counts; WriteOptions.DryRun plans
// instead. DropCollection and RenameCollection are one change each too;
// a rename is journaled as a copy and a drop, so Rollback undoes it.
// Plan and apply stay the reviewed path: a change someone else approves,
// or an agent's.
//
// # Rollback
//
// Rollback restores the before-images of a change in one transaction and
// is itself a change, which can be rolled back. It refuses, unless forced,
// when a document changed after the change: the state the change left is
// known exactly from the journal (the before-image of the document's next
// operation, or the current document). Every write path journals under a
// change id (inserts, imports with all their batches, applies, rollbacks),
// so every write can be rolled back.
//
// # History and time travel
//
// A Revision is a journal lsn: the state right after that record. A
// revision spec may also be a snapshot name (a free label kept through
// store.Tx.Snapshots), a change id, or an ISO time. The state at a
// revision is computed lazily: the current documents, with every document
// touched after the revision replaced by the before-image of its earliest
// later operation. Only documents touched since differ, so reading the
// past costs one scan plus the journal after the revision. History lists
// changes; Versions, one document's states; Diff compares two revisions;
// PlanRevert plans the change back to one.
//
// # Caveats
//
// Apply checks the documents a plan names: a document that starts to
// match a plan's filter after planning is not part of the plan (an
// upserting plan re-checks that its filter still matches nothing).
// Revert and time travel restore documents and collection existence, not
// index definitions.
package changes
