package mcpserver

import (
	"context"
	"time"
)

// A call's clock starts when its request arrives, not when it starts to
// run: its deadline is its arrival plus Config.Timeout, and the time it
// waits for one of the Config.Concurrency slots counts. A call that finds
// every slot taken waits in arrival order; if its deadline passes first,
// it is answered BUSY at that moment (retryable: nothing ran), however
// long the calls before it still run. A call whose deadline has passed
// before it could even ask for a slot (a later message of a batch, whose
// messages arrive together and run one after the other) is answered
// LIMIT_EXCEEDED at once, without running.

// arrivalKey is the context key of a request's arrival time.
type arrivalKey struct{}

// withArrival records now as the arrival time of the requests handled
// with ctx.
func withArrival(ctx context.Context, now time.Time) context.Context {
	return context.WithValue(ctx, arrivalKey{}, now)
}

// arrival is the time the request handled with ctx arrived; now when
// none was recorded.
func arrival(ctx context.Context) time.Time {
	if t, ok := ctx.Value(arrivalKey{}).(time.Time); ok {
		return t
	}
	return time.Now()
}

// acquire takes one of the server's slots for a call whose context
// carries its deadline, waiting for one in arrival order. It fails with
// BUSY when the deadline comes while it waits, and with the context's
// error when the call is cancelled or already past its deadline.
func (s *Server) acquire(ctx context.Context, name string) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	release = func() { <-s.sem }
	select {
	case s.sem <- struct{}{}:
		return release, nil
	default:
	}
	waited := time.Now()
	select {
	case s.sem <- struct{}{}:
		return release, nil
	case <-ctx.Done():
	}
	if ctx.Err() != context.DeadlineExceeded {
		return nil, ctx.Err()
	}
	return nil, s.queueBusy(name, arrival(ctx), time.Since(waited))
}

// queueBusy is the error of a call that could not start before its
// deadline.
func (s *Server) queueBusy(name string, arrived time.Time, waited time.Duration) *toolError {
	n := s.cfg.Concurrency
	e := errorf(CodeBusy, "server busy: tool `%s` could not start within its %s limit (--timeout): %d call(s) ran at once (--concurrency %d) and it waited %s for a turn",
		name, s.cfg.Timeout, n, n, waited.Round(time.Millisecond)).
		withHint("nothing ran; retry in a moment, send fewer calls at once, or ask the operator for a higher --concurrency")
	e.retryable = true
	return e.withContext("tool", name, "waited_ms", waited.Milliseconds(), "since_arrival_ms", time.Since(arrived).Milliseconds(), "concurrency", n)
}
