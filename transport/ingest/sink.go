package ingest

import (
	"context"
	"errors"

	"atende/engine"
)

// Sink wraps next, the sink of connection conn: each Inbound and Receipt takes a
// place of l first (Enter) and gives it back when next returns or panics; a call
// refused a place, or that next answers ERR_UNAVAILABLE or with ctx's deadline
// passed (the connection actor did not answer in time), is ERR_UNAVAILABLE with an
// *Overload cause: retry later. Status changes are rare and pass without a place.
// On a nil Limiter every call passes, and stalls are still turned into refusals.
func (l *Limiter) Sink(conn engine.ID, next engine.ChannelSink) engine.ChannelSink {
	return sink{l: l, conn: conn, next: next}
}

type sink struct {
	l    *Limiter
	conn engine.ID
	next engine.ChannelSink
}

func (s sink) Inbound(ctx context.Context, m engine.InboundMessage) error {
	return s.admit(ctx, func(ctx context.Context) error { return s.next.Inbound(ctx, m) })
}

func (s sink) Receipt(ctx context.Context, r engine.Receipt) error {
	return s.admit(ctx, func(ctx context.Context) error { return s.next.Receipt(ctx, r) })
}

func (s sink) Status(ctx context.Context, st engine.StatusChange) error {
	return s.next.Status(ctx, st)
}

// admit runs call holding a place of the Limiter.
func (s sink) admit(ctx context.Context, call func(context.Context) error) error {
	release, err := s.l.Enter(ctx, s.conn)
	if err != nil {
		return err
	}
	defer release()
	err = call(ctx)
	if err == nil || !stalled(err) {
		return err
	}
	retryAfter := DefaultRetryAfter
	if s.l != nil {
		s.l.stalled.Add(1)
		retryAfter = s.l.cfg.RetryAfter
	}
	return refusal(ReasonStalled, retryAfter, err)
}

// stalled reports whether err means the call could not be done now but may be
// later: ERR_UNAVAILABLE (an actor call that timed out, an actor or database out
// of reach) or a deadline that passed on the way. An Overload from further in is
// one already.
func stalled(err error) bool {
	var o *Overload
	if errors.As(err, &o) {
		return false
	}
	return engine.CodeOf(err) == engine.ErrUnavailable || errors.Is(err, context.DeadlineExceeded)
}
