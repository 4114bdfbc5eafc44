package webchat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"atende/engine"
)

// bus is an in-process Cluster: one actor sink for connection 7 and a broadcast to
// every Server, through the wire encoding.
type bus struct {
	mu      sync.Mutex
	servers []*Server
	sink    engine.ChannelSink
	lookups int
	fail    error
	sent    int // deliveries published
}

func (b *bus) Endpoint(ctx context.Context, id engine.ID) (engine.Connection, engine.ChannelSink, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lookups++
	if b.fail != nil {
		return engine.Connection{}, nil, b.fail
	}
	if id != 7 {
		return engine.Connection{}, nil, engine.E(engine.ErrNoWappFound)
	}
	return engine.Connection{ID: 7, CompanyID: 3, Channel: engine.ChannelSocket}, b.sink, nil
}

// published is how many deliveries went on the bus so far.
func (b *bus) published() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sent
}

func (b *bus) Publish(ctx context.Context, d Delivery) error {
	raw, err := MarshalDelivery(d)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.sent++
	servers := append([]*Server(nil), b.servers...)
	b.mu.Unlock()
	for _, s := range servers {
		got, err := UnmarshalDelivery(raw)
		if err != nil {
			return err
		}
		s.Deliver(got)
	}
	return nil
}

// twoNodes is a cluster of two nodes' Servers, A and B, on the bus b; the
// connection's actor (7) is on A.
func twoNodes(t *testing.T) (b *bus, a, nb *env) {
	b = &bus{}
	cfg := func(c *Config) { c.Cluster = b }
	a, nb = newEnv(t, cfg), newEnv(t, cfg)
	b.sink = a.j
	b.servers = []*Server{a.srv, nb.srv}
	return b, a, nb
}

// An echo published by a node of an earlier release (during a rolling upgrade) still
// reaches the visitor's tabs here.
func TestEchoFromAnOlderNodeIsDelivered(t *testing.T) {
	b, _, nb := twoNodes(t)
	c, w := nb.connect("")
	frame, _ := json.Marshal(map[string]any{"type": "message", "id": "old1", "body": "typed elsewhere", "at": "2026-11-28T18:00:00.000Z"})
	if err := b.Publish(context.Background(), Delivery{ConnectionID: 7, Visitor: vidOf(w.Visitor), ID: "old1", Frame: frame,
		Echo: true, Origin: "older-node"}); err != nil {
		t.Fatal(err)
	}
	if f := c.expect("message"); f.ID != "old1" || f.FromMe || f.Body != "typed elsewhere" {
		t.Fatalf("echo %+v", f)
	}
}

// TestClusterVisitorOnAnotherNode: the channel runs on node A; a visitor connected
// to node B has its message acknowledged once A's sink took it, receives what A's
// channel sends, and after moving to node A (a reconnect through the balancer) gets
// both in its history and new messages there. The visitor's tab on A is not sent
// the message typed on B: the widget's tabs tell each other (doc.go, "Tabs").
func TestClusterVisitorOnAnotherNode(t *testing.T) {
	b, a, nb := twoNodes(t)

	c, w := nb.connect("")
	vid := vidOf(w.Visitor)
	tabA, _ := a.connect(w.Visitor) // the same visitor in another tab, on node A
	c.write(map[string]string{"type": "message", "id": "m1", "body": "oi de B"})
	if f := c.expect("ack"); f.ID != "m1" {
		t.Fatalf("ack %+v", f)
	}
	if a.j.callsFor("wc:"+vid+":m1") != 1 || nb.j.callsFor("wc:"+vid+":m1") != 0 {
		t.Fatal("the message did not reach the actor's sink exactly once")
	}
	published := b.published()
	out := a.send(NumberPrefix+vid, "resposta de A")
	// Both tabs, on both nodes, get the attendant's message, and it is the first
	// message frame either gets: nothing of m1 crossed to A.
	for _, cl := range []*client{c, tabA} {
		if f := cl.expect("message"); f.ID != out || !f.FromMe || f.Body != "resposta de A" {
			t.Fatalf("got %+v", f)
		}
	}
	if got := b.published() - published; got != 1 {
		t.Fatalf("%d deliveries published for one attendant message", got)
	}
	if published != 0 {
		t.Fatalf("%d deliveries published for the visitor's message; want none", published)
	}
	tabA.conn.Close()
	// The read receipt from B reaches the actor's sink too.
	c.write(map[string]any{"type": "read", "ids": []string{out}})
	eventually(t, "read receipt on A", func() bool {
		_, r, _ := a.j.snapshot()
		return len(r) == 1 && r[0].ProviderID == out && r[0].Ack == engine.AckRead
	})
	c.conn.Close()

	// Reconnect to A: history has both messages; a new message arrives there.
	c2, w2 := a.connect(w.Visitor)
	if len(w2.History) != 2 || w2.History[0].ID != "m1" || w2.History[1].ID != out {
		t.Fatalf("history on A %+v", w2.History)
	}
	out2 := a.send(NumberPrefix+vid, "segunda")
	if f := c2.expect("message"); f.ID != out2 {
		t.Fatalf("got %+v", f)
	}
	b.mu.Lock()
	lookups := b.lookups
	b.mu.Unlock()
	if lookups != 2 { // one per node, cached afterwards
		t.Fatalf("%d connection lookups, want 2", lookups)
	}
}

// TestClusterStopClosesVisitorsEverywhere: ending the channel on node A (a person
// stopped the connection) closes the sockets of its visitors on A and B
// (ERR_WAPP_NOT_INITIALIZED, then CloseNotInitialized) and the next visitor is
// looked the connection up again; a hand-over (Stop) closes none.
func TestClusterStopClosesVisitorsEverywhere(t *testing.T) {
	b, a, nb := twoNodes(t)
	onA, _ := a.connect("")
	onB, _ := nb.connect("")
	// A hand-over (Stop) leaves them attached: the actor carries on elsewhere.
	if err := a.ch.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	onB.write(map[string]string{"type": "message", "id": "m1", "body": "ainda aqui"})
	if f := onB.expect("ack"); f.ID != "m1" {
		t.Fatalf("after a hand-over %+v", f)
	}
	if err := a.ch.(engine.ChannelEnder).End(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, c := range []*client{onA, onB} {
		if f := c.expect("error"); f.Code != string(engine.ErrWappNotInitialized) {
			t.Fatalf("socket %d: %+v", i, f)
		}
		if code, _ := c.closed(); code != CloseNotInitialized {
			t.Fatalf("socket %d: close %d", i, code)
		}
	}
	b.mu.Lock()
	before := b.lookups
	b.mu.Unlock()
	nb.connect("") // the connection is looked up again (the lookup decides)
	b.mu.Lock()
	after := b.lookups
	b.mu.Unlock()
	if after != before+1 {
		t.Fatalf("%d lookups after the stop, want %d", after, before+1)
	}
}

// TestClusterLookupFailures: an unknown connection is refused as not started; a
// lookup error is ERR_UNAVAILABLE with close 1001 (the widget retries), and is not
// cached.
func TestClusterLookupFailures(t *testing.T) {
	b := &bus{}
	e := newEnv(t, func(c *Config) { c.Cluster = b })
	b.sink = e.j
	b.servers = []*Server{e.srv}

	c := dial(t, e.url("8", ""))
	if f := c.expect("error"); f.Code != string(engine.ErrWappNotInitialized) {
		t.Fatalf("unknown connection: %+v", f)
	}
	if code, _ := c.closed(); code != CloseNotInitialized {
		t.Fatalf("close %d", code)
	}
	b.mu.Lock()
	b.fail = errors.New("database down")
	b.mu.Unlock()
	c = dial(t, e.url("7", ""))
	if f := c.expect("error"); f.Code != string(engine.ErrUnavailable) {
		t.Fatalf("lookup failure: %+v", f)
	}
	if code, _ := c.closed(); code != CloseGoingAway {
		t.Fatalf("close %d", code)
	}
	b.mu.Lock()
	b.fail = nil
	b.mu.Unlock()
	e.connect("")
}

// TestClusterSendPublishFailure: a bus that cannot take the message makes Send a
// temporary error, which the connection actor retries.
func TestClusterSendPublishFailure(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Cluster = failingBus{} })
	_, err := e.ch.Send(context.Background(), engine.OutboundMessage{MessageID: 5, To: NumberPrefix + strings.Repeat("a", visitorIDLen), Body: "x"})
	if !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("Send: %v, want ErrChannelTemporary", err)
	}
}

type failingBus struct{}

func (failingBus) Endpoint(context.Context, engine.ID) (engine.Connection, engine.ChannelSink, error) {
	return engine.Connection{}, nil, errors.New("no")
}
func (failingBus) Publish(context.Context, Delivery) error { return errors.New("redis down") }

func TestDeliveryWire(t *testing.T) {
	d := Delivery{ConnectionID: 9, Visitor: "Ab_-9", ID: "wc-out:12", Frame: json.RawMessage(`{"type":"message","id":"wc-out:12"}`)}
	raw, err := MarshalDelivery(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalDelivery(raw)
	if err != nil || got.ConnectionID != 9 || got.Visitor != d.Visitor || got.ID != d.ID || string(got.Frame) != string(d.Frame) {
		t.Fatalf("round trip %+v %v", got, err)
	}
	for _, bad := range []string{
		``, `null`, `[]`, `"x"`, `{}`,
		`{"c":0,"v":"a","id":"wc-out:1","f":{}}`,
		`{"c":-1,"v":"a","id":"wc-out:1","f":{}}`,
		`{"c":1,"v":"","id":"wc-out:1","f":{}}`,
		`{"c":1,"v":"a b","id":"wc-out:1","f":{}}`,
		`{"c":1,"v":"` + strings.Repeat("a", 65) + `","id":"wc-out:1","f":{}}`,
		`{"c":1,"v":"a","id":"wc:1","f":{}}`,
		`{"c":1,"v":"a","id":"wc-out:01","f":{}}`,
		`{"c":1,"v":"a","id":"wc-out:-1","f":{}}`,
		`{"c":1,"v":"a","id":"wc-out:1","f":[]}`,
		`{"c":1,"v":"a","id":"wc-out:1","f":"{}"}`,
		`{"c":1,"v":"a","id":"wc-out:1"}`,
		`{"c":1,"v":"a","id":"wc-out:1","f":{},"x":1}`,
		`{"c":1,"v":"a","id":"wc-out:1","f":{}} {}`,
		`{"c":1.5,"v":"a","id":"wc-out:1","f":{}}`,
		`{"c":1,"v":"a","id":"wc-out:1","f":{},"o":"n1"}`,
		`{"c":1,"v":"a","id":"m1","f":{},"e":true}`,
		`{"c":1,"v":"a","id":"m 1","f":{},"e":true,"o":"n1"}`,
		`{"c":1,"v":"a","id":"m1","f":{},"e":true,"o":"n/1"}`,
		`{"c":1,"v":"a","id":"m1","f":{},"e":"true","o":"n1"}`,
		`{"c":1,"v":"a","id":"wc-out:1","f":{"a":` + strings.Repeat("1", maxDelivery) + `}}`,
		`{"c":0,"s":true}`,
		`{"c":1,"s":true}}`,
		`{"c":1,"s":true}]`,
		`{"c":1,"v":"a","id":"wc-out:1","f":{}} x`,
		`{"c":1,"s":"true"}`,
		`{"c":1,"s":true,"v":"a"}`,
		`{"c":1,"s":true,"id":"wc-out:1"}`,
		`{"c":1,"s":true,"f":{}}`,
		`{"c":1,"s":true,"f":null}`,
		`{"c":1,"s":true,"e":true}`,
		`{"c":1,"s":true,"o":"n1"}`,
	} {
		if _, err := UnmarshalDelivery([]byte(bad)); err == nil {
			t.Errorf("accepted %.80q", bad)
		}
	}
	echo := Delivery{ConnectionID: 9, Visitor: "v", ID: "m1", Frame: json.RawMessage(`{}`), Echo: true, Origin: "n1"}
	if raw, err := MarshalDelivery(echo); err != nil {
		t.Fatal(err)
	} else if got, err := UnmarshalDelivery(raw); err != nil || !got.Echo || got.Origin != "n1" || got.ID != "m1" {
		t.Fatalf("echo round trip %+v %v", got, err)
	}
	if raw, err := MarshalDelivery(Delivery{ConnectionID: 9, Stop: true}); err != nil || string(raw) != `{"c":9,"v":"","id":"","s":true}` {
		t.Fatalf("stop encoded %s %v", raw, err)
	} else if got, err := UnmarshalDelivery(raw); err != nil || !got.Stop || got.ConnectionID != 9 {
		t.Fatalf("stop round trip %+v %v", got, err)
	}
	if _, err := MarshalDelivery(Delivery{ConnectionID: 1, Visitor: "a", ID: "wc-out:1", Frame: json.RawMessage(`{`)}); err == nil {
		t.Error("marshalled an invalid frame")
	}
}

func FuzzUnmarshalDelivery(f *testing.F) {
	f.Add([]byte(`{"c":9,"v":"Ab_-9","id":"wc-out:12","f":{"type":"message"}}`))
	f.Add([]byte(`{"c":1,"v":"a","id":"wc-out:1","f":{}} {}`))
	f.Add([]byte(`{"c":9,"s":true}`))
	f.Add([]byte(`{"c":9,"s":true}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := UnmarshalDelivery(b)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted %q, which is not one JSON value", b)
		}
		raw, err := MarshalDelivery(d)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", b, err)
		}
		if _, err := UnmarshalDelivery(raw); err != nil {
			t.Fatalf("re-encoding of %q refused: %v", b, err)
		}
	})
}
