package mongoengine

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/value"
)

// forcedMark is the mark of an item a forced write (rollback --force)
// wrote whatever the document held: the item is rewritten to say what
// the write really did, from the document as it was just before (actual,
// Missing when there was none), so that rollback, time travel and diff
// read true before-images. A deletion of a document already gone wrote
// nothing: its state is "unchanged", which no reader of the journal
// counts as written.
func forcedMark(it Item, actual value.Value) (bson.D, error) {
	set := bson.D{{Key: "state", Value: "applied"}}
	unset := bson.D{}
	switch {
	case actual.IsMissing() && it.Op == OpDelete:
		set = bson.D{{Key: "state", Value: "unchanged"}}
	case actual.IsMissing():
		set = append(set, bson.E{Key: "op", Value: OpInsert})
		unset = append(unset, bson.E{Key: "before", Value: ""})
	default:
		b, err := docToBSON(actual)
		if err != nil {
			return nil, err
		}
		set = append(set, bson.E{Key: "before", Value: b})
		if it.Op == OpInsert {
			set = append(set, bson.E{Key: "op", Value: OpUpdate})
		}
	}
	mark := bson.D{{Key: "$set", Value: set}}
	if len(unset) > 0 {
		mark = append(mark, bson.E{Key: "$unset", Value: unset})
	}
	return mark, nil
}
