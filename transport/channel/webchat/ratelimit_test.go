package webchat

import (
	"net"
	"testing"
	"time"

	"atende/engine"
)

func TestBucket(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	b := newBucket(10, 3, t0)
	for i := range 3 {
		if !b.allow(t0) {
			t.Fatalf("burst token %d refused", i)
		}
	}
	if b.allow(t0) || b.full(t0) {
		t.Fatal("an empty bucket allowed or claims to be full")
	}
	if !b.allow(t0.Add(100*time.Millisecond)) || b.allow(t0.Add(100*time.Millisecond)) {
		t.Fatal("100 ms at 10/s is one token")
	}
	if b.allow(t0.Add(50 * time.Millisecond)) {
		t.Fatal("a clock going back refilled the bucket")
	}
	if !b.full(t0.Add(time.Second)) {
		t.Fatal("a second at 10/s refills a burst of 3")
	}
}

func TestSweepForgetsRecoveredVisitors(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	srv, err := New(Config{Secret: testSecret, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := srv.start(engine.Connection{ID: 1}, newJournal())
	if err != nil {
		t.Fatal(err)
	}
	spent := newBucket(10, 20, now)
	for range 20 {
		spent.allow(now)
	}
	srv.mu.Lock()
	for i := range minSweep {
		_, vid := srv.issueToken(1)
		ep.visitors[vid] = &visitor{id: vid, limiter: newBucket(10, 20, now), sockets: map[*socket]struct{}{}}
		if i == 0 {
			ep.visitors[vid].limiter = spent
		}
	}
	srv.mu.Unlock()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	_, vid := srv.issueToken(1)
	if r := srv.attach(newSocket(srv, ep, a, a, ""), vid); r != attached {
		t.Fatalf("attach: %d", r)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(ep.visitors) != 2 { // the spent one and the new one
		t.Fatalf("%d visitors after the sweep, want 2", len(ep.visitors))
	}
	if ep.sweepAt != minSweep {
		t.Fatalf("next sweep at %d", ep.sweepAt)
	}
}
