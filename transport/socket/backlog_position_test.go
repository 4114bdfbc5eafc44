package socket

import (
	"errors"
	"testing"
	"time"
)

func rec(seq int64) func(int64) (*Record, error) {
	return func(s int64) (*Record, error) { return &Record{Name: "x", Frame: []byte{byte(s)}}, nil }
}

func seqs(t *testing.T, b *PositionBacklog, tenant, after int64) ([]int64, error) {
	t.Helper()
	var out []int64
	err := b.Replay(tenant, after, func(r *Record) bool { out = append(out, r.Seq); return true })
	return out, err
}

func TestPositionBacklog(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	b := NewPositionBacklog(100, 3, time.Minute, clock)
	// Positions of two tenants interleave; each tenant's window skips the other's.
	for _, ev := range []struct{ tenant, seq int64 }{{1, 101}, {2, 102}, {1, 103}, {1, 105}, {2, 106}} {
		if _, err := b.AppendNumbered(ev.tenant, ev.seq, rec(ev.seq)); err != nil {
			t.Fatal(err)
		}
	}
	if last, _ := b.Last(1); last != 106 {
		t.Fatalf("last = %d, want the publisher's position 106", last)
	}
	got, err := seqs(t, b, 1, 101)
	if err != nil || len(got) != 2 || got[0] != 103 || got[1] != 105 {
		t.Fatalf("tenant 1 after 101 = %v, %v", got, err)
	}
	// A number another tenant's event holds is covered: nothing of tenant 1 is between.
	if got, err := seqs(t, b, 1, 102); err != nil || len(got) != 2 {
		t.Fatalf("tenant 1 after 102 = %v, %v", got, err)
	}
	// Before the node's start: a gap.
	if _, err := seqs(t, b, 1, 99); !errors.Is(err, ErrBacklogGap) {
		t.Fatalf("before start: %v", err)
	}
	// A client ahead of this node gets nothing replayed, and no error.
	if got, err := seqs(t, b, 1, 500); err != nil || len(got) != 0 {
		t.Fatalf("ahead: %v, %v", got, err)
	}
	// Numbers must grow.
	if _, err := b.AppendNumbered(1, 104, rec(104)); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("going back: %v", err)
	}
	if _, err := b.Append(1, rec(0)); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("unnumbered append: %v", err)
	}
	// Dropping the oldest of a full window makes numbers before it a gap.
	if _, err := b.AppendNumbered(1, 110, rec(110)); err != nil {
		t.Fatal(err)
	}
	if _, err := seqs(t, b, 1, 100); !errors.Is(err, ErrBacklogGap) {
		t.Fatalf("after drop: %v", err)
	}
	if got, err := seqs(t, b, 1, 103); err != nil || len(got) != 2 {
		t.Fatalf("after 103 = %v, %v", got, err)
	}
	// Old records expire by age.
	now = now.Add(2 * time.Minute)
	if _, err := seqs(t, b, 1, 105); !errors.Is(err, ErrBacklogGap) {
		t.Fatalf("after expiry: %v", err)
	}
	b.Advance(200)
	if last, _ := b.Last(7); last != 200 {
		t.Fatalf("advance: last %d", last)
	}
}

// Numbered events flow through the hub with their own numbers, and exempt rooms see
// what the filter hides elsewhere.
func TestHubNumberedAndExempt(t *testing.T) {
	b := NewPositionBacklog(10, 0, 0, nil)
	h, err := NewHub(HubConfig{Backlog: b})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := h.Publish(Event{Tenant: 1, Rooms: []Room{ChatBoxRoom(5)}, Name: "appMessage", Payload: []byte(`{"action":"create"}`), Seq: 42})
	if err != nil || seq != 42 {
		t.Fatalf("publish numbered: %d, %v", seq, err)
	}
	if _, err := h.Publish(Event{Tenant: 1, Rooms: []Room{ChatBoxRoom(5)}, Name: "appMessage", Payload: []byte(`{}`)}); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("unnumbered into a position backlog: %v", err)
	}
	mem, _ := NewMemoryBacklog(MemoryBacklogConfig{})
	h2, _ := NewHub(HubConfig{Backlog: mem})
	if _, err := h2.Publish(Event{Tenant: 1, Rooms: []Room{ChatBoxRoom(5)}, Name: "x", Payload: []byte(`{}`), Seq: 3}); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("numbered into a memory backlog: %v", err)
	}
}

func TestHubExemptRoomsSkipTheFilter(t *testing.T) {
	h, err := NewHub(HubConfig{Backlog: NewPositionBacklog(0, 0, 0, nil)})
	if err != nil {
		t.Fatal(err)
	}
	reader := hubConn(Principal{UserID: 1, CompanyID: 1, Profile: "user"}, 8) // watches the chat box
	lister := hubConn(Principal{UserID: 2, CompanyID: 1, Profile: "user"}, 8) // only the ticket list
	both := hubConn(Principal{UserID: 3, CompanyID: 1, Profile: "user"}, 8)   // both rooms: one copy
	for c, rooms := range map[*conn][]Room{reader: {ChatBoxRoom(5)}, lister: {TicketsRoom("open")}, both: {TicketsRoom("open"), ChatBoxRoom(5)}} {
		if err := h.join(c, rooms, nil, nil, -1); err != nil {
			t.Fatal(err)
		}
	}
	hidden := FilterFunc(func(Principal) bool { return false })
	if _, err := h.Publish(Event{Tenant: 1, Rooms: []Room{TicketsRoom("open"), ChatBoxRoom(5)}, Exempt: []Room{ChatBoxRoom(5)},
		Name: "appMessage", Payload: []byte(`{"a":1}`), Filter: hidden, Seq: 7}); err != nil {
		t.Fatal(err)
	}
	if n := len(queued(reader)); n != 1 {
		t.Fatalf("chat box member got %d frames, want 1", n)
	}
	if n := len(queued(lister)); n != 0 {
		t.Fatalf("filtered list member got %d frames, want 0", n)
	}
	if n := len(queued(both)); n != 1 {
		t.Fatalf("member of both rooms got %d frames, want exactly 1", n)
	}
}
