package socket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/socket/sio"
)

// Principals of the test authenticator, by token.
var testPrincipals = map[string]Principal{
	"alice": {UserID: 1, CompanyID: 1, Profile: "admin", QueueIDs: []int64{1}},
	"bob":   {UserID: 2, CompanyID: 1, Profile: "user", QueueIDs: []int64{2}},
	"carol": {UserID: 3, CompanyID: 2, Profile: "admin", QueueIDs: []int64{1}},
}

// testAuthenticator knows testPrincipals; "expired" is an expired session, "dbdown"
// a failing session store, "slow" one that answers only when the context ends.
var testAuthenticator = AuthenticatorFunc(func(ctx context.Context, token string) (Principal, error) {
	switch token {
	case "expired":
		return Principal{}, engine.E(engine.ErrSessionExpired)
	case "dbdown":
		return Principal{}, engine.Wrap(engine.ErrUnavailable, errors.New("connection refused"))
	case "slow":
		<-ctx.Done()
		return Principal{}, fmt.Errorf("look up session: %w", ctx.Err())
	}
	p, ok := testPrincipals[token]
	if !ok {
		return Principal{}, fmt.Errorf("unknown token %q", token)
	}
	return p, nil
})

// testAuthorizer refuses chat box 666, fails on chat box 500, allows the rest.
var testAuthorizer = AuthorizerFunc(func(_ context.Context, _ Principal, room Room) error {
	switch room {
	case ChatBoxRoom(666):
		return engine.E(engine.ErrNoPermission)
	case ChatBoxRoom(500):
		return errors.New("database unavailable")
	}
	return nil
})

type fixture struct {
	t    *testing.T
	srv  *Server
	hub  *Hub
	ts   *httptest.Server
	addr string // host:port
}

// newFixture starts a Server on a loopback port; cfg may adjust the configuration.
func newFixture(t *testing.T, hubCfg HubConfig, cfg func(*Config)) *fixture {
	t.Helper()
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	hubCfg.Logger = log
	hub, err := NewHub(hubCfg)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Authenticator: testAuthenticator, Authorizer: testAuthorizer, Hub: hub, Logger: log}
	if cfg != nil {
		cfg(&c)
	}
	srv, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	f := &fixture{t: t, srv: srv, hub: hub, ts: ts, addr: strings.TrimPrefix(ts.URL, "http://")}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		ts.Close()
	})
	return f
}

// url is the websocket URL with extra query parameters appended.
func (f *fixture) url(extra string) string {
	u := "ws://" + f.addr + "/socket.io/?EIO=4&transport=websocket"
	if extra != "" {
		u += "&" + extra
	}
	return u
}

// publish publishes or fails the test.
func (f *fixture) publish(tenant int64, name string, payload string, rooms ...Room) int64 {
	f.t.Helper()
	seq, err := f.hub.Publish(Event{Tenant: tenant, Rooms: rooms, Name: name, Payload: json.RawMessage(payload)})
	if err != nil {
		f.t.Fatalf("publish: %v", err)
	}
	return seq
}

// client is a raw websocket client speaking the wire protocol by hand.
type client struct {
	t  *testing.T
	nc net.Conn
	r  io.Reader
}

func dialWith(t *testing.T, d ws.Dialer, url string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nc, br, _, err := d.Dial(ctx, url)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	var r io.Reader = nc
	if br != nil {
		r = io.MultiReader(br, nc)
	}
	return &client{t: t, nc: nc, r: r}
}

func (f *fixture) dial(extra string) *client {
	f.t.Helper()
	return dialWith(f.t, ws.Dialer{}, f.url(extra))
}

// open dials and reads the open packet.
func (f *fixture) open(extra string) (*client, sio.Open) {
	f.t.Helper()
	c := f.dial(extra)
	msg := c.text()
	if !strings.HasPrefix(msg, "0") {
		f.t.Fatalf("first frame %q is not an open packet", msg)
	}
	var o sio.Open
	if err := json.Unmarshal([]byte(msg[1:]), &o); err != nil {
		f.t.Fatalf("open packet %q: %v", msg, err)
	}
	return c, o
}

// connect opens a socket and CONNECTs with auth token tok, expecting success.
func (f *fixture) connect(tok string) *client {
	f.t.Helper()
	c, _ := f.open("")
	c.send(`40{"token":"` + tok + `"}`)
	c.expectPrefix(`40{"sid":"`)
	return c
}

func (c *client) send(msg string) {
	c.t.Helper()
	if err := wsutil.WriteClientText(c.nc, []byte(msg)); err != nil {
		c.t.Fatalf("send %q: %v", msg, err)
	}
}

// frame reads one frame within 5 s.
func (c *client) frame() (ws.Header, []byte, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	h, err := ws.ReadHeader(c.r)
	if err != nil {
		return h, nil, err
	}
	p := make([]byte, h.Length)
	if _, err := io.ReadFull(c.r, p); err != nil {
		return h, nil, err
	}
	return h, p, nil
}

// text reads the next text frame, failing on anything else.
func (c *client) text() string {
	c.t.Helper()
	h, p, err := c.frame()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if h.OpCode != ws.OpText {
		code, reason := ws.ParseCloseFrameData(p)
		c.t.Fatalf("got opcode %v (close %d %q), want a text frame", h.OpCode, code, reason)
	}
	return string(p)
}

// expectPrefix reads the next text frame, skipping pings, and fails unless it starts with prefix.
func (c *client) expectPrefix(prefix string) string {
	c.t.Helper()
	for {
		msg := c.text()
		if msg == "2" {
			continue
		}
		if !strings.HasPrefix(msg, prefix) {
			c.t.Fatalf("got %q, want prefix %q", msg, prefix)
		}
		return msg
	}
}

// expectClose reads until a close frame and checks its code, then closes the
// connection as a client does; text frames before it are returned.
func (c *client) expectClose(code ws.StatusCode) []string {
	c.t.Helper()
	var texts []string
	for {
		h, p, err := c.frame()
		if err != nil {
			c.t.Fatalf("read before close %d (after %q): %v", code, texts, err)
		}
		switch h.OpCode {
		case ws.OpText:
			texts = append(texts, string(p))
		case ws.OpClose:
			got, reason := ws.ParseCloseFrameData(p)
			_ = c.nc.Close()
			if got != code {
				c.t.Fatalf("close code %d %q, want %d (after %q)", got, reason, code, texts)
			}
			return texts
		}
	}
}

// eventPayload decodes an EVENT frame 42[name, payload…] and checks its name.
func eventPayload(t *testing.T, msg, name string) map[string]any {
	t.Helper()
	p, err := sio.DecodePacket([]byte(strings.TrimPrefix(msg, "4")))
	if err != nil || p.Type != sio.PacketEvent {
		t.Fatalf("%q is not an event: %v", msg, err)
	}
	got, args, err := sio.DecodeEvent(p.Data)
	if err != nil || got != name || len(args) == 0 {
		t.Fatalf("%q: event %q with %d args (%v), want %q", msg, got, len(args), err, name)
	}
	var m map[string]any
	if err := json.Unmarshal(args[0], &m); err != nil {
		t.Fatalf("%q: payload: %v", msg, err)
	}
	return m
}

// seqOf is the "seq" of an event or ack payload.
func seqOf(t *testing.T, m map[string]any) int64 {
	t.Helper()
	f, ok := m["seq"].(float64)
	if !ok {
		t.Fatalf("no seq in %v", m)
	}
	return int64(f)
}

// ackPayload decodes ACK 43<id>[payload] and checks the id.
func ackPayload(t *testing.T, msg string, id uint64) map[string]any {
	t.Helper()
	p, err := sio.DecodePacket([]byte(strings.TrimPrefix(msg, "4")))
	if err != nil || p.Type != sio.PacketAck || p.ID != id {
		t.Fatalf("%q is not ack %d: %v", msg, id, err)
	}
	args, err := sio.SplitArray(p.Data, 4)
	if err != nil || len(args) != 1 {
		t.Fatalf("%q: ack args %v", msg, err)
	}
	var m map[string]any
	if err := json.Unmarshal(args[0], &m); err != nil {
		t.Fatalf("%q: %v", msg, err)
	}
	return m
}

// eventually polls cond every few milliseconds until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// nextIs checks that the next event contains want: publish a marker after an event
// that must not arrive, and expect the marker.
func (c *client) nextIs(t *testing.T, want string) {
	t.Helper()
	got := c.expectPrefix("42")
	if !strings.Contains(got, want) {
		t.Fatalf("next event %q, want one containing %q", got, want)
	}
}
