package mongoengine

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/query/errs"
)

// A change being written holds a lease in its journal entry: the fields
// owner (an id of the writing process's apply, insert or import) and
// lease_until (a date). The writer renews it every LeaseRenew while it
// writes, each time setting lease_until to LeaseTime past the moment it
// sent the renewal; a change still "applying" whose lease_until has
// passed is interrupted (its writer was killed, lost the deployment, or
// stopped). The writer never starts a write later than LeaseTime minus
// ClockSkew after its last successful renewal, measured on its own
// monotonic clock, and a recovery takes the change over only once
// lease_until has passed on its clock, atomically (the change must still
// hold the lease it read). So as long as the clocks of the machines that
// run omgdb against one deployment agree within ClockSkew, a writer and a
// recovery never both write for one change.
const (
	LeaseTime  = 30 * time.Second
	LeaseRenew = 5 * time.Second
	ClockSkew  = 10 * time.Second
)

// StatusInterrupted is the status of a change whose writer stopped before
// its end (its lease expired), once a rollback took it over; History also
// shows an applying change whose lease expired as interrupted.
const StatusInterrupted = "interrupted"

// lease is the writer's side of a change's lease: a goroutine renews it
// until release.
type lease struct {
	d     *DB
	tok   bson.ObjectID
	owner bson.ObjectID
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex // guards until and lost
	until time.Time  // no write starts after it (monotonic)
	lost  error      // the change was taken over
}

// newLease is the lease of the change tok, journaled at start.
func newLease(d *DB, tok bson.ObjectID, start time.Time) *lease {
	return &lease{d: d, tok: tok, owner: bson.NewObjectID(), until: start.Add(LeaseTime - ClockSkew),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// fields are the lease's fields in the journal entry, as of start.
func (l *lease) fields(start time.Time) bson.D {
	return bson.D{{Key: "owner", Value: l.owner}, {Key: "lease_until", Value: bson.NewDateTimeFromTime(start.Add(LeaseTime))}}
}

// run renews the lease every LeaseRenew until release.
func (l *lease) run() {
	defer close(l.done)
	t := time.NewTicker(LeaseRenew)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			if l.renew() {
				return
			}
		}
	}
}

// renew extends the lease and reports whether it was lost.
func (l *lease) renew() bool {
	ctx, cancel := context.WithTimeout(context.Background(), LeaseRenew)
	defer cancel()
	sent := time.Now()
	r, err := l.d.db.Collection(ChangesColl).UpdateOne(ctx,
		bson.D{{Key: "_id", Value: l.tok}, {Key: "owner", Value: l.owner}, {Key: "status", Value: StatusApplying}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "lease_until", Value: bson.NewDateTimeFromTime(sent.Add(LeaseTime))}}}})
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil:
		return false // try again; check refuses writes once until passes
	case r.MatchedCount == 0:
		l.lost = errs.Errorf(errs.Conflict, "change %s was taken over (its lease had expired) by a rollback of another omgdb", l.tok.Hex()).
			WithHint("nothing more was written by this omgdb; see `omgdb history %s`", l.d.target.Redacted)
		return true
	}
	l.until = sent.Add(LeaseTime - ClockSkew)
	return false
}

// check says whether a write may start now.
func (l *lease) check() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return l.lost
	}
	if time.Now().After(l.until) {
		return errs.Errorf(errs.IO, "change %s: its lease could not be renewed for %s, so it is taken as interrupted", l.tok.Hex(), LeaseTime-ClockSkew).
			WithHint("check the deployment; `omgdb rollback %s %s` undoes what was written once the lease has expired (%s)", l.d.target.Redacted, l.tok.Hex(), LeaseTime)
	}
	return nil
}

// release stops renewing. It is idempotent.
func (l *lease) release() {
	if l == nil {
		return
	}
	l.once.Do(func() {
		close(l.stop)
		<-l.done
	})
}

// leaseExpired reports whether an applying change's lease has expired at
// now. A change journaled without a lease (by an older omgdb) is taken as
// holding one from its time.
func leaseExpired(ch *Change, now time.Time) bool {
	return now.After(leaseEnd(ch))
}

// leaseEnd is when an applying change's lease ends (for one journaled
// without a lease, LeaseTime after its time).
func leaseEnd(ch *Change) time.Time {
	if ch.LeaseUntil.IsZero() {
		return ch.Time.Add(LeaseTime)
	}
	return ch.LeaseUntil
}
