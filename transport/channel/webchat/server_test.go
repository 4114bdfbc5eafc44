package webchat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/ingest"
)

// TestConversation runs a visitor's conversation end to end over real sockets.
func TestConversation(t *testing.T) {
	e := newEnv(t, nil)
	eventually(t, "CONNECTED status", func() bool {
		_, _, st := e.j.snapshot()
		return len(st) == 1 && st[0].Status == engine.ConnConnected
	})

	// First visit: no token, a new visitor with an empty history.
	c, w := e.connect("")
	token := w.Visitor
	vid := vidOf(token)
	number := NumberPrefix + vid
	if len(w.History) != 0 {
		t.Fatalf("new visitor has history %+v", w.History)
	}

	// The ack only comes once the sink accepted the message.
	gate := make(chan struct{})
	entered := make(chan string, 1)
	e.j.mu.Lock()
	e.j.gate, e.j.entered = gate, entered
	e.j.mu.Unlock()
	c.write(map[string]string{"type": "hello", "name": "Ana", "email": "ana@example.com"})
	c.write(map[string]string{"type": "message", "id": "m1", "body": "Olá, preciso de ajuda"})
	if got := <-entered; got != "wc:"+vid+":m1" {
		t.Fatalf("ProviderID %q", got)
	}
	// While the sink holds the message, the socket still works for the attendant.
	out1 := e.send(number, "Oi Ana, em que posso ajudar?")
	if f := c.next(); f.Type != "message" || f.ID != out1 || !f.FromMe || f.Body != "Oi Ana, em que posso ajudar?" {
		t.Fatalf("got %+v before the sink accepted, want the attendant's message", f)
	}
	gate <- struct{}{}
	if f := c.expect("ack"); f.ID != "m1" {
		t.Fatalf("ack %+v", f)
	}
	e.j.mu.Lock()
	e.j.gate, e.j.entered = nil, nil
	e.j.mu.Unlock()
	in, _, _ := e.j.snapshot()
	if len(in) != 1 || in[0].From.Number != number || in[0].From.Name != "Ana" || in[0].Body != "Olá, preciso de ajuda" || in[0].FromMe {
		t.Fatalf("recorded %+v", in)
	}

	// The widget reports the attendant's message displayed: one read receipt.
	c.write(map[string]any{"type": "read", "ids": []string{out1, "wc-out:999"}})
	c.write(map[string]any{"type": "read", "ids": []string{out1}})
	c.write(map[string]string{"type": "ping"})
	c.expect("pong")
	_, receipts, _ := e.j.snapshot()
	if len(receipts) != 1 || receipts[0] != (engine.Receipt{ProviderID: out1, Ack: engine.AckRead}) {
		t.Fatalf("receipts %+v", receipts)
	}

	// Reload: the same token continues the conversation; a resend of m1 (its ack
	// lost, say) keeps its ProviderID and is recorded once.
	_ = c.conn.Close()
	c2, w2 := e.connect(token)
	if w2.Visitor != token {
		t.Fatalf("token changed on reconnect: %q", w2.Visitor)
	}
	if len(w2.History) != 2 || w2.History[0].ID != "m1" || w2.History[0].FromMe ||
		w2.History[1].ID != out1 || !w2.History[1].FromMe {
		t.Fatalf("history %+v", w2.History)
	}
	c2.write(map[string]string{"type": "message", "id": "m1", "body": "Olá, preciso de ajuda"})
	if f := c2.expect("ack"); f.ID != "m1" {
		t.Fatalf("ack %+v", f)
	}
	if n := e.j.callsFor("wc:" + vid + ":m1"); n != 2 {
		t.Fatalf("%d Inbound calls for m1, want 2", n)
	}
	if in, _, _ := e.j.snapshot(); len(in) != 1 {
		t.Fatalf("resend recorded twice: %+v", in)
	}

	// Offline: Send succeeds, and the message comes with the next welcome.
	_ = c2.conn.Close()
	eventually(t, "sockets closed", func() bool { return e.srv.Stats().Sockets == 0 })
	out2 := e.send(number, "Ainda está aí?")
	_, w3 := e.connect(token)
	last := w3.History[len(w3.History)-1]
	if last.ID != out2 || !last.FromMe || last.Body != "Ainda está aí?" {
		t.Fatalf("offline message missing from history %+v", w3.History)
	}
}

func TestUnknownConnectionRefused(t *testing.T) {
	e := newEnv(t, nil)
	c := dial(t, e.url("999", ""))
	code, frames := c.closed()
	if code != CloseNotInitialized || len(frames) != 1 || frames[0].Type != "error" || frames[0].Code != string(engine.ErrWappNotInitialized) {
		t.Fatalf("close %d after %+v", code, frames)
	}
}

func TestStop(t *testing.T) {
	e := newEnv(t, nil)
	c, w := e.connect("")
	if err := e.ch.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	code, frames := c.closed()
	if code != CloseNotInitialized || len(frames) != 1 || frames[0].Code != string(engine.ErrWappNotInitialized) {
		t.Fatalf("close %d after %+v", code, frames)
	}
	if _, err := e.ch.Send(context.Background(), engine.OutboundMessage{MessageID: 1, To: NumberPrefix + vidOf(w.Visitor)}); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("Send after Stop: %v", err)
	}
	again := dial(t, e.url("7", w.Visitor))
	if code, _ := again.closed(); code != CloseNotInitialized {
		t.Fatalf("reconnect after Stop closed with %d", code)
	}
	// Start again: visitors are welcome once more.
	if err := e.ch.Start(context.Background(), e.j); err != nil {
		t.Fatal(err)
	}
	_, w2 := e.connect(w.Visitor)
	if w2.Visitor != w.Visitor {
		t.Fatal("the visitor changed across a restart")
	}
}

func TestTokens(t *testing.T) {
	e := newEnv(t, nil)
	_, w := e.connect("")
	other, err := New(Config{Secret: []byte("another-secret-another-secret-0123456789")})
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := other.issueToken(7)
	otherConn, _ := e.srv.issueToken(8)
	cases := []struct {
		name  string
		token string
		same  bool
	}{
		{name: "its own token", token: w.Visitor, same: true},
		{name: "garbage", token: "garbage"},
		{name: "signed with another secret", token: foreign},
		{name: "issued for another connection", token: otherConn},
		{name: "visitor id swapped", token: "AAAAAAAAAAAAAAAAAAAAAA" + w.Visitor[visitorIDLen:]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, got := e.connect(tc.token)
			if (got.Visitor == tc.token) != tc.same {
				t.Fatalf("token %q answered %q", tc.token, got.Visitor)
			}
			if !tc.same && len(tc.token) == tokenLen && vidOf(got.Visitor) == vidOf(tc.token) {
				t.Fatal("a refused token kept its visitor id")
			}
		})
	}
}

func TestSinkFailureThenResend(t *testing.T) {
	e := newEnv(t, nil)
	c, w := e.connect("")
	e.j.mu.Lock()
	e.j.fail = []error{errors.New("journal unavailable"), engine.E(engine.ErrValidation)}
	e.j.mu.Unlock()
	c.write(map[string]string{"type": "message", "id": "a1", "body": "oi"})
	if f := c.expect("error"); f.ID != "a1" || f.Code != string(engine.ErrUnavailable) || f.Retry != 2 {
		t.Fatalf("error %+v, want ERR_UNAVAILABLE with retryAfter 2", f)
	}
	c.write(map[string]string{"type": "message", "id": "a1", "body": "oi"})
	if f := c.expect("error"); f.ID != "a1" || f.Code != string(engine.ErrValidation) {
		t.Fatalf("engine error code not passed through: %+v", f)
	}
	c.write(map[string]string{"type": "message", "id": "a1", "body": "oi"})
	if f := c.expect("ack"); f.ID != "a1" {
		t.Fatalf("ack %+v", f)
	}
	if n := e.j.callsFor("wc:" + vidOf(w.Visitor) + ":a1"); n != 3 {
		t.Fatalf("%d calls", n)
	}
}

// TestAdmissionShedsLoadWithRetryAfter: with every place of the node's admission
// control taken, a visitor's message is refused at once with ERR_UNAVAILABLE and
// the limiter's retryAfter — no strike, nothing reaches the sink — and once the
// place is free the resend is acknowledged; so are messages of other visitors.
func TestAdmissionShedsLoadWithRetryAfter(t *testing.T) {
	lim, err := ingest.New(ingest.Config{MaxInFlight: 1, MaxQueued: -1, RetryAfter: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *Config) { c.Admission = lim; c.MaxStrikes = 2 })
	c, w := e.connect("")
	release, err := lim.Enter(context.Background(), e.conn.ID)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // more refusals than MaxStrikes: they are not strikes
		c.write(map[string]string{"type": "message", "id": "b1", "body": "oi"})
		if f := c.expect("error"); f.ID != "b1" || f.Code != string(engine.ErrUnavailable) || f.Retry != 5 {
			t.Fatalf("error %+v, want ERR_UNAVAILABLE with retryAfter 5", f)
		}
	}
	if n := e.j.callsFor("wc:" + vidOf(w.Visitor) + ":b1"); n != 0 {
		t.Fatalf("a refused message reached the sink %d times", n)
	}
	release()
	c.write(map[string]string{"type": "message", "id": "b1", "body": "oi"})
	if f := c.expect("ack"); f.ID != "b1" {
		t.Fatalf("after the release: %+v", f)
	}
	other, _ := e.connect("")
	other.write(map[string]string{"type": "message", "id": "o1", "body": "olá"})
	if f := other.expect("ack"); f.ID != "o1" {
		t.Fatalf("another visitor: %+v", f)
	}
	if s := lim.Stats(); s.InFlight != 0 || s.RefusedBusy != 3 || s.Admitted != 3 {
		t.Fatalf("limiter stats %+v", s)
	}
}

func TestTabsOfOneVisitor(t *testing.T) {
	e := newEnv(t, nil)
	a, w := e.connect("")
	b, _ := e.connect(w.Visitor)
	a.write(map[string]string{"type": "message", "id": "t1", "body": "from tab A"})
	a.expect("ack")
	if f := b.expect("message"); f.ID != "t1" || f.FromMe || f.Body != "from tab A" {
		t.Fatalf("echo %+v", f)
	}
	out := e.send(NumberPrefix+vidOf(w.Visitor), "to every tab")
	for _, c := range []*client{a, b} {
		if f := c.expect("message"); f.ID != out || !f.FromMe {
			t.Fatalf("attendant message %+v", f)
		}
	}
	// Another visitor of the same connection sees none of it.
	other, _ := e.connect("")
	other.write(map[string]string{"type": "ping"})
	other.expect("pong")
}

func TestSendRefusals(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name string
		m    engine.OutboundMessage
		code engine.Code
	}{
		{name: "whatsapp number", m: engine.OutboundMessage{MessageID: 1, To: "5511999990000"}, code: engine.ErrWappInvalidContact},
		{name: "malformed visitor", m: engine.OutboundMessage{MessageID: 1, To: "webchat:../x"}, code: engine.ErrWappInvalidContact},
		{name: "no message id", m: engine.OutboundMessage{To: "webchat:AAAAAAAAAAAAAAAAAAAAAA"}, code: engine.ErrValidation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.ch.Send(context.Background(), tc.m)
			if engine.CodeOf(err) != tc.code || errors.Is(err, engine.ErrChannelTemporary) {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
	if _, err := e.srv.NewChannel(engine.Connection{ID: 9, Channel: engine.ChannelWhatsApp}); err == nil {
		t.Fatal("the factory built a web chat channel for a WhatsApp connection")
	}
}

func TestHistoryFiltersAndMedia(t *testing.T) {
	at := time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)
	var token string
	e := newEnv(t, func(c *Config) {
		c.History = HistoryFunc(func(ctx context.Context, conn engine.ID, number string, limit int) ([]HistoryItem, error) {
			if conn != 7 || number != NumberPrefix+vidOf(token) || limit != 50 {
				t.Errorf("History(%d, %q, %d)", conn, number, limit)
			}
			return []HistoryItem{
				{MessageID: 3, FromMe: true, Body: "foto", MediaType: engine.MediaImage, MediaPath: "3/abc.jpg", MediaName: "a.jpg", At: at.Add(2 * time.Second)},
				{MessageID: 1, ProviderID: "wc:" + vidOf(token) + ":c1", Body: "oi", At: at},
				{MessageID: 2, FromMe: true, Body: "nota interna", MediaType: engine.MediaWhisper, At: at.Add(time.Second)},
				{MessageID: 4, FromMe: true, ProviderID: "wc-out:4", Ack: engine.AckRead, Body: "lida", At: at.Add(3 * time.Second)},
			}, nil
		})
		c.MediaURL = func(companyID engine.ID, path, name string) (string, error) {
			return "/media/" + path + "?n=" + name, nil
		}
	})
	token, _ = e.srv.issueToken(7)
	c, w := e.connect(token)
	if len(w.History) != 3 {
		t.Fatalf("history %+v", w.History)
	}
	h := w.History
	if h[0].ID != "c1" || h[0].FromMe || !h[0].At.Equal(at) {
		t.Fatalf("visitor message %+v", h[0])
	}
	if h[1].ID != "wc-out:3" || h[1].Media == nil || h[1].Media.URL != "/media/3/abc.jpg?n=a.jpg" || h[1].Media.Type != engine.MediaImage {
		t.Fatalf("media message %+v", h[1])
	}
	if h[2].ID != "wc-out:4" {
		t.Fatalf("read message %+v", h[2])
	}
	// Unread business messages of the history may be reported read; read ones not.
	c.write(map[string]any{"type": "read", "ids": []string{"wc-out:3", "wc-out:4"}})
	c.write(map[string]string{"type": "ping"})
	c.expect("pong")
	_, receipts, _ := e.j.snapshot()
	if len(receipts) != 1 || receipts[0].ProviderID != "wc-out:3" {
		t.Fatalf("receipts %+v", receipts)
	}
}

func TestShutdown(t *testing.T) {
	e := newEnv(t, nil)
	c, _ := e.connect("")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.srv.Shutdown(ctx) }()
	if code, _ := c.closed(); code != CloseGoingAway {
		t.Fatalf("closed with %d", code)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if s := e.srv.Stats(); s.Sockets != 0 || s.Goroutines != 0 {
		t.Fatalf("after shutdown %+v", s)
	}
	if err := NewChannel(e.srv, engine.Connection{ID: 8}).Start(context.Background(), e.j); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Shutdown: %v", err)
	}
}

// A new visitor gets an id whose messages this node routes itself when a few draws
// find one, and a valid token in any case.
func TestNewVisitorIDRoutedHere(t *testing.T) {
	var asked []string
	routed := func(conn engine.ID, number string) bool { return conn == 7 && strings.HasSuffix(number, "A") } // one id in 64
	srv, err := New(Config{Secret: testSecret, RoutesHere: func(conn engine.ID, number string) bool {
		asked = append(asked, number)
		return routed(conn, number)
	}})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for range 50 {
		asked = asked[:0]
		token, vid := srv.issueToken(7)
		if got, ok := srv.checkToken(7, token); !ok || got != vid {
			t.Fatalf("token %q does not verify", token)
		}
		for i, number := range asked {
			if !strings.HasPrefix(number, NumberPrefix) || len(number) != len(NumberPrefix)+visitorIDLen {
				t.Fatalf("asked about %q", number)
			}
			if i < len(asked)-1 && routed(7, number) {
				t.Fatalf("draw %d (%q) was routed here, yet drawing went on", i, number)
			}
		}
		if n := len(asked); n > 0 && asked[n-1] == NumberPrefix+vid && routed(7, asked[n-1]) {
			found++
		} else if n != localTries-1 {
			t.Fatalf("gave up after asking %d times, want %d", n, localTries-1)
		}
	}
	// A draw hits one id in 64, so 15 asked find one 21 % of the time: of 50
	// visitors, fewer than 2 found has a probability below 2e-4.
	if found < 2 {
		t.Fatalf("%d of 50 visitors routed here", found)
	}

	asked = asked[:0]
	token, vid := srv.issueToken(8) // this node routes none of connection 8's visitors
	if got, ok := srv.checkToken(8, token); !ok || got != vid {
		t.Fatalf("token %q for a connection routed elsewhere", token)
	}
	if len(asked) != localTries-1 {
		t.Fatalf("asked %d times for a connection routed elsewhere, want %d", len(asked), localTries-1)
	}
}
