package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"atende/actors"
	"atende/engine"
)

// countingSink fails with actors.ErrUnavailable a number of times, then answers.
type countingSink struct {
	fails int
	calls int
	err   error
}

func (s *countingSink) call() error {
	s.calls++
	if s.calls <= s.fails {
		return s.err
	}
	return nil
}
func (s *countingSink) Inbound(context.Context, engine.InboundMessage) error { return s.call() }
func (s *countingSink) Receipt(context.Context, engine.Receipt) error        { return s.call() }
func (s *countingSink) Status(context.Context, engine.StatusChange) error    { return s.call() }

func TestRetrySink(t *testing.T) {
	unavailable := errors.Join(errors.New("call connection/1"), actors.ErrUnavailable)
	// Undeliverable calls are retried until they go through.
	s := &countingSink{fails: 3, err: unavailable}
	if err := (retrySink{s}).Inbound(context.Background(), engine.InboundMessage{}); err != nil || s.calls != 4 {
		t.Fatalf("err %v after %d calls, want nil after 4", err, s.calls)
	}
	// So is an actor's ERR_UNAVAILABLE answer (a ticket on a leaving node).
	s = &countingSink{fails: 2, err: engine.Wrap(engine.ErrUnavailable, errors.New("no activation for ticket 9"))}
	if err := (retrySink{s}).Inbound(context.Background(), engine.InboundMessage{}); err != nil || s.calls != 3 {
		t.Fatalf("err %v after %d calls, want nil after 3", err, s.calls)
	}
	// The actor's other answers are not retried.
	s = &countingSink{fails: 5, err: engine.E(engine.ErrValidation)}
	if err := (retrySink{s}).Receipt(context.Background(), engine.Receipt{}); engine.CodeOf(err) != engine.ErrValidation || s.calls != 1 {
		t.Fatalf("err %v after %d calls", err, s.calls)
	}
	// An attempt that gets no answer is given up after clusterAttemptTimeout and
	// sent again.
	hung := &hangingSink{}
	start0 := time.Now()
	if err := (retrySink{hung}).Inbound(context.Background(), engine.InboundMessage{}); err != nil || hung.calls != 2 {
		t.Fatalf("err %v after %d calls", err, hung.calls)
	}
	if d := time.Since(start0); d < clusterAttemptTimeout || d > clusterAttemptTimeout+time.Second {
		t.Fatalf("answered after %v", d)
	}
	// The deadline ends the retries with the last error.
	s = &countingSink{fails: 1 << 30, err: unavailable}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := (retrySink{s}).Status(ctx, engine.StatusChange{}); !errors.Is(err, actors.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 2*time.Second {
		t.Fatalf("gave up after %v", d)
	}
}

// hangingSink never answers its first call (a request lost with a dead node).
type hangingSink struct{ calls int }

func (s *hangingSink) Inbound(ctx context.Context, _ engine.InboundMessage) error {
	s.calls++
	if s.calls == 1 {
		<-ctx.Done()
		return errors.Join(ctx.Err(), actors.ErrUnavailable)
	}
	return nil
}
func (s *hangingSink) Receipt(context.Context, engine.Receipt) error     { return nil }
func (s *hangingSink) Status(context.Context, engine.StatusChange) error { return nil }
