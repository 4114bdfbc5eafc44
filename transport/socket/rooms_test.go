package socket

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobwas/ws"
)

func TestJoinAnswers(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) { c.MaxRooms = 4 })
	c := f.connect("alice")
	tests := []struct {
		name  string
		event string
		want  string // "ok" or an error code
	}{
		{name: "chat box by string id", event: `["joinChatBox","42"]`, want: "ok"},
		{name: "chat box by number id", event: `["joinChatBox",43]`, want: "ok"},
		{name: "chat box joined twice", event: `["joinChatBox","42"]`, want: "ok"},
		{name: "forbidden chat box", event: `["joinChatBox","666"]`, want: "ERR_NO_PERMISSION"},
		{name: "authorizer failure", event: `["joinChatBox","500"]`, want: "ERR_INTERNAL"},
		{name: "chat box without id", event: `["joinChatBox"]`, want: "ERR_VALIDATION"},
		{name: "chat box zero id", event: `["joinChatBox","0"]`, want: "ERR_VALIDATION"},
		{name: "chat box negative id", event: `["joinChatBox",-4]`, want: "ERR_VALIDATION"},
		{name: "chat box fractional id", event: `["joinChatBox",4.5]`, want: "ERR_VALIDATION"},
		{name: "chat box object id", event: `["joinChatBox",{"id":4}]`, want: "ERR_VALIDATION"},
		{name: "tickets open", event: `["joinTickets","open"]`, want: "ok"},
		{name: "tickets bogus status", event: `["joinTickets","bogus"]`, want: "ERR_VALIDATION"},
		{name: "tickets numeric status", event: `["joinTickets",1]`, want: "ERR_VALIDATION"},
		{name: "notification", event: `["joinNotification"]`, want: "ok"},
		{name: "beyond MaxRooms", event: `["joinTickets","closed"]`, want: "ERR_VALIDATION"},
		{name: "leave chat box", event: `["leaveChatBox","43"]`, want: "ok"},
		{name: "room freed by the leave", event: `["joinTickets","closed"]`, want: "ok"},
		{name: "leave tickets", event: `["leaveTickets","open"]`, want: "ok"},
		{name: "leave notification", event: `["leaveNotification"]`, want: "ok"},
		{name: "unknown event", event: `["typing","42"]`, want: "ERR_VALIDATION"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := uint64(i + 1)
			c.send(fmt.Sprintf("42%d%s", id, tt.event))
			ack := ackPayload(t, c.expectPrefix("43"), id)
			if tt.want == "ok" {
				if ack["ok"] != true || ack["error"] != nil {
					t.Fatalf("ack %v, want ok", ack)
				}
				return
			}
			if ack["error"] != tt.want {
				t.Fatalf("ack %v, want error %s", ack, tt.want)
			}
		})
	}
	// Joins without an ack id are performed silently.
	c.send(`42["joinChatBox","77"]`)
	eventually(t, "silent join", func() bool { return f.hub.members(1, ChatBoxRoom(77)) == 1 })
	if got := f.hub.members(1, ChatBoxRoom(666)); got != 0 {
		t.Fatalf("forbidden room has %d members", got)
	}
}

func TestPublishReachesRoomMembers(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	alice, bob := f.connect("alice"), f.connect("bob")
	alice.send(`421["joinChatBox","42"]`)
	joinSeq := seqOf(t, ackPayload(t, alice.expectPrefix("43"), 1))

	seq := f.publish(1, "appMessage", `{"action":"create","message":{"id":7,"body":"oi"}}`, ChatBoxRoom(42))
	if seq != joinSeq+1 {
		t.Fatalf("published seq %d, join ack said %d", seq, joinSeq)
	}
	m := eventPayload(t, alice.expectPrefix("42"), "appMessage")
	if m["action"] != "create" || seqOf(t, m) != seq {
		t.Fatalf("payload %v", m)
	}
	// bob is not in chat box 42; a company-wide event reaches both.
	f.publish(1, "whatsappSession", `{"action":"update","session":{"id":1,"status":"CONNECTED"}}`, CompanyRoom())
	bob.nextIs(t, "whatsappSession")
	alice.nextIs(t, "whatsappSession")
	// A user room reaches only that user.
	f.publish(1, "invitation", `{"action":"create"}`, UserRoom(2))
	f.publish(1, "contact", ` { } `, CompanyRoom())
	bob.nextIs(t, "invitation")
	alice.nextIs(t, "contact")
	if m := eventPayload(t, bob.expectPrefix("42"), "contact"); len(m) != 1 {
		t.Fatalf("empty payload became %v, want only seq", m)
	}
}

func TestOneDeliveryAcrossRooms(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	c := f.connect("alice")
	c.send(`421["joinChatBox","42"]`)
	c.expectPrefix("43")
	c.send(`422["joinTickets","open"]`)
	c.expectPrefix("43")
	f.publish(1, "appMessage", `{"n":1}`, ChatBoxRoom(42), TicketsRoom("open"), CompanyRoom(), ChatBoxRoom(42))
	f.publish(1, "appMessage", `{"n":2}`, ChatBoxRoom(42))
	if m := eventPayload(t, c.expectPrefix("42"), "appMessage"); m["n"] != 1.0 {
		t.Fatalf("first %v", m)
	}
	if m := eventPayload(t, c.expectPrefix("42"), "appMessage"); m["n"] != 2.0 {
		t.Fatalf("second %v: the first event was delivered twice", m)
	}
}

func TestTenantIsolation(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	alice, carol := f.connect("alice"), f.connect("carol") // tenants 1 and 2
	for _, c := range []*client{alice, carol} {
		c.send(`421["joinChatBox","42"]`)
		c.expectPrefix("43")
		c.send(`422["joinNotification"]`)
		c.expectPrefix("43")
	}
	f.publish(1, "ticket", `{"tenant":1,"n":1}`, ChatBoxRoom(42), NotificationRoom(), CompanyRoom())
	f.publish(2, "ticket", `{"tenant":2,"n":1}`, ChatBoxRoom(42))
	f.publish(2, "ticket", `{"tenant":2,"n":2}`, CompanyRoom(), UserRoom(1)) // user 1 of tenant 2 is not alice
	f.publish(1, "ticket", `{"tenant":1,"n":2}`, UserRoom(1))
	for _, want := range []float64{1, 2} {
		if m := eventPayload(t, alice.expectPrefix("42"), "ticket"); m["tenant"] != 1.0 || m["n"] != want {
			t.Fatalf("alice (tenant 1) got %v", m)
		}
		if m := eventPayload(t, carol.expectPrefix("42"), "ticket"); m["tenant"] != 2.0 || m["n"] != want {
			t.Fatalf("carol (tenant 2) got %v", m)
		}
	}
	// Sequence numbers are per tenant and do not leak across.
	s1 := f.publish(1, "ticket", `{}`, CompanyRoom())
	s1b := f.publish(1, "ticket", `{}`, CompanyRoom())
	if s1b != s1+1 {
		t.Fatalf("tenant 1 seq %d then %d", s1, s1b)
	}
}

func TestFilterHidesEvents(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	alice, bob := f.connect("alice"), f.connect("bob") // queues [1] and [2]
	for _, c := range []*client{alice, bob} {
		c.send(`421["joinTickets","pending"]`)
		c.expectPrefix("43")
	}
	inQueue1 := FilterFunc(func(p Principal) bool { return p.InQueue(1) })
	if _, err := f.hub.Publish(Event{Tenant: 1, Rooms: []Room{TicketsRoom("pending")}, Name: "ticket", Payload: []byte(`{"queue":1}`), Filter: inQueue1}); err != nil {
		t.Fatal(err)
	}
	f.publish(1, "ticket", `{"queue":0}`, TicketsRoom("pending"))
	alice.nextIs(t, `"queue":1`)
	alice.nextIs(t, `"queue":0`)
	bob.nextIs(t, `"queue":0`) // the queue-1 event never reached bob
}

func TestReplayAfterReconnect(t *testing.T) {
	// away connects alice, joins chat box 42, sees one event, disconnects, and misses
	// some. It returns the last seq she saw.
	away := func(t *testing.T, f *fixture) int64 {
		c := f.connect("alice")
		c.send(`421["joinChatBox","42"]`)
		c.expectPrefix("43")
		f.publish(1, "appMessage", `{"n":1}`, ChatBoxRoom(42))
		last := seqOf(t, eventPayload(t, c.expectPrefix("42"), "appMessage"))
		c.send("41")
		c.expectClose(CloseNormal)
		// Missed: two in chat box 42, one in 43, one company-wide, one in 42+company,
		// and one of another tenant.
		f.publish(1, "appMessage", `{"n":2}`, ChatBoxRoom(42))
		f.publish(1, "appMessage", `{"n":3}`, ChatBoxRoom(43))
		f.publish(1, "whatsapp", `{"n":4}`, CompanyRoom())
		f.publish(1, "appMessage", `{"n":5}`, ChatBoxRoom(42))
		f.publish(1, "ticket", `{"n":6}`, ChatBoxRoom(42), CompanyRoom())
		f.publish(2, "appMessage", `{"n":99}`, ChatBoxRoom(42))
		return last
	}
	tests := []struct {
		name    string
		connect func(f *fixture, last int64) *client
	}{
		{name: "auth lastSeq number", connect: func(f *fixture, last int64) *client {
			r, _ := f.open("")
			r.send(fmt.Sprintf(`40{"token":"alice","lastSeq":%d}`, last))
			return r
		}},
		{name: "auth lastSeq string", connect: func(f *fixture, last int64) *client {
			r, _ := f.open("")
			r.send(fmt.Sprintf(`40{"token":"alice","lastSeq":"%d"}`, last))
			return r
		}},
		{name: "query lastSeq", connect: func(f *fixture, last int64) *client {
			r, _ := f.open(fmt.Sprintf("token=alice&lastSeq=%d", last))
			r.send(`40`)
			return r
		}},
		{name: "recovery offset", connect: func(f *fixture, last int64) *client {
			r, _ := f.open("")
			r.send(fmt.Sprintf(`40{"token":"alice","pid":"old","offset":"%d"}`, last))
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, HubConfig{}, nil)
			last := away(t, f)
			r := tt.connect(f, last)
			r.expectPrefix(`40{"sid"`)
			// On CONNECT: the company room's missed events.
			r.nextIs(t, `"n":4`)
			r.nextIs(t, `"n":6`)
			// On join: chat box 42's, except n=6 already sent through the company room,
			// then the ack with the tenant's last seq.
			r.send(`427["joinChatBox","42"]`)
			r.nextIs(t, `"n":2`)
			r.nextIs(t, `"n":5`)
			ack := ackPayload(t, r.expectPrefix("43"), 7)
			if ack["ok"] != true || seqOf(t, ack) != last+5 {
				t.Fatalf("ack %v, want ok with seq %d (tenant 2's event must not count)", ack, last+5)
			}
			// Then live, nothing in between.
			f.publish(1, "appMessage", `{"live":true}`, ChatBoxRoom(42))
			r.nextIs(t, `"live":true`)
			// A fresh socket (no lastSeq, or 0) gets neither replay nor resync.
			for _, connect := range []string{`40{"token":"alice"}`, `40{"token":"alice","lastSeq":0}`} {
				fresh, _ := f.open("")
				fresh.send(connect)
				fresh.expectPrefix(`40{"sid"`)
				fresh.send(`421["joinChatBox","42"]`)
				if ack := ackPayload(t, fresh.expectPrefix("43"), 1); seqOf(t, ack) != last+6 {
					t.Fatalf("%s: ack %v", connect, ack)
				}
			}
		})
	}
}

// A client that declares at CONNECT the rooms it is about to rejoin is replayed what
// it missed in all of them as one stream in sequence order, so the client rule (drop
// an event whose seq is not above the last seen) loses nothing; joined one by one, chat
// box 42's n=2 and n=5 would arrive after the company room's n=6 and be dropped.
// Declared rooms that are malformed, unknown, leaves or refused are skipped.
func TestReplayOfDeclaredRoomsIsOneOrderedStream(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	c := f.connect("alice")
	c.send(`421["joinChatBox","42"]`)
	c.expectPrefix("43")
	f.publish(1, "appMessage", `{"n":1}`, ChatBoxRoom(42))
	last := seqOf(t, eventPayload(t, c.expectPrefix("42"), "appMessage"))
	c.send("41")
	c.expectClose(CloseNormal)
	f.publish(1, "appMessage", `{"n":2}`, ChatBoxRoom(42))
	f.publish(1, "appMessage", `{"n":3}`, ChatBoxRoom(43))
	f.publish(1, "whatsapp", `{"n":4}`, CompanyRoom())
	f.publish(1, "appMessage", `{"n":5}`, ChatBoxRoom(42))
	f.publish(1, "ticket", `{"n":6}`, ChatBoxRoom(42), CompanyRoom())
	f.publish(1, "ticket", `{"n":7}`, TicketsRoom("open"))
	f.publish(1, "appMessage", `{"n":8}`, ChatBoxRoom(666))
	f.publish(1, "appMessage", `{"n":9}`, ChatBoxRoom(500))

	r, _ := f.open("")
	r.send(fmt.Sprintf(`40{"token":"alice","lastSeq":%d,"rooms":[["joinChatBox","42"],["joinTickets","open"],`+
		`["joinChatBox","666"],["joinChatBox","500"],["leaveChatBox","43"],["joinTickets","nope"],["joinBogus"],"x",[]]}`, last))
	r.expectPrefix(`40{"sid"`)
	var prev int64
	for _, want := range [][2]string{{"appMessage", `"n":2`}, {"whatsapp", `"n":4`}, {"appMessage", `"n":5`},
		{"ticket", `"n":6`}, {"ticket", `"n":7`}} {
		got := r.expectPrefix("42")
		if !strings.Contains(got, want[1]) {
			t.Fatalf("next event %q, want one containing %q", got, want[1])
		}
		seq := seqOf(t, eventPayload(t, got, want[0]))
		if seq <= prev {
			t.Fatalf("seq %d after %d: the replay is not in sequence order", seq, prev)
		}
		prev = seq
	}
	// The client's own join of a declared room adds nothing: the ack comes next, with
	// the tenant's last seq. The refused rooms (666, 500) were never joined.
	r.send(`427["joinChatBox","42"]`)
	if ack := ackPayload(t, r.expectPrefix("43"), 7); ack["ok"] != true || seqOf(t, ack) != last+8 {
		t.Fatalf("ack %v, want ok with seq %d", ack, last+8)
	}
	f.publish(1, "appMessage", `{"n":10}`, ChatBoxRoom(666))
	f.publish(1, "appMessage", `{"live":true}`, ChatBoxRoom(42))
	r.nextIs(t, `"live":true`)

	// Rooms past MaxRooms make the whole list ignored, as a too-long join list would.
	g := newFixture(t, HubConfig{}, func(c *Config) { c.MaxRooms = 1 })
	q, _ := g.open("")
	q.send(`40{"token":"alice","rooms":[["joinChatBox","1"],["joinChatBox","2"]]}`)
	q.expectPrefix(`40{"sid"`)
	g.publish(1, "appMessage", `{"n":1}`, ChatBoxRoom(1))
	g.publish(1, "whatsapp", `{"marker":true}`, CompanyRoom())
	q.nextIs(t, `"marker":true`)
}

func TestReplayFallsBackToResync(t *testing.T) {
	tests := []struct {
		name    string
		hub     HubConfig
		missed  int
		lastSeq func(last int64) string
		reason  string
		onJoin  bool // resync comes on the join (the missed events are in the chat box)
	}{
		{name: "backlog no longer covers", hub: HubConfig{Backlog: mustMemoryBacklog(t, MemoryBacklogConfig{MaxEvents: 3})},
			missed: 5, reason: ResyncGap, onJoin: true},
		{name: "more than MaxReplay", hub: HubConfig{MaxReplay: 2}, missed: 3, reason: ResyncOverflow, onJoin: true},
		{name: "last seq from the future", missed: 0, lastSeq: func(last int64) string { return fmt.Sprint(last + 10) }, reason: ResyncGap},
		{name: "last seq not a number", missed: 0, lastSeq: func(int64) string { return `"soon"` }, reason: ResyncInvalidLastSeq},
		{name: "negative last seq", missed: 0, lastSeq: func(int64) string { return `-1` }, reason: ResyncInvalidLastSeq},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.hub, nil)
			last := f.publish(1, "ticket", `{}`, ChatBoxRoom(1))
			for i := 0; i < tt.missed; i++ {
				f.publish(1, "appMessage", fmt.Sprintf(`{"n":%d}`, i), ChatBoxRoom(42))
			}
			ls := fmt.Sprint(last)
			if tt.lastSeq != nil {
				ls = tt.lastSeq(last)
			}
			r, _ := f.open("")
			r.send(`40{"token":"alice","lastSeq":` + ls + `}`)
			r.expectPrefix(`40{"sid"`)
			if tt.onJoin {
				r.send(`421["joinChatBox","42"]`)
			}
			m := eventPayload(t, r.expectPrefix("42"), "resync")
			if m["reason"] != tt.reason || seqOf(t, m) != last+int64(tt.missed) {
				t.Fatalf("resync %v, want reason %s seq %d", m, tt.reason, last+int64(tt.missed))
			}
			if !tt.onJoin {
				r.send(`421["joinChatBox","42"]`)
			}
			// No replay after a resync: the ack comes next.
			if ack := ackPayload(t, r.expectPrefix("43"), 1); ack["ok"] != true {
				t.Fatalf("ack %v", ack)
			}
			if got := f.hub.Stats().Resyncs; got != 1 {
				t.Fatalf("%d resyncs counted", got)
			}
		})
	}
}

func TestSlowConsumerDisconnected(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) {
		c.QueueSize = 8
		c.WriteTimeout = 5 * time.Second
	})
	// A client with a tiny receive window that never reads.
	d := ws.Dialer{NetDial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		nd := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
			})
			if err != nil {
				return err
			}
			return serr
		}}
		return nd.DialContext(ctx, network, addr)
	}}
	slow := dialWith(t, d, f.url("token=alice"))
	slow.expectPrefix("0{")
	slow.send("40")
	slow.expectPrefix(`40{"sid"`)
	slow.send(`421["joinChatBox","1"]`)
	slow.expectPrefix("43")
	fast := f.connect("bob")
	fast.send(`421["joinChatBox","1"]`)
	fast.expectPrefix("43")

	big := `{"blob":"` + strings.Repeat("x", 64<<10) + `"}`
	for i := 0; i < 2000 && f.hub.Stats().SlowConsumers == 0; i++ {
		f.publish(1, "appMessage", big, ChatBoxRoom(1))
		if i%4 == 3 { // the fast client keeps up
			for j := 0; j < 4; j++ {
				fast.expectPrefix("42")
			}
		}
	}
	if got := f.hub.Stats().SlowConsumers; got != 1 {
		t.Fatalf("%d slow consumers disconnected, want 1", got)
	}
	eventually(t, "slow socket detached", func() bool { return f.hub.members(1, ChatBoxRoom(1)) == 1 })
	eventually(t, "slow socket released", func() bool { return f.srv.Stats().Connections == 1 })
	// The slow client's connection ends: reading it drains to EOF or a close frame.
	for {
		h, _, err := slow.frame()
		if err != nil || h.OpCode == ws.OpClose {
			break
		}
	}
	// The fast one is still served.
	f.publish(1, "appMessage", `{"after":true}`, ChatBoxRoom(1))
	for {
		if m := fast.expectPrefix("42"); strings.Contains(m, `"after":true`) {
			break
		}
	}
}

func TestHubDisconnectUser(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	a1, a2, b := f.connect("alice"), f.connect("alice"), f.connect("bob")
	if n := f.hub.Disconnect(1, 1); n != 2 {
		t.Fatalf("Disconnect ended %d sockets, want 2", n)
	}
	for _, c := range []*client{a1, a2} {
		if texts := c.expectClose(CloseNormal); len(texts) != 1 || texts[0] != "41" {
			t.Fatalf("before close: %q, want the DISCONNECT packet 41", texts)
		}
	}
	f.publish(1, "contact", `{}`, CompanyRoom())
	b.nextIs(t, "contact")
}

// EndSession closes the sockets of one login of a user (with the DISCONNECT packet),
// leaving the user's other sessions and other users alone.
func TestHubEndSession(t *testing.T) {
	sessions := map[string]Principal{
		"alice-s1": {UserID: 1, CompanyID: 1, Profile: "user", Session: "s1"},
		"alice-s2": {UserID: 1, CompanyID: 1, Profile: "user", Session: "s2"},
		"bob-s1":   {UserID: 2, CompanyID: 1, Profile: "user", Session: "s1"},
	}
	f := newFixture(t, HubConfig{}, func(c *Config) {
		c.Authenticator = AuthenticatorFunc(func(ctx context.Context, tok string) (Principal, error) {
			if p, ok := sessions[tok]; ok {
				return p, nil
			}
			return testAuthenticator(ctx, tok)
		})
	})
	a1, a1b, a2, b := f.connect("alice-s1"), f.connect("alice-s1"), f.connect("alice-s2"), f.connect("bob-s1")
	if n := f.hub.EndSession(1, ""); n != 0 {
		t.Fatalf("empty session ended %d sockets", n)
	}
	if n := f.hub.EndSession(1, "s1"); n != 2 {
		t.Fatalf("EndSession ended %d sockets, want 2", n)
	}
	for _, c := range []*client{a1, a1b} {
		if texts := c.expectClose(CloseNormal); len(texts) != 1 || texts[0] != "41" {
			t.Fatalf("before close: %q, want the DISCONNECT packet 41", texts)
		}
	}
	eventually(t, "session s1 detached", func() bool { return f.hub.members(1, UserRoom(1)) == 1 })
	f.publish(1, "contact", `{}`, CompanyRoom())
	a2.nextIs(t, "contact")
	b.nextIs(t, "contact")
}

// Reauthenticate closes the user's sockets so that they reconnect (no DISCONNECT
// packet), leaving the others alone.
func TestHubReauthenticate(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	a1, a2, b := f.connect("alice"), f.connect("alice"), f.connect("bob")
	if n := f.hub.Reauthenticate(1); n != 2 {
		t.Fatalf("Reauthenticate ended %d sockets, want 2", n)
	}
	for _, c := range []*client{a1, a2} {
		if texts := c.expectClose(CloseReauthenticate); len(texts) != 0 {
			t.Fatalf("before close: %q, want nothing (no DISCONNECT packet)", texts)
		}
	}
	eventually(t, "alice's sockets detached", func() bool { return f.hub.members(1, UserRoom(1)) == 0 })
	if n := f.hub.Reauthenticate(1); n != 0 {
		t.Fatalf("second Reauthenticate ended %d sockets", n)
	}
	if n := f.hub.Reauthenticate(99); n != 0 {
		t.Fatalf("unknown user: %d sockets", n)
	}
	f.publish(1, "contact", `{}`, CompanyRoom())
	b.nextIs(t, "contact")
}

// Online lists each connected user once, and forgets those whose sockets closed.
func TestHubOnline(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	if got := f.hub.Online(); len(got) != 0 {
		t.Fatalf("online before any socket: %+v", got)
	}
	a1, _, _ := f.connect("alice"), f.connect("alice"), f.connect("bob")
	users := func() []int64 {
		var ids []int64
		for _, p := range f.hub.Online() {
			ids = append(ids, p.UserID)
		}
		slices.Sort(ids)
		return ids
	}
	if got := users(); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("online %v, want [1 2]", got)
	}
	for _, p := range f.hub.Online() {
		if p.UserID == 1 && (p.CompanyID != 1 || !slices.Equal(p.QueueIDs, []int64{1})) {
			t.Fatalf("alice's principal %+v", p)
		}
	}
	_ = a1
	f.hub.Reauthenticate(1)
	eventually(t, "alice offline", func() bool { return slices.Equal(users(), []int64{2}) })
}

func mustMemoryBacklog(t *testing.T, cfg MemoryBacklogConfig) *MemoryBacklog {
	t.Helper()
	b, err := NewMemoryBacklog(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A socket whose token expires is closed with CloseReauthenticate at a ping after
// the expiry; one without an expiry stays.
func TestTokenExpiryClosesSocket(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) {
		c.PingInterval = 80 * time.Millisecond
		c.Authenticator = AuthenticatorFunc(func(ctx context.Context, tok string) (Principal, error) {
			if tok == "short" {
				return Principal{UserID: 5, CompanyID: 1, Profile: "user", ExpiresAt: time.Now().Add(300 * time.Millisecond)}, nil
			}
			return testAuthenticator(ctx, tok)
		})
	})
	short, long := f.connect("short"), f.connect("alice")
	start := time.Now()
	for _, txt := range short.expectClose(CloseReauthenticate) {
		if txt != "2" { // pings only: no DISCONNECT packet
			t.Fatalf("before the close: %q", txt)
		}
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 2*time.Second {
		t.Fatalf("closed after %v, want just after the 300 ms expiry", d)
	}
	f.publish(1, "contact", `{}`, CompanyRoom())
	for {
		if m := long.expectPrefix("42"); strings.Contains(m, "contact") {
			break
		}
	}
}
