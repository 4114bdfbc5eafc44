package call

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/socket"
)

// Staff of the test authenticator, by login token.
var staff = map[string]socket.Principal{
	"alice": {UserID: 1, CompanyID: 1, Profile: "user"},
	"bob":   {UserID: 2, CompanyID: 1, Profile: "admin"},
	"carol": {UserID: 3, CompanyID: 2, Profile: "admin"},
}

var testSecret = []byte("0123456789abcdef-call-test-secret")

// node is one gateway with a relay, as cmd/atende wires them: a call token
// authenticates a call guest, a staff token a member of staff.
type node struct {
	t     *testing.T
	relay *Relay
	hub   *socket.Hub
	addr  string
}

func newNode(t *testing.T, tokens *Tokens, bus Bus) *node {
	t.Helper()
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	relay, err := NewRelay(Config{Tokens: tokens, Bus: bus, Logger: log,
		ICEServers: []ICEServer{{URLs: []string{"stun:stun.example.org:3478"}}}})
	if err != nil {
		t.Fatal(err)
	}
	hub, err := socket.NewHub(socket.HubConfig{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := socket.NewServer(socket.Config{Hub: hub, Logger: log, Events: relay,
		Authenticator: socket.AuthenticatorFunc(func(_ context.Context, tok string) (socket.Principal, error) {
			if IsToken(tok) {
				return GuestPrincipal(tokens, tok)
			}
			if p, ok := staff[tok]; ok {
				return p, nil
			}
			return socket.Principal{}, engine.E(engine.ErrInvalidToken)
		}),
		Authorizer: socket.AuthorizerFunc(func(context.Context, socket.Principal, socket.Room) error { return nil }),
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
	return &node{t: t, relay: relay, hub: hub, addr: strings.TrimPrefix(ts.URL, "http://")}
}

// client is a raw Socket.IO client over one websocket.
type client struct {
	t       *testing.T
	nc      net.Conn
	r       io.Reader
	pending []string // frames read while waiting for another
	ackID   int
}

// connect opens a socket with token tok and expects the CONNECT to be accepted.
func (n *node) connect(tok string) *client {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nc, br, _, err := ws.Dialer{}.Dial(ctx, "ws://"+n.addr+"/socket.io/?EIO=4&transport=websocket")
	if err != nil {
		n.t.Fatalf("dial: %v", err)
	}
	n.t.Cleanup(func() { _ = nc.Close() })
	var r io.Reader = nc
	if br != nil {
		r = io.MultiReader(br, nc)
	}
	c := &client{t: n.t, nc: nc, r: r}
	c.wait("0{")
	tb, _ := json.Marshal(tok)
	c.send(`40{"token":` + string(tb) + `}`)
	c.wait(`40{"sid"`)
	return c
}

func (c *client) send(msg string) {
	c.t.Helper()
	if err := wsutil.WriteClientText(c.nc, []byte(msg)); err != nil {
		c.t.Fatalf("send %q: %v", msg, err)
	}
}

// read reads one text frame within 10 s, answering pings.
func (c *client) read() string {
	c.t.Helper()
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		h, err := ws.ReadHeader(c.r)
		if err != nil {
			c.t.Fatalf("read (pending %q): %v", c.pending, err)
		}
		p := make([]byte, h.Length)
		if _, err := io.ReadFull(c.r, p); err != nil {
			c.t.Fatalf("read: %v", err)
		}
		if h.OpCode == ws.OpClose {
			code, reason := ws.ParseCloseFrameData(p)
			c.t.Fatalf("socket closed %d %q (pending %q)", code, reason, c.pending)
		}
		if string(p) == "2" {
			c.send("3")
			continue
		}
		return string(p)
	}
}

// wait returns the first frame, pending or new, that starts with prefix.
func (c *client) wait(prefix string) string {
	c.t.Helper()
	for i, f := range c.pending {
		if strings.HasPrefix(f, prefix) {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return f
		}
	}
	for {
		f := c.read()
		if strings.HasPrefix(f, prefix) {
			return f
		}
		c.pending = append(c.pending, f)
	}
}

// emit sends event name with args and returns its ack's argument.
func (c *client) emit(name string, args ...string) map[string]any {
	c.t.Helper()
	c.ackID++
	id := strconv.Itoa(c.ackID)
	nb, _ := json.Marshal(name)
	msg := "42" + id + "[" + string(nb)
	for _, a := range args {
		msg += "," + a
	}
	c.send(msg + "]")
	f := c.wait("43" + id + "[")
	var got []map[string]any
	if err := json.Unmarshal([]byte(f[len("43"+id):]), &got); err != nil || len(got) != 1 {
		c.t.Fatalf("ack %q: %v", f, err)
	}
	return got[0]
}

// mustOK emits and fails unless the ack is ok.
func (c *client) mustOK(name string, args ...string) map[string]any {
	c.t.Helper()
	a := c.emit(name, args...)
	if a["ok"] != true {
		c.t.Fatalf("%s %v: ack %v", name, args, a)
	}
	return a
}

// refused emits and fails unless the ack is the error code.
func (c *client) refused(code engine.Code, name string, args ...string) {
	c.t.Helper()
	if a := c.emit(name, args...); a["error"] != string(code) {
		c.t.Fatalf("%s %.80v: ack %v, want error %s", name, args, a, code)
	}
}

// call waits for the next "call" event and returns its payload.
func (c *client) call() map[string]any {
	c.t.Helper()
	f := c.wait(`42["call",`)
	var got []json.RawMessage
	if err := json.Unmarshal([]byte(f[2:]), &got); err != nil || len(got) != 2 {
		c.t.Fatalf("call event %q: %v", f, err)
	}
	var m map[string]any
	if err := json.Unmarshal(got[1], &m); err != nil {
		c.t.Fatalf("call payload %q: %v", got[1], err)
	}
	return m
}

// callAfterJoins waits for the next "call" event that is not a "joined". Across
// nodes a party may be told twice that the other joined: when both joins cross on
// the bus, each node introduces the two (the protocol allows it; the attendant's
// window answers each with an offer).
func (c *client) callAfterJoins() map[string]any {
	c.t.Helper()
	for {
		if e := c.call(); e["type"] != TypeJoined {
			return e
		}
	}
}

// noCall fails if a call event is pending (read so far).
func (c *client) noCall(what string) {
	c.t.Helper()
	for _, f := range c.pending {
		if strings.HasPrefix(f, `42["call",`) {
			c.t.Fatalf("%s: got %q", what, f)
		}
	}
}

func tokenArg(tok string) string { return fmt.Sprintf(`{"token":%q}`, tok) }

func signal(call, typ string, extra string) string {
	s := fmt.Sprintf(`{"callId":%q,"type":%q`, call, typ)
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

// eventually polls cond until it holds, failing after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
