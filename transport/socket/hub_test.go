package socket

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"atende/transport/wsconn"
)

// hubConn is a socket with no network: what the hub queues stays in its outbox.
func hubConn(p Principal, queue int) *conn {
	c := &conn{principal: p, tenant: p.CompanyID}
	c.ws.Init(nil, nil, &wsconn.Options{QueueSize: queue, Overflow: wsconn.Close{Code: CloseSlowConsumer, Reason: "slow consumer"}}, nil)
	return c
}

// queued returns the messages (websocket payloads) pending in c's outbox.
func queued(c *conn) []string {
	var out []string
	for _, f := range c.ws.Pending() {
		out = append(out, string(f[2:])) // test messages are < 126 bytes: 2-byte header
	}
	return out
}

func TestPublishValidates(t *testing.T) {
	h, err := NewHub(HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ok := Event{Tenant: 1, Rooms: []Room{CompanyRoom()}, Name: "ticket", Payload: json.RawMessage(`{"action":"update"}`)}
	tests := []struct {
		name   string
		mutate func(*Event)
	}{
		{name: "no tenant", mutate: func(e *Event) { e.Tenant = 0 }},
		{name: "no rooms", mutate: func(e *Event) { e.Rooms = nil }},
		{name: "invalid room", mutate: func(e *Event) { e.Rooms = []Room{TicketsRoom("archived")} }},
		{name: "chat box zero", mutate: func(e *Event) { e.Rooms = []Room{ChatBoxRoom(0)} }},
		{name: "unknown room kind", mutate: func(e *Event) { e.Rooms = []Room{{Kind: 99}} }},
		{name: "empty name", mutate: func(e *Event) { e.Name = "" }},
		{name: "reserved name", mutate: func(e *Event) { e.Name = "disconnect" }},
		{name: "resync is the hub's", mutate: func(e *Event) { e.Name = "resync" }},
		{name: "array payload", mutate: func(e *Event) { e.Payload = json.RawMessage(`[1]`) }},
		{name: "string payload", mutate: func(e *Event) { e.Payload = json.RawMessage(`"x"`) }},
		{name: "invalid payload", mutate: func(e *Event) { e.Payload = json.RawMessage(`{"a":`) }},
		{name: "no payload", mutate: func(e *Event) { e.Payload = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := ok
			tt.mutate(&ev)
			if _, err := h.Publish(ev); !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("Publish error %v, want ErrInvalidEvent", err)
			}
		})
	}
	if h.Stats().Published != 0 {
		t.Fatal("invalid events were counted as published")
	}
}

func TestPublishEncoding(t *testing.T) {
	b := mustMemoryBacklog(t, MemoryBacklogConfig{FirstSeq: func(int64) int64 { return 0 }})
	tests := []struct {
		name    string
		offset  bool
		payload string
		want    string
	}{
		{name: "seq added", payload: `{"action":"update","ticket":{"id":1}}`, want: `42["ticket",{"action":"update","ticket":{"id":1},"seq":1}]`},
		{name: "empty object", payload: ` { } `, want: `42["ticket",{"seq":2}]`},
		{name: "blanks kept inside", payload: "{\n\"a\": 1\n}\n", want: "42[\"ticket\",{\n\"a\": 1\n,\"seq\":3}]"},
		{name: "payload seq overridden", payload: `{"seq":"mine"}`, want: `42["ticket",{"seq":"mine","seq":4}]`},
		{name: "offset argument", offset: true, payload: `{"a":1}`, want: `42["ticket",{"a":1,"seq":5},"5"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHub(HubConfig{Backlog: b, AppendOffset: tt.offset})
			if err != nil {
				t.Fatal(err)
			}
			c := hubConn(Principal{UserID: 1, CompanyID: 1}, 8)
			if err := h.join(c, []Room{CompanyRoom()}, nil, nil, -1); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Publish(Event{Tenant: 1, Rooms: []Room{CompanyRoom()}, Name: "ticket", Payload: json.RawMessage(tt.payload)}); err != nil {
				t.Fatal(err)
			}
			got := queued(c)
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("queued %q, want %q", got, tt.want)
			}
			var v []any
			if err := json.Unmarshal([]byte(got[0][2:]), &v); err != nil {
				t.Fatalf("frame is not JSON: %v", err)
			}
		})
	}
}

func TestPublishOrderUnderConcurrency(t *testing.T) {
	h, err := NewHub(HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	const publishers, each = 4, 50
	c := hubConn(Principal{UserID: 1, CompanyID: 1}, publishers*each)
	if err := h.join(c, []Room{ChatBoxRoom(1)}, nil, nil, -1); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < publishers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if _, err := h.Publish(Event{Tenant: 1, Rooms: []Room{ChatBoxRoom(1)}, Name: "ticket", Payload: json.RawMessage(`{}`)}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	msgs := queued(c)
	if len(msgs) != publishers*each {
		t.Fatalf("%d frames queued, want %d", len(msgs), publishers*each)
	}
	prev := int64(0)
	for _, m := range msgs {
		s := seqOf(t, eventPayload(t, m, "ticket"))
		if prev != 0 && s != prev+1 {
			t.Fatalf("seq %d after %d: frames out of order or missing", s, prev)
		}
		prev = s
	}
}

func TestSlowConsumerInHub(t *testing.T) {
	h, err := NewHub(HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	slow := hubConn(Principal{UserID: 1, CompanyID: 1}, 4)
	ok := hubConn(Principal{UserID: 2, CompanyID: 1}, 64)
	for _, c := range []*conn{slow, ok} {
		if err := h.join(c, []Room{CompanyRoom()}, nil, nil, -1); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 6; i++ {
		if _, err := h.Publish(Event{Tenant: 1, Rooms: []Room{CompanyRoom()}, Name: "ticket", Payload: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if code, _ := slow.ws.CloseCode(); !slow.closing() || code != CloseSlowConsumer {
		t.Fatalf("slow socket closing=%v code=%d", slow.closing(), code)
	}
	if ok.closing() || len(queued(ok)) != 6 {
		t.Fatal("the socket that kept up was affected")
	}
	st := h.Stats()
	if st.SlowConsumers != 1 || st.Deliveries != 4+6 || st.Published != 6 {
		t.Fatalf("stats %+v", st)
	}
}

func TestRoomKeysAreTenantScoped(t *testing.T) {
	if ChatBoxRoom(42).Key(1) == ChatBoxRoom(42).Key(2) {
		t.Fatal("two tenants share a room key")
	}
	if got := TicketsRoom("open").Key(12); got != "t12/tickets:open" {
		t.Fatalf("key %q", got)
	}
	// Keys are unambiguous: no tenant/room pair can spell another's.
	seen := map[string]bool{}
	for _, tenant := range []int64{1, 11, 111} {
		for _, r := range []Room{ChatBoxRoom(1), ChatBoxRoom(11), UserRoom(1), CompanyRoom(), NotificationRoom(), TicketsRoom("open")} {
			k := r.Key(tenant)
			if seen[k] || strings.Count(k, "/") != 1 {
				t.Fatalf("key %q repeats or is ambiguous", k)
			}
			seen[k] = true
		}
	}
}

// TestOwnRoomsAreFlags: a socket's company and user rooms are flags, not entries
// of its room list (an idle socket keeps the list small), yet it is a member of
// both, receives their events once, leaves and detaches from them like any room.
func TestOwnRoomsAreFlags(t *testing.T) {
	h, err := NewHub(HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := hubConn(Principal{UserID: 7, CompanyID: 1, Profile: "user"}, 16)
	if err := h.join(c, []Room{CompanyRoom(), UserRoom(7), TicketsRoom("open"), UserRoom(8)}, nil, nil, -1); err != nil {
		t.Fatal(err)
	}
	if !c.inCompany || !c.inUser || len(c.rooms) != 2 || c.rooms[0] != TicketsRoom("open") || c.rooms[1] != UserRoom(8) {
		t.Fatalf("flags %v %v, listed %v", c.inCompany, c.inUser, c.rooms)
	}
	if got := c.allRooms(); len(got) != 4 {
		t.Fatalf("all rooms %v", got)
	}
	// Joining them again adds nothing.
	if err := h.join(c, []Room{CompanyRoom(), UserRoom(7)}, nil, nil, -1); err != nil || len(c.rooms) != 2 {
		t.Fatalf("rejoin: %v, listed %v", err, c.rooms)
	}
	for _, r := range []Room{CompanyRoom(), UserRoom(7), TicketsRoom("open"), UserRoom(8)} {
		if n := h.members(1, r); n != 1 {
			t.Fatalf("%v has %d members, want 1", r, n)
		}
	}
	if _, err := h.Publish(Event{Tenant: 1, Rooms: []Room{CompanyRoom(), UserRoom(7)}, Name: "ticket", Payload: json.RawMessage(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	if got := queued(c); len(got) != 1 {
		t.Fatalf("queued %q, want the event once", got)
	}
	h.leave(c, UserRoom(7))
	if c.inUser || h.members(1, UserRoom(7)) != 0 || !c.inCompany {
		t.Fatalf("after leaving the user room: inUser %v, members %d", c.inUser, h.members(1, UserRoom(7)))
	}
	h.detach(c)
	for _, r := range []Room{CompanyRoom(), TicketsRoom("open"), UserRoom(8)} {
		if n := h.members(1, r); n != 0 {
			t.Fatalf("%v keeps %d members after detach", r, n)
		}
	}
	if c.inCompany || c.rooms != nil {
		t.Fatal("a detached socket still names rooms")
	}
}
