package changes

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/omgdb/omgdb/query/value"
)

// Plan kinds.
const (
	KindUpdate = "update" // plan-update: an update or replacement of matching documents
	KindDelete = "delete" // plan-delete: deletion of matching documents
	KindRevert = "revert" // revert: bring documents back to a revision
	// KindAggregate (planaggregate.go) is the writes of a pipeline ending
	// in $out or $merge.
)

// Plan statuses.
const (
	StatusPending   = "pending"   // may be applied or discarded
	StatusApplied   = "applied"   // applied: its token is a change id
	StatusDiscarded = "discarded" // dropped by Discard
	StatusExpired   = "expired"   // not applied before Expires
)

// Next valid actions, as results list them for agents.
const (
	ActionApply    = "apply"    // apply the plan by its token
	ActionDiscard  = "discard"  // drop the plan
	ActionRollback = "rollback" // undo the change
	ActionShow     = "show"     // show the plan or change in full
)

// DefaultExpiry is how long a plan stays pending.
const DefaultExpiry = 24 * time.Hour

// DefaultSample is how many before/after pairs a plan result shows.
const DefaultSample = 3

// Plan is a planned change: what it is, when it expires, and its status.
// The documents it affects are read with PlanItems.
type Plan struct {
	Token        string    `json:"token"`
	Kind         string    `json:"kind"`                  // update, delete or revert
	Collection   string    `json:"collection,omitempty"`  // update and delete
	Collections  []string  `json:"collections,omitempty"` // revert: every collection it touches
	Filter       *Doc      `json:"filter,omitempty"`
	Update       *Doc      `json:"update,omitempty"`
	ArrayFilters []Doc     `json:"array_filters,omitempty"`
	Upsert       bool      `json:"upsert,omitempty"`
	First        bool      `json:"first_only,omitempty"` // --multi=false: the first match only
	Revision     *Revision `json:"revision,omitempty"`   // revert: the revision it goes back to
	Source       string    `json:"source,omitempty"`     // aggregate: the collection the pipeline reads
	Pipeline     *Doc      `json:"pipeline,omitempty"`   // aggregate: the pipeline, its $out or $merge included
	// CreateTarget is set on a $out plan whose target does not exist:
	// apply creates it even when the pipeline returns no document, as
	// MongoDB's $out does.
	CreateTarget bool      `json:"create_target,omitempty"`
	Matched      int64     `json:"matched"`
	Modified     int64     `json:"modified"`
	BaseLSN      uint64    `json:"base_lsn"` // the journal's last lsn when planned
	Created      time.Time `json:"created"`
	Expires      time.Time `json:"expires"`
	Actor        string    `json:"actor,omitempty"`
	Note         string    `json:"note,omitempty"`
	Status       string    `json:"status"`
	StatusTime   time.Time `json:"status_time,omitzero"` // when it was applied or discarded
	AppliedLSN   uint64    `json:"applied_lsn,omitempty"`

	items     int  // items stored (matched documents, and the upserted one)
	upsertNew bool // the plan inserts an upserted document: apply re-checks the filter
}

// status returns the plan's status at time now: a pending plan past its
// expiry is expired.
func (p *Plan) status(now time.Time) string {
	if p.Status == StatusPending && now.After(p.Expires) {
		return StatusExpired
	}
	return p.Status
}

// describe returns a one-line description, the note of the change an
// apply makes.
func (p *Plan) describe() string {
	if p.Kind == KindAggregate {
		// Without the pipeline, which may quote values of redacted fields.
		return "plan-aggregate " + p.Source + " into " + p.Collection
	}
	if p.Kind == KindRevert {
		s := "plan-" + p.Kind
		if p.Revision != nil {
			s += " to " + p.Revision.Spec
		}
		return s
	}
	return p.note("plan-" + p.Kind)
}

// note returns "<what> <collection> <filter> <update>", cut to 300 bytes:
// the note of the change that applies p (or that a one-step write makes).
func (p *Plan) note(what string) string {
	s := what + " " + p.Collection
	if p.Filter != nil {
		s += " " + p.Filter.String()
	}
	if p.Update != nil {
		s += " " + p.Update.String()
	}
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// Item operations.
const (
	opInsert = "insert"
	opUpdate = "update"
	opDelete = "delete"
	opNone   = "none" // matched but unchanged: checked at apply, never written
)

// item is one document of a plan.
type item struct {
	coll   string
	id     value.Value
	op     string
	digest string      // of the document's bytes when planned; "" when it did not exist
	before value.Value // at planning, for the sample (not stored); missing for an insert and unchanged documents
	after  value.Value // missing for a delete and for unchanged documents
	// afterJSON is the after-image as stored (canonical JSON), when it was
	// read unparsed (withAfterJSON) or encoded at planning; nil for none.
	afterJSON []byte
	// beforeJSON is the before-image's stored JSON when an update was
	// planned on the stored bytes and before is not set (for the sample;
	// not stored).
	beforeJSON []byte
	hasBefore  bool // before was read from the plan (plans made before before-images were left out)
}

func (it *item) ref() DocRef { return DocRef{Collection: it.coll, ID: Doc{it.id}} }

// value returns the item's identity as stored (its images are stored
// apart, see planWriter): {"coll","id","op","digest"}.
func (it *item) value() value.Value {
	f := []value.Field{
		{Key: "coll", Value: value.StringValue(it.coll)},
		{Key: "id", Value: it.id},
		{Key: "op", Value: value.StringValue(it.op)},
	}
	if it.digest != "" {
		f = append(f, value.Field{Key: "digest", Value: value.StringValue(it.digest)})
	}
	return value.ObjectValue(f)
}

func itemFromValue(v value.Value) item {
	return item{
		coll: v.Get("coll").Str(), id: v.Get("id"), op: v.Get("op").Str(),
		digest: v.Get("digest").Str(),
	}
}

// digest identifies a document's stored bytes (its canonical JSON): the
// first 128 bits of their SHA-256, in hex.
func digest(js []byte) string {
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:16])
}

// timeNow is time.Now in UTC.
func timeNow() time.Time { return time.Now().UTC() }
