package call

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/redisstate"
	"atende/transport/socket"
)

const offerSDP = `"sdp":"v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"`

func issue(t *testing.T, tokens *Tokens, tenant, user int64) Invite {
	t.Helper()
	inv, err := tokens.Issue(tenant, 7, user, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestRelayPassesSignalsBetweenTheTwoPartiesOnly(t *testing.T) {
	tokens, _ := NewTokens(testSecret, nil)
	n := newNode(t, tokens, nil)
	inv := issue(t, tokens, 1, 1)
	other := issue(t, tokens, 1, 1) // another call of the same attendant

	att := n.connect("alice")
	ack := att.mustOK(EventJoin, tokenArg(inv.Attendant))
	if ack["callId"] != inv.Call || ack["role"] != "attendant" || !strings.Contains(fmt.Sprint(ack["iceServers"]), "stun:stun.example.org") {
		t.Fatalf("attendant join ack %v", ack)
	}
	cust := n.connect(inv.Customer)
	if a := cust.mustOK(EventJoin); a["role"] != "customer" || a["callId"] != inv.Call {
		t.Fatalf("customer join ack %v", a)
	}
	// Each learns of the other.
	if e := att.call(); e["type"] != TypeJoined || e["from"] != "customer" {
		t.Fatalf("attendant got %v", e)
	}
	if e := cust.call(); e["type"] != TypeJoined || e["from"] != "attendant" {
		t.Fatalf("customer got %v", e)
	}
	// A stranger in another call of the same tenant.
	stranger := n.connect(other.Customer)
	stranger.mustOK(EventJoin)

	att.mustOK(EventSignal, signal(inv.Call, TypeOffer, offerSDP))
	if e := cust.call(); e["type"] != TypeOffer || e["from"] != "attendant" || !strings.HasPrefix(e["sdp"].(string), "v=0\r\n") {
		t.Fatalf("customer got %v", e)
	}
	cust.mustOK(EventSignal, signal(inv.Call, TypeAnswer, offerSDP))
	if e := att.call(); e["type"] != TypeAnswer || e["from"] != "customer" {
		t.Fatalf("attendant got %v", e)
	}
	cust.mustOK(EventSignal, signal(inv.Call, TypeCandidate, `"candidate":{"candidate":"candidate:1 1 udp 2122260223 192.168.1.5 50000 typ host","sdpMid":"0","sdpMLineIndex":0}`))
	if e := att.call(); e["type"] != TypeCandidate || fmt.Sprint(e["candidate"]) == "" {
		t.Fatalf("attendant got %v", e)
	}
	for _, typ := range []string{TypeHold, TypeUnhold} {
		att.mustOK(EventSignal, signal(inv.Call, typ, ""))
		if e := cust.call(); e["type"] != typ {
			t.Fatalf("customer got %v, want %s", e, typ)
		}
	}

	// The stranger may not signal into the call, nor hear it: its own call's
	// traffic reaches it, and nothing of inv's came before.
	stranger.refused(engine.ErrNotFound, EventSignal, signal(inv.Call, TypeOffer, offerSDP))
	peer := n.connect("alice")
	peer.mustOK(EventJoin, tokenArg(other.Attendant))
	peer.mustOK(EventSignal, signal(other.Call, TypeHold, ""))
	if e := stranger.call(); e["type"] != TypeJoined {
		t.Fatalf("stranger got %v first", e)
	}
	if e := stranger.call(); e["type"] != TypeHold || e["callId"] != other.Call {
		t.Fatalf("stranger got %v", e)
	}
	stranger.noCall("a stranger heard another call")
	att.noCall("the attendant heard another call")
	cust.noCall("the customer heard another call")

	// A party that hangs up is not reported gone when its socket closes.
	att.mustOK(EventSignal, signal(inv.Call, TypeEnd, ""))
	if e := cust.call(); e["type"] != TypeEnd {
		t.Fatalf("customer got %v", e)
	}
	att.refused(engine.ErrNotFound, EventSignal, signal(inv.Call, TypeHold, ""))
}

func TestRelayJoinIsTheTenantsAndTheAttendantsOnly(t *testing.T) {
	var skew atomic.Int64 // the clock runs in socket goroutines
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	tokens, _ := NewTokens(testSecret, clock)
	n := newNode(t, tokens, nil)
	inv := issue(t, tokens, 1, 1)

	// Another tenant's member of staff: the call does not exist for them.
	n.connect("carol").refused(engine.ErrNotFound, EventJoin, tokenArg(inv.Attendant))
	// Another attendant of the tenant: not theirs.
	n.connect("bob").refused(engine.ErrNoPermission, EventJoin, tokenArg(inv.Attendant))
	// The customer's token is not the attendant's.
	alice := n.connect("alice")
	alice.refused(engine.ErrNoPermission, EventJoin, tokenArg(inv.Customer))
	// Forged, tampered and foreign tokens.
	foreign, _ := NewTokens([]byte("another secret of sixteen bytes+"), clock)
	finv := issue(t, foreign, 1, 1)
	tampered := inv.Attendant[:len(inv.Attendant)-2] + "AA"
	for _, tok := range []string{finv.Attendant, tampered, "call1.e30.AAAA", "alice", ""} {
		alice.refused(engine.ErrInvalidToken, EventJoin, tokenArg(tok))
	}
	for _, arg := range []string{`{}`, `{"token":1}`, `{"token":"x","more":1}`, `"x"`, `[]`} {
		alice.refused(engine.ErrValidation, EventJoin, arg)
	}
	alice.refused(engine.ErrValidation, EventJoin)

	// A guest cannot join rooms, so hears nothing of its tenant.
	guest := n.connect(inv.Customer)
	guest.refused(engine.ErrNoPermission, "joinChatBox", "7")
	guest.refused(engine.ErrNoPermission, "joinTickets", `"open"`)
	guest.refused(engine.ErrNoPermission, "joinNotification")
	guest.refused(engine.ErrValidation, EventJoin, `{"token":"x"}`)
	staffSocket := n.connect("bob")
	if _, err := n.hub.Publish(socket.Event{Tenant: 1, Rooms: []socket.Room{socket.CompanyRoom()}, Name: "contact", Payload: json.RawMessage(`{"action":"update"}`)}); err != nil {
		t.Fatal(err)
	}
	staffSocket.wait(`42["contact"`)
	guest.mustOK(EventJoin) // a round trip after the publish
	for _, f := range guest.pending {
		if strings.Contains(f, `"contact"`) {
			t.Fatalf("a call guest got a tenant event: %s", f)
		}
	}

	// Expired: the attendant's join and a guest's connect are refused.
	skew.Store(int64(2 * time.Hour))
	alice.refused(engine.ErrSessionExpired, EventJoin, tokenArg(inv.Attendant))
	if _, err := GuestPrincipal(tokens, inv.Customer); engine.CodeOf(err) != engine.ErrSessionExpired {
		t.Fatalf("expired guest: %v", err)
	}
	n.connect("carol").refused(engine.ErrNotFound, EventJoin, tokenArg(inv.Attendant))
}

func TestRelayTellsThePeerWhenTheOtherPartyVanishes(t *testing.T) {
	tokens, _ := NewTokens(testSecret, nil)
	n := newNode(t, tokens, nil)
	inv := issue(t, tokens, 1, 1)
	att := n.connect("alice")
	att.mustOK(EventJoin, tokenArg(inv.Attendant))
	cust := n.connect(inv.Customer)
	cust.mustOK(EventJoin)
	att.call() // joined

	// A second tab of the customer takes the place of the first.
	tab := n.connect(inv.Customer)
	tab.mustOK(EventJoin)
	if e := cust.call(); e["type"] != TypeJoined {
		t.Fatalf("first tab got %v", e)
	}
	if e := cust.call(); e["type"] != TypeReplaced {
		t.Fatalf("first tab got %v, want replaced", e)
	}
	if e := att.call(); e["type"] != TypeJoined {
		t.Fatalf("attendant got %v", e)
	}
	cust.refused(engine.ErrNotFound, EventSignal, signal(inv.Call, TypeHold, ""))
	_ = cust.nc.Close() // replaced: its end says nothing to the attendant

	_ = tab.nc.Close() // vanishes without an end
	if e := att.call(); e["type"] != TypeGone || e["from"] != "customer" {
		t.Fatalf("attendant got %v, want gone", e)
	}
	eventually(t, "the call emptied of the customer", func() bool { return n.relay.Members(inv.Call) == 1 })
}

// Two nodes sharing a real Redis topic: each party on its own node.
func TestRelayAcrossTwoNodes(t *testing.T) {
	url := "redis://127.0.0.1:6379/0"
	ctx := context.Background()
	rs, err := redisstate.New(ctx, redisstate.Config{URL: url, Prefix: fmt.Sprintf("calltest:%d:", time.Now().UnixNano()), Logger: zerolog.Nop()})
	if err != nil {
		t.Skipf("redis: %v", err)
	}
	t.Cleanup(func() { _ = rs.Close() })
	topic := rs.Topic("calls")
	tokens, _ := NewTokens(testSecret, nil)
	a, b := newNode(t, tokens, topic), newNode(t, tokens, topic)
	for _, n := range []*node{a, b} {
		cancel, err := topic.Subscribe(ctx, n.relay.Deliver)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cancel)
	}
	inv := issue(t, tokens, 1, 1)
	att := a.connect("alice")
	cust := b.connect(inv.Customer)
	att.mustOK(EventJoin, tokenArg(inv.Attendant))
	cust.mustOK(EventJoin)
	if e := att.call(); e["type"] != TypeJoined || e["from"] != "customer" {
		t.Fatalf("attendant got %v", e)
	}
	if e := cust.call(); e["type"] != TypeJoined || e["from"] != "attendant" {
		t.Fatalf("customer got %v", e)
	}
	att.mustOK(EventSignal, signal(inv.Call, TypeOffer, offerSDP))
	if e := cust.callAfterJoins(); e["type"] != TypeOffer {
		t.Fatalf("customer got %v", e)
	}
	cust.mustOK(EventSignal, signal(inv.Call, TypeAnswer, offerSDP))
	if e := att.callAfterJoins(); e["type"] != TypeAnswer {
		t.Fatalf("attendant got %v", e)
	}
	// Another tenant's socket on node b cannot reach the call.
	b.connect("carol").refused(engine.ErrNotFound, EventSignal, signal(inv.Call, TypeHold, ""))
	_ = cust.nc.Close()
	if e := att.callAfterJoins(); e["type"] != TypeGone {
		t.Fatalf("attendant got %v, want gone", e)
	}
}
