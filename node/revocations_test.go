package node

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/actors"
	"atende/engine"
	"atende/persistence/redisstate"
)

// announceUserChanges announces each user handed to its hook, in order, off the
// caller's goroutine, until the node closes.
func TestAnnounceUserChanges(t *testing.T) {
	ctx := context.Background()
	rev := redisstate.NewMemoryRevocations(zerolog.Nop())
	t.Cleanup(rev.Close)
	got := make(chan engine.ID, 4)
	cancel, err := rev.Subscribe(ctx, func(id engine.ID) { got <- id })
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	a := &Node{revocations: rev, log: zerolog.Nop()}
	routines := &actors.Routines{}
	t.Cleanup(routines.Close)
	hook := a.announceUserChanges(zerolog.Nop(), routines)
	hook(7)
	hook(9)
	for _, want := range []engine.ID{7, 9} {
		select {
		case id := <-got:
			if id != want {
				t.Fatalf("announced %d, want %d", id, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("user %d not announced", want)
		}
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](ctx); err != nil {
			t.Fatal(err)
		}
	}
}
