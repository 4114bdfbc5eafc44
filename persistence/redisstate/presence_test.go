package redisstate_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

func online(t *testing.T, p engine.Presence, companyID engine.ID) []engine.PresenceEntry {
	t.Helper()
	got, err := p.Online(context.Background(), companyID)
	if err != nil {
		t.Fatalf("Online(%d): %v", companyID, err)
	}
	return got
}

func userIDs(entries []engine.PresenceEntry) []engine.ID {
	ids := make([]engine.ID, len(entries))
	for i, e := range entries {
		ids[i] = e.UserID
	}
	return ids
}

func setOnline(t *testing.T, p engine.Presence, companyID, userID engine.ID, queues []engine.ID, node string, ttl time.Duration) {
	t.Helper()
	if err := p.SetOnline(context.Background(), companyID, userID, queues, node, ttl); err != nil {
		t.Fatalf("SetOnline(%d, %d, %q): %v", companyID, userID, node, err)
	}
}

func TestPresence(t *testing.T) {
	ctx := context.Background()
	const ttl = time.Minute
	eachBackend(t, func(t *testing.T, b *backend) {
		p := b.presence
		t.Run("online per queue, sorted by user", func(t *testing.T) {
			setOnline(t, p, 1, 30, []engine.ID{2, 1, 2}, "n1", ttl)
			setOnline(t, p, 1, 10, []engine.ID{1}, "n1", ttl)
			setOnline(t, p, 1, 20, nil, "n2", ttl)
			got := online(t, p, 1)
			if ids := userIDs(got); !slices.Equal(ids, []engine.ID{10, 20, 30}) {
				t.Fatalf("online = %v", ids)
			}
			if !slices.Equal(got[2].QueueIDs, []engine.ID{1, 2}) || len(got[1].QueueIDs) != 0 {
				t.Fatalf("queues = %v / %v, want normalised [1 2] / []", got[2].QueueIDs, got[1].QueueIDs)
			}
			for q, want := range map[engine.ID][]engine.ID{1: {10, 30}, 2: {30}, 3: {}} {
				in, err := p.OnlineInQueue(ctx, 1, q)
				if err != nil {
					t.Fatal(err)
				}
				if ids := userIDs(in); !slices.Equal(ids, want) {
					t.Fatalf("queue %d: %v, want %v", q, ids, want)
				}
			}
		})
		t.Run("several nodes merge into one entry", func(t *testing.T) {
			setOnline(t, p, 2, 7, []engine.ID{1}, "n1", ttl)
			first := online(t, p, 2)[0]
			setOnline(t, p, 2, 7, []engine.ID{5, 6}, "n2", ttl) // newest refresh: its queues win
			got := online(t, p, 2)
			if len(got) != 1 || !slices.Equal(got[0].QueueIDs, []engine.ID{5, 6}) {
				t.Fatalf("merged = %+v, want one entry with queues [5 6]", got)
			}
			if !got[0].Since.Equal(first.Since) {
				t.Fatalf("Since = %v, want the first lease's %v", got[0].Since, first.Since)
			}
			setOnline(t, p, 2, 7, []engine.ID{1}, "n1", ttl) // a refresh keeps Since
			if s := online(t, p, 2)[0].Since; !s.Equal(first.Since) {
				t.Fatalf("Since after refresh = %v, want %v", s, first.Since)
			}
			if err := p.SetOffline(ctx, 2, 7, "n1"); err != nil {
				t.Fatal(err)
			}
			if got := online(t, p, 2); len(got) != 1 {
				t.Fatalf("offline on n1 only: %+v, want still online through n2", got)
			}
			if err := p.SetOffline(ctx, 2, 7, "n2"); err != nil {
				t.Fatal(err)
			}
			if got := online(t, p, 2); len(got) != 0 {
				t.Fatalf("offline everywhere: %+v", got)
			}
			if err := p.SetOffline(ctx, 2, 7, "n2"); err != nil {
				t.Fatalf("offline twice: %v", err)
			}
		})
		t.Run("tenants are isolated", func(t *testing.T) {
			setOnline(t, p, 3, 1, []engine.ID{1}, "n1", ttl)
			setOnline(t, p, 4, 1, []engine.ID{2}, "n1", ttl)
			setOnline(t, p, 4, 2, []engine.ID{1}, "n1", ttl)
			if got := online(t, p, 3); len(got) != 1 || !slices.Equal(got[0].QueueIDs, []engine.ID{1}) {
				t.Fatalf("company 3 = %+v", got)
			}
			if err := p.SetOffline(ctx, 3, 1, "n1"); err != nil {
				t.Fatal(err)
			}
			if ids := userIDs(online(t, p, 4)); !slices.Equal(ids, []engine.ID{1, 2}) {
				t.Fatalf("company 4 after company 3's user left = %v", ids)
			}
			if got := online(t, p, 999); len(got) != 0 {
				t.Fatalf("unknown company = %+v", got)
			}
		})
		t.Run("hostile node names", func(t *testing.T) {
			for i, node := range hostileKeys {
				if node == "" {
					continue
				}
				setOnline(t, p, 5, engine.ID(i+1), []engine.ID{engine.ID(i)}, node, ttl)
				setOnline(t, p, 5, 1000, []engine.ID{1}, node, ttl) // one user on every node
			}
			want := len(hostileKeys) - 1 + 1
			if got := online(t, p, 5); len(got) != want {
				t.Fatalf("online = %d entries, want %d", len(got), want)
			}
			// Leaving every node but the last keeps user 1000 online; then gone.
			for i, node := range hostileKeys[1 : len(hostileKeys)-1] {
				if err := p.SetOffline(ctx, 5, 1000, node); err != nil {
					t.Fatalf("offline %d: %v", i, err)
				}
			}
			if !slices.Contains(userIDs(online(t, p, 5)), 1000) {
				t.Fatal("user 1000 offline while a lease on the last node lives")
			}
			if err := p.SetOffline(ctx, 5, 1000, hostileKeys[len(hostileKeys)-1]); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(userIDs(online(t, p, 5)), 1000) {
				t.Fatal("user 1000 still online after leaving every node")
			}
		})
		t.Run("refused arguments", func(t *testing.T) {
			for name, call := range map[string]func() error{
				"empty node": func() error { return p.SetOnline(ctx, 6, 1, nil, "", ttl) },
				"zero ttl":   func() error { return p.SetOnline(ctx, 6, 1, nil, "n", 0) },
				"negative":   func() error { return p.SetOnline(ctx, 6, 1, nil, "n", -time.Second) },
			} {
				if call() == nil {
					t.Errorf("%s accepted", name)
				}
			}
			if got := online(t, p, 6); len(got) != 0 {
				t.Fatalf("refused calls left %+v", got)
			}
		})
		t.Run("leases lapse unless refreshed", func(t *testing.T) {
			// User 1 is refreshed every 50 ms with a 300 ms lease; user 2 set once for
			// 200 ms. User 2 must lapse while user 1 stays.
			setOnline(t, p, 7, 2, []engine.ID{1}, "n1", 200*time.Millisecond)
			start := time.Now()
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			deadline := time.After(5 * time.Second)
			for {
				setOnline(t, p, 7, 1, []engine.ID{1}, "n1", 300*time.Millisecond)
				ids := userIDs(online(t, p, 7))
				if !slices.Contains(ids, 1) {
					t.Fatalf("refreshed user lapsed after %v", time.Since(start))
				}
				if !slices.Contains(ids, 2) {
					break
				}
				select {
				case <-tick.C:
				case <-deadline:
					t.Fatal("unrefreshed lease never lapsed")
				}
			}
			if el := time.Since(start); el < 150*time.Millisecond {
				t.Fatalf("200 ms lease lapsed after %v", el)
			}
			in, err := p.OnlineInQueue(ctx, 7, 1)
			if err != nil || !slices.Equal(userIDs(in), []engine.ID{1}) {
				t.Fatalf("queue view after lapse = %v, %v", userIDs(in), err)
			}
			eventually(t, 5*time.Second, "last lease lapses", func() bool { return len(online(t, p, 7)) == 0 })
		})
	})
}

// Leases of hostile nodes must not collide: two 10 kB names that differ in the last
// byte are two leases.
func TestPresenceLongNodeNamesDistinct(t *testing.T) {
	eachBackend(t, func(t *testing.T, b *backend) {
		long := strings.Repeat("n", 10000)
		setOnline(t, b.presence, 8, 1, []engine.ID{1}, long+"a", time.Minute)
		setOnline(t, b.presence, 8, 1, []engine.ID{2}, long+"b", time.Minute)
		if err := b.presence.SetOffline(context.Background(), 8, 1, long+"a"); err != nil {
			t.Fatal(err)
		}
		got := online(t, b.presence, 8)
		if len(got) != 1 || !slices.Equal(got[0].QueueIDs, []engine.ID{2}) {
			t.Fatalf("after leaving one of two long-named nodes: %+v", got)
		}
	})
}
