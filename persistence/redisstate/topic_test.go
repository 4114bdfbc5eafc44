package redisstate_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// A topic reaches every subscriber of the same prefix (the publisher's node too), in
// the order one node published, and nothing of another prefix or topic.
func TestTopic(t *testing.T) {
	ctx := context.Background()
	prefix := "atende-test:" + randomHex(6) + ":"
	a, b := openRedis(t, prefix), openRedis(t, prefix)
	other := openRedis(t, "atende-test:"+randomHex(6)+":")
	type rec struct {
		mu  sync.Mutex
		got []string
	}
	sub := func(t *testing.T, topic interface {
		Subscribe(context.Context, func([]byte)) (func(), error)
	}) (*rec, func()) {
		r := &rec{}
		cancel, err := topic.Subscribe(ctx, func(p []byte) { r.mu.Lock(); r.got = append(r.got, string(p)); r.mu.Unlock() })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cancel)
		return r, cancel
	}
	onA, _ := sub(t, a.Topic("webchat"))
	onB, cancelB := sub(t, b.Topic("webchat"))
	elsewhere, _ := sub(t, other.Topic("webchat"))
	otherTopic, _ := sub(t, a.Topic("other"))
	var want []string
	for i := range 100 {
		p := fmt.Sprintf("m%d\x00\xff", i) // binary safe
		if err := a.Topic("webchat").Publish(ctx, []byte(p)); err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	for name, r := range map[string]*rec{"A": onA, "B": onB} {
		eventually(t, 5*time.Second, name+" receives all", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.got) >= len(want) })
		r.mu.Lock()
		if !slices.Equal(r.got, want) {
			t.Errorf("node %s got %q…", name, r.got[:3])
		}
		r.mu.Unlock()
	}
	time.Sleep(100 * time.Millisecond)
	for name, r := range map[string]*rec{"other prefix": elsewhere, "other topic": otherTopic} {
		r.mu.Lock()
		if len(r.got) != 0 {
			t.Errorf("%s received %d messages", name, len(r.got))
		}
		r.mu.Unlock()
	}
	// After cancel nothing more arrives; cancel twice is harmless.
	cancelB()
	cancelB()
	if err := a.Topic("webchat").Publish(ctx, []byte("late")); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "A receives late", func() bool { onA.mu.Lock(); defer onA.mu.Unlock(); return len(onA.got) == 101 })
	onB.mu.Lock()
	if len(onB.got) != 100 {
		t.Errorf("B got %d after cancel", len(onB.got))
	}
	onB.mu.Unlock()
	// After Close, Subscribe refuses.
	c := openRedis(t, prefix)
	_ = c.Close()
	if _, err := c.Topic("webchat").Subscribe(ctx, func([]byte) {}); err == nil {
		t.Error("Subscribe after Close succeeded")
	}
}
