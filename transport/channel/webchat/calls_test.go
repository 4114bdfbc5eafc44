package webchat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/persistence/redisstate"
	"atende/transport/call"
	gw "atende/transport/socket"
)

var callSecret = []byte("0123456789abcdef-webchat-call-test")

const testSDP = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"

// tickets is the test's CallTicket: the ticket of each visitor's conversation.
type tickets struct {
	mu   sync.Mutex
	by   map[string]engine.ID // by visitor number
	fail error
}

func (tk *tickets) set(number string, id engine.ID) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.by[number] = id
}

func (tk *tickets) ticket(_ context.Context, connID engine.ID, number string) (engine.ID, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if connID != 7 {
		return 0, fmt.Errorf("connection %d", connID)
	}
	return tk.by[number], tk.fail
}

// gateway is the realtime gateway of one node with its call relay, as cmd/atende
// wires them: "alice" (tenant 3, user 1) and "carol" (tenant 4) are staff, a call
// token is a call guest.
type gateway struct {
	t     *testing.T
	relay *call.Relay
	addr  string
}

var gatewayStaff = map[string]gw.Principal{
	"alice": {UserID: 1, CompanyID: 3, Profile: "admin"},
	"carol": {UserID: 9, CompanyID: 4, Profile: "admin"},
}

func newGateway(t *testing.T, tokens *call.Tokens, bus call.Bus) *gateway {
	t.Helper()
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	relay, err := call.NewRelay(call.Config{Tokens: tokens, Bus: bus, Logger: log,
		ICEServers: []call.ICEServer{{URLs: []string{"stun:stun.example.org:3478"}}}})
	if err != nil {
		t.Fatal(err)
	}
	hub, err := gw.NewHub(gw.HubConfig{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := gw.NewServer(gw.Config{Hub: hub, Logger: log, Events: relay,
		Authenticator: gw.AuthenticatorFunc(func(_ context.Context, tok string) (gw.Principal, error) {
			if call.IsToken(tok) {
				return call.GuestPrincipal(tokens, tok)
			}
			if p, ok := gatewayStaff[tok]; ok {
				return p, nil
			}
			return gw.Principal{}, engine.E(engine.ErrInvalidToken)
		}),
		Authorizer: gw.AuthorizerFunc(func(context.Context, gw.Principal, gw.Room) error { return nil }),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		ts.Close()
	})
	return &gateway{t: t, relay: relay, addr: strings.TrimPrefix(ts.URL, "http://")}
}

// sio is a raw Socket.IO client of the gateway (the attendant's call window).
type sio struct {
	t       *testing.T
	nc      net.Conn
	r       io.Reader
	pending []string
	ackID   int
}

func (g *gateway) connect(tok string) *sio {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, br, _, err := ws.Dialer{}.Dial(ctx, "ws://"+g.addr+"/socket.io/?EIO=4&transport=websocket")
	if err != nil {
		g.t.Fatalf("dial: %v", err)
	}
	g.t.Cleanup(func() { _ = nc.Close() })
	var r io.Reader = nc
	if br != nil {
		r = io.MultiReader(br, nc)
	}
	c := &sio{t: g.t, nc: nc, r: r}
	c.wait("0{")
	tb, _ := json.Marshal(tok)
	c.send(`40{"token":` + string(tb) + `}`)
	c.wait(`40{"sid"`)
	return c
}

func (c *sio) send(msg string) {
	c.t.Helper()
	if err := wsutil.WriteClientText(c.nc, []byte(msg)); err != nil {
		c.t.Fatalf("send %q: %v", msg, err)
	}
}

// wait returns the first frame, pending or new, that starts with prefix (10 s).
func (c *sio) wait(prefix string) string {
	c.t.Helper()
	for i, f := range c.pending {
		if strings.HasPrefix(f, prefix) {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return f
		}
	}
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		data, err := wsutil.ReadServerText(struct {
			io.Reader
			io.Writer
		}{c.r, c.nc})
		if err != nil {
			c.t.Fatalf("read (pending %q): %v", c.pending, err)
		}
		f := string(data)
		if f == "2" {
			c.send("3")
			continue
		}
		if strings.HasPrefix(f, prefix) {
			return f
		}
		c.pending = append(c.pending, f)
	}
}

// emit sends event name with one argument and returns its ack's argument.
func (c *sio) emit(name, arg string) map[string]any {
	c.t.Helper()
	c.ackID++
	id := strconv.Itoa(c.ackID)
	c.send("42" + id + `["` + name + `",` + arg + "]")
	f := c.wait("43" + id + "[")
	var got []map[string]any
	if err := json.Unmarshal([]byte(f[len("43"+id):]), &got); err != nil || len(got) != 1 {
		c.t.Fatalf("ack %q: %v", f, err)
	}
	if got[0]["ok"] != true {
		c.t.Fatalf("%s %.80s: ack %v", name, arg, got[0])
	}
	return got[0]
}

// call waits for the next "call" event's payload.
func (c *sio) call() map[string]any {
	c.t.Helper()
	f := c.wait(`42["call",`)
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(f[2:]), &got); err != nil || len(got) != 2 {
		c.t.Fatalf("call event %q: %v", f, err)
	}
	var m map[string]any
	if err := json.Unmarshal(got[1], &m); err != nil {
		c.t.Fatal(err)
	}
	return m
}

// attendant connects alice and joins inv's call.
func (g *gateway) attendant(inv call.Invite) *sio {
	g.t.Helper()
	a := g.connect("alice")
	if ack := a.emit(call.EventJoin, fmt.Sprintf(`{"token":%q}`, inv.Attendant)); ack["callId"] != inv.Call {
		g.t.Fatalf("attendant join ack %v", ack)
	}
	return a
}

func sig(callID, typ, extra string) string {
	s := fmt.Sprintf(`{"callId":%q,"type":%q`, callID, typ)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

// callEnv is a web chat Server whose sockets are parties of g's relay.
func newCallEnv(t *testing.T, g *gateway) (*env, *tickets) {
	t.Helper()
	tk := &tickets{by: map[string]engine.ID{}}
	e := newEnv(t, func(c *Config) { c.Calls, c.CallTicket = g.relay, tk.ticket })
	return e, tk
}

// visitor connects a new visitor whose conversation is ticket (0: none).
func (e *env) visitor(tk *tickets, ticket engine.ID) (*client, string) {
	e.t.Helper()
	c, w := e.connect("")
	if ticket != 0 {
		tk.set(NumberPrefix+vidOf(w.Visitor), ticket)
	}
	return c, w.Visitor
}

// callFrame writes a call frame and returns the first frame after it that is not
// a chat frame (welcome, message).
func (c *client) callFrame(v map[string]any) serverFrame {
	c.t.Helper()
	c.write(v)
	return c.nextCall()
}

// nextCallAfterJoins is nextCall past any relay "joined": across nodes a party
// may be told twice that the other joined (both joins crossing on the bus).
func (c *client) nextCallAfterJoins() serverFrame {
	c.t.Helper()
	for {
		if f := c.nextCall(); f.Type != "call" || f.Call["type"] != call.TypeJoined {
			return f
		}
	}
}

// callAfterJoins is call past any "joined" (see nextCallAfterJoins).
func (c *sio) callAfterJoins() map[string]any {
	c.t.Helper()
	for {
		if e := c.call(); e["type"] != call.TypeJoined {
			return e
		}
	}
}

// nextCall reads frames until one of the call protocol (or an error).
func (c *client) nextCall() serverFrame {
	c.t.Helper()
	for {
		f := c.next()
		if f.Type != "welcome" && f.Type != "message" {
			return f
		}
	}
}

// joinWithPeer sends call.join into a call the attendant is in and returns the
// call.joined answer, having also read the relay's "joined" of the attendant,
// which may come before or after it (before on one node: the attendant's answer
// to the join is delivered while the join is being handled).
func (c *client) joinWithPeer(id, tok string) serverFrame {
	c.t.Helper()
	c.write(joinFrame(id, tok))
	var joined serverFrame
	peer := false
	for joined.Type == "" || !peer {
		f := c.nextCall()
		switch {
		case f.Type == "call.joined" && joined.Type == "":
			joined = f
		case f.Type == "call" && f.Call["type"] == call.TypeJoined && f.Call["from"] == "attendant":
			peer = true // across nodes, possibly twice (nextCallAfterJoins)
		default:
			c.t.Fatalf("join %s: got %+v", id, f)
		}
	}
	return joined
}

func joinFrame(id, tok string) map[string]any {
	return map[string]any{"type": FrameCallJoin, "id": id, "token": tok}
}

func signalFrame(id, s string) map[string]any {
	return map[string]any{"type": FrameCallSignal, "id": id, "signal": json.RawMessage(s)}
}

// A gateway attendant and a web chat customer: the whole exchange, both ways.
func TestCallBetweenGatewayAttendantAndWebchatCustomer(t *testing.T) {
	tokens, _ := call.NewTokens(callSecret, nil)
	g := newGateway(t, tokens, nil)
	e, tk := newCallEnv(t, g)
	inv, _ := tokens.Issue(3, 11, 1, time.Hour)

	att := g.attendant(inv)
	vis, _ := e.visitor(tk, 11)
	j := vis.joinWithPeer("j1", inv.Customer)
	if j.ID != "j1" || j.CallID != inv.Call || j.Role != "customer" ||
		!strings.Contains(string(j.ICEServers), "stun:stun.example.org:3478") {
		t.Fatalf("join answered %+v", j)
	}
	if ev := att.call(); ev["type"] != call.TypeJoined || ev["from"] != "customer" {
		t.Fatalf("attendant got %v", ev)
	}

	sdp, _ := json.Marshal(testSDP)
	att.emit(call.EventSignal, sig(inv.Call, call.TypeOffer, `"sdp":`+string(sdp)))
	if f := vis.nextCall(); f.Type != "call" || f.Call["type"] != call.TypeOffer || f.Call["sdp"] != testSDP || f.Call["from"] != "attendant" {
		t.Fatalf("visitor got %+v", f)
	}
	if f := vis.callFrame(signalFrame("s1", sig(inv.Call, call.TypeAnswer, `"sdp":`+string(sdp)))); f.Type != "call.ack" || f.ID != "s1" {
		t.Fatalf("answer answered %+v", f)
	}
	if ev := att.call(); ev["type"] != call.TypeAnswer || ev["sdp"] != testSDP || ev["from"] != "customer" {
		t.Fatalf("attendant got %v", ev)
	}
	cand := `"candidate":{"candidate":"candidate:1 1 udp 2122260223 192.168.1.5 50000 typ host","sdpMid":"0","sdpMLineIndex":0}`
	if f := vis.callFrame(signalFrame("s2", sig(inv.Call, call.TypeCandidate, cand))); f.Type != "call.ack" || f.ID != "s2" {
		t.Fatalf("candidate answered %+v", f)
	}
	if ev := att.call(); ev["type"] != call.TypeCandidate || !strings.Contains(fmt.Sprint(ev["candidate"]), "typ host") {
		t.Fatalf("attendant got %v", ev)
	}
	att.emit(call.EventSignal, sig(inv.Call, call.TypeCandidate, cand))
	if f := vis.nextCall(); f.Call["type"] != call.TypeCandidate {
		t.Fatalf("visitor got %+v", f)
	}
	for _, typ := range []string{call.TypeHold, call.TypeUnhold} {
		att.emit(call.EventSignal, sig(inv.Call, typ, ""))
		if f := vis.nextCall(); f.Type != "call" || f.Call["type"] != typ {
			t.Fatalf("visitor got %+v, want %s", f, typ)
		}
		if f := vis.callFrame(signalFrame("h"+typ, sig(inv.Call, typ, ""))); f.Type != "call.ack" {
			t.Fatalf("%s answered %+v", typ, f)
		}
		if ev := att.call(); ev["type"] != typ || ev["from"] != "customer" {
			t.Fatalf("attendant got %v, want %s", ev, typ)
		}
	}
	// The visitor's chat goes on beside the call: a message is still a message.
	vis.write(map[string]any{"type": "message", "id": "m1", "body": "oi"})
	vis.expect("ack")

	// The visitor hangs up: the attendant hears the end, and the visitor's socket,
	// out of the call, signals nothing more.
	if f := vis.callFrame(signalFrame("e1", sig(inv.Call, call.TypeEnd, ""))); f.Type != "call.ack" {
		t.Fatalf("end answered %+v", f)
	}
	if ev := att.call(); ev["type"] != call.TypeEnd {
		t.Fatalf("attendant got %v", ev)
	}
	if f := vis.callFrame(signalFrame("x1", sig(inv.Call, call.TypeHold, ""))); f.Type != "error" || f.Code != string(engine.ErrNotFound) || f.ID != "x1" {
		t.Fatalf("signal after the end answered %+v", f)
	}
	_ = vis.conn.Close() // an ended party's socket closing is no "gone"
	eventually(t, "the visitor left the call", func() bool { return g.relay.Members(inv.Call) == 1 })
	att.emit(call.EventSignal, sig(inv.Call, call.TypeHold, "")) // a round trip on the gateway before looking
	for _, f := range att.pending {
		if strings.Contains(f, `"gone"`) {
			t.Fatalf("the attendant heard gone after an end: %s", f)
		}
	}
}

// Who may join: the call of the visitor's own conversation, of the connection's
// tenant, with a valid customer token; everything else gets an error frame naming
// the request, and the socket hears nothing of the call.
func TestCallJoinOverWebchatIsTheVisitorsOwnCallOnly(t *testing.T) {
	var skew atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	tokens, _ := call.NewTokens(callSecret, clock)
	g := newGateway(t, tokens, nil)
	e, tk := newCallEnv(t, g)
	mine, _ := tokens.Issue(3, 11, 1, time.Hour)
	theirs, _ := tokens.Issue(3, 12, 1, time.Hour)   // another visitor's ticket, same tenant
	foreignT, _ := tokens.Issue(4, 11, 9, time.Hour) // another tenant's ticket 11
	att := g.attendant(theirs)

	vis, _ := e.visitor(tk, 11)
	other, _ := e.visitor(tk, 12)
	nobody, _ := e.visitor(tk, 0) // no conversation yet

	refused := func(c *client, id, tok string, code engine.Code) {
		t.Helper()
		f := c.callFrame(joinFrame(id, tok))
		if f.Type != "error" || f.Code != string(code) || f.ID != id {
			t.Fatalf("join %s answered %+v, want error %s", id, f, code)
		}
	}
	refused(vis, "a", theirs.Customer, engine.ErrNoPermission)  // another visitor's call
	refused(vis, "b", foreignT.Customer, engine.ErrNotFound)    // another tenant's
	refused(vis, "c", mine.Attendant, engine.ErrInvalidToken)   // the attendant's token
	refused(nobody, "d", mine.Customer, engine.ErrNoPermission) // no conversation
	refused(other, "e", mine.Customer, engine.ErrNoPermission)  // a visitor with another ticket
	foreign, _ := call.NewTokens([]byte("another secret of sixteen bytes+"), clock)
	finv, _ := foreign.Issue(3, 11, 1, time.Hour)
	refused(vis, "f", finv.Customer, engine.ErrInvalidToken)                             // not signed by this server
	refused(vis, "g", mine.Customer[:len(mine.Customer)-2]+"AA", engine.ErrInvalidToken) // tampered
	refused(vis, "h", "call1.e30.AAAA", engine.ErrInvalidToken)
	// Malformed requests: refused by the parser, naming the request when they can.
	vis.write(map[string]any{"type": FrameCallJoin, "id": "i", "token": "call1 x"})
	if f := vis.nextCall(); f.Type != "error" || f.Code != string(engine.ErrValidation) || f.ID != "i" || f.Fields["token"] == "" {
		t.Fatalf("bad token answered %+v", f)
	}
	vis.writeRaw(ws.OpText, []byte(`{"type":"call.signal","id":"k","signal":{"callId":"`+theirs.Call+`","type":"offer"}}`))
	if f := vis.nextCall(); f.Type != "error" || f.Code != string(engine.ErrValidation) || f.ID != "k" {
		t.Fatalf("bad signal answered %+v", f)
	}
	// Refused joins count as strikes, as any refused frame (Config.MaxStrikes): a
	// visitor guessing tokens is closed. A good frame clears them.
	vis.write(map[string]any{"type": "ping"})
	vis.expect("pong")

	// Signals into a call the socket did not join: refused, and nothing reaches
	// the attendant.
	if f := other.callFrame(signalFrame("s", sig(theirs.Call, call.TypeHold, ""))); f.Type != "error" || f.Code != string(engine.ErrNotFound) || f.ID != "s" {
		t.Fatalf("stranger's signal answered %+v", f)
	}
	// The attendant's call is still empty of customers; the right visitor joins it.
	if n := g.relay.Members(theirs.Call); n != 1 {
		t.Fatalf("%d members in the attendant's call, want 1", n)
	}
	other.joinWithPeer("ok", theirs.Customer)
	if ev := att.call(); ev["type"] != call.TypeJoined || ev["from"] != "customer" {
		t.Fatalf("attendant's first call event %v: something reached it before the join", ev)
	}

	// The ticket lookup failing: ERR_UNAVAILABLE, the visitor may try again.
	tk.mu.Lock()
	tk.fail = fmt.Errorf("database down")
	tk.mu.Unlock()
	refused(vis, "u", mine.Customer, engine.ErrUnavailable)
	tk.mu.Lock()
	tk.fail = nil
	tk.mu.Unlock()

	// Expired: the visitor's own call says so; another tenant's stays not found.
	skew.Store(int64(2 * time.Hour))
	refused(vis, "x", mine.Customer, engine.ErrSessionExpired)
	refused(vis, "y", foreignT.Customer, engine.ErrNotFound)
}

func TestCallFramesWithoutARelay(t *testing.T) {
	e := newEnv(t, nil)
	c, _ := e.connect("")
	if f := c.callFrame(joinFrame("j", "call1.x.y")); f.Type != "error" || f.Code != string(engine.ErrUnavailable) || f.ID != "j" {
		t.Fatalf("join answered %+v", f)
	}
	if f := c.callFrame(signalFrame("s", sig("AAAAAAAAAAAAAAAAAAAAAA", call.TypeEnd, ""))); f.Type != "error" || f.Code != string(engine.ErrUnavailable) {
		t.Fatalf("signal answered %+v", f)
	}
	if _, err := New(Config{Secret: testSecret, Calls: &call.Relay{}}); err == nil {
		t.Fatal("Calls without CallTicket accepted")
	}
}

// A second call page of the visitor takes the place of the first; a web chat
// party whose socket ends is "gone" to the attendant, and an attendant whose
// socket ends is "gone" to the web chat party.
func TestCallWebchatReplacedAndGone(t *testing.T) {
	tokens, _ := call.NewTokens(callSecret, nil)
	g := newGateway(t, tokens, nil)
	e, tk := newCallEnv(t, g)
	inv, _ := tokens.Issue(3, 11, 1, time.Hour)
	att := g.attendant(inv)
	first, token := e.visitor(tk, 11)
	first.joinWithPeer("j", inv.Customer)
	att.call() // joined

	second, _ := e.connect(token) // the same visitor's second call page
	second.joinWithPeer("j", inv.Customer)
	if f := first.nextCall(); f.Type != "call" || f.Call["type"] != call.TypeReplaced || f.Call["from"] != "customer" {
		t.Fatalf("first page got %+v, want replaced", f)
	}
	if ev := att.call(); ev["type"] != call.TypeJoined {
		t.Fatalf("attendant got %v", ev)
	}
	if f := first.callFrame(signalFrame("h", sig(inv.Call, call.TypeHold, ""))); f.Type != "error" || f.Code != string(engine.ErrNotFound) {
		t.Fatalf("the replaced page's signal answered %+v", f)
	}
	_ = first.conn.Close() // replaced: its end says nothing

	_ = second.conn.Close() // vanishes without an end
	if ev := att.call(); ev["type"] != call.TypeGone || ev["from"] != "customer" {
		t.Fatalf("attendant got %v, want gone", ev)
	}
	eventually(t, "the call emptied of the customer", func() bool { return g.relay.Members(inv.Call) == 1 })

	// The other way: the attendant's socket vanishes.
	third, _ := e.connect(token)
	third.joinWithPeer("j", inv.Customer)
	_ = att.nc.Close()
	if f := third.nextCall(); f.Type != "call" || f.Call["type"] != call.TypeGone || f.Call["from"] != "attendant" {
		t.Fatalf("visitor got %+v, want gone", f)
	}
}

// Two nodes sharing a real Redis topic "calls": the attendant's gateway on one,
// the visitor's web chat socket on the other.
func TestCallWebchatPartyOnAnotherNode(t *testing.T) {
	ctx := context.Background()
	rs, err := redisstate.New(ctx, redisstate.Config{URL: "redis://127.0.0.1:6379/0",
		Prefix: fmt.Sprintf("wccalltest:%d:", time.Now().UnixNano()), Logger: zerolog.Nop()})
	if err != nil {
		t.Skipf("redis: %v", err)
	}
	t.Cleanup(func() { _ = rs.Close() })
	topic := rs.Topic("calls")
	tokens, _ := call.NewTokens(callSecret, nil)
	a, b := newGateway(t, tokens, topic), newGateway(t, tokens, topic)
	for _, g := range []*gateway{a, b} {
		cancel, err := topic.Subscribe(ctx, g.relay.Deliver)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cancel)
	}
	e, tk := newCallEnv(t, b) // the web chat of node b
	inv, _ := tokens.Issue(3, 11, 1, time.Hour)
	att := a.attendant(inv)
	vis, _ := e.visitor(tk, 11)
	vis.joinWithPeer("j", inv.Customer)
	if ev := att.call(); ev["type"] != call.TypeJoined || ev["from"] != "customer" {
		t.Fatalf("attendant got %v", ev)
	}
	sdp, _ := json.Marshal(testSDP)
	att.emit(call.EventSignal, sig(inv.Call, call.TypeOffer, `"sdp":`+string(sdp)))
	if f := vis.nextCallAfterJoins(); f.Call["type"] != call.TypeOffer || f.Call["sdp"] != testSDP {
		t.Fatalf("visitor got %+v", f)
	}
	vis.write(signalFrame("a", sig(inv.Call, call.TypeAnswer, `"sdp":`+string(sdp))))
	if f := vis.nextCallAfterJoins(); f.Type != "call.ack" {
		t.Fatalf("answer answered %+v", f)
	}
	if ev := att.callAfterJoins(); ev["type"] != call.TypeAnswer {
		t.Fatalf("attendant got %v", ev)
	}
	// The customer's link opened on node a's gateway takes the web chat party's
	// place across the nodes.
	guest := a.connect(inv.Customer)
	guest.emit(call.EventJoin, `{}`)
	if f := vis.nextCallAfterJoins(); f.Call["type"] != call.TypeReplaced {
		t.Fatalf("visitor got %+v, want replaced", f)
	}
	_ = guest.nc.Close()
	if ev := att.callAfterJoins(); ev["type"] != call.TypeGone {
		t.Fatalf("attendant got %v, want gone", ev)
	}
}
