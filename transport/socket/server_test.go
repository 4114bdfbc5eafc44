package socket

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

func TestOpenPacket(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) {
		c.PingInterval = 1500 * time.Millisecond
		c.PingTimeout = 2500 * time.Millisecond
		c.MaxPayload = 4096
	})
	_, o := f.open("")
	if len(o.SID) != 20 || o.Upgrades == nil || len(o.Upgrades) != 0 ||
		o.PingInterval != 1500 || o.PingTimeout != 2500 || o.MaxPayload != 4096 {
		t.Fatalf("open packet %+v", o)
	}
	_, o2 := f.open("")
	if o2.SID == o.SID {
		t.Fatalf("two sockets share sid %q", o.SID)
	}
}

func TestDefaultOpenPacket(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	_, o := f.open("")
	if o.PingInterval != 18000 || o.PingTimeout != 20000 || o.MaxPayload != 1_000_000 {
		t.Fatalf("default open packet %+v, want pingInterval 18000 (spec section 9), pingTimeout 20000, maxPayload 1000000", o)
	}
}

func TestHandshakeRefusals(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	tests := []struct {
		name     string
		path     string
		upgrade  bool
		status   int
		code     int
		contains string
	}{
		{name: "EIO=3 is socket.io-client v2", path: "/socket.io/?EIO=3&transport=websocket", upgrade: true, status: 400, code: 5, contains: "v2"},
		{name: "no EIO", path: "/socket.io/?transport=websocket", upgrade: true, status: 400, code: 5},
		{name: "polling", path: "/socket.io/?EIO=4&transport=polling", status: 400, code: 0, contains: "websocket"},
		{name: "upgrade from a polling session", path: "/socket.io/?EIO=4&transport=websocket&sid=abc", upgrade: true, status: 400, code: 1},
		{name: "not an upgrade", path: "/socket.io/?EIO=4&transport=websocket", status: 400, code: 3},
		{name: "other path", path: "/engine.io/?EIO=4&transport=websocket", upgrade: true, status: 404, code: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, f.ts.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.upgrade {
				req.Header.Set("Upgrade", "websocket")
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Sec-WebSocket-Version", "13")
				req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tt.status)
			}
			if tt.code < 0 {
				return
			}
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Code != tt.code || !strings.Contains(e.Message, tt.contains) {
				t.Fatalf("body %s (%v), want code %d mentioning %q", body, err, tt.code, tt.contains)
			}
		})
	}
}

func TestConnectAuthentication(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) { c.AuthTimeout = 50 * time.Millisecond })
	tests := []struct {
		name    string
		query   string
		connect string
		want    string // frame prefix
		close   ws.StatusCode
	}{
		{name: "auth token", connect: `40{"token":"alice"}`, want: `40{"sid":"`},
		{name: "query token", query: "token=alice", connect: `40`, want: `40{"sid":"`},
		{name: "bearer auth token", connect: `40{"token":"Bearer alice"}`, want: `40{"sid":"`},
		{name: "bearer query token", query: "token=Bearer%20alice", connect: `40`, want: `40{"sid":"`},
		{name: "query before auth", query: "token=alice", connect: `40{"token":"nobody"}`, want: `40{"sid":"`},
		{name: "query before auth, bad query", query: "token=nobody", connect: `40{"token":"alice"}`, want: `44{"message":"ERR_INVALID_TOKEN"}`, close: ClosePolicyViolation},
		{name: "missing", connect: `40`, want: `44{"message":"ERR_SESSION_EXPIRED"}`, close: ClosePolicyViolation},
		{name: "empty auth", connect: `40{}`, want: `44{"message":"ERR_SESSION_EXPIRED"}`, close: ClosePolicyViolation},
		{name: "token not a string", connect: `40{"token":42}`, want: `44{"message":"ERR_SESSION_EXPIRED"}`, close: ClosePolicyViolation},
		{name: "bare bearer", connect: `40{"token":"Bearer "}`, want: `44{"message":"ERR_SESSION_EXPIRED"}`, close: ClosePolicyViolation},
		{name: "invalid", connect: `40{"token":"nobody"}`, want: `44{"message":"ERR_INVALID_TOKEN"}`, close: ClosePolicyViolation},
		{name: "expired", connect: `40{"token":"expired"}`, want: `44{"message":"ERR_SESSION_EXPIRED"}`, close: ClosePolicyViolation},
		{name: "store down", connect: `40{"token":"dbdown"}`, want: `44{"message":"ERR_UNAVAILABLE"}`, close: ClosePolicyViolation},
		{name: "store too slow", connect: `40{"token":"slow"}`, want: `44{"message":"ERR_UNAVAILABLE"}`, close: ClosePolicyViolation},
		{name: "auth not JSON object fields", connect: `40{"token"}`, want: ``, close: CloseProtocolError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := f.open(tt.query)
			c.send(tt.connect)
			if tt.want == "" {
				c.expectClose(tt.close)
				return
			}
			got := c.text()
			if !strings.HasPrefix(got, tt.want) {
				t.Fatalf("CONNECT answered %q, want %q", got, tt.want)
			}
			if tt.close != 0 {
				c.expectClose(tt.close)
				return
			}
			var reply struct{ SID, PID string }
			if err := json.Unmarshal([]byte(got[2:]), &reply); err != nil || reply.SID == "" || reply.PID == "" {
				t.Fatalf("CONNECT reply %q: %v", got, err)
			}
		})
	}
}

func TestNamespaceRefused(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	c, _ := f.open("")
	c.send(`40/admin,{"token":"alice"}`)
	if got := c.text(); got != `44/admin,{"message":"Invalid namespace"}` {
		t.Fatalf("got %q", got)
	}
	// The websocket stays usable for the root namespace.
	c.send(`40{"token":"alice"}`)
	c.expectPrefix(`40{"sid":"`)
}

// TestPingPong: a client that answers every ping stays connected past the read
// deadline a pong sets (PingInterval+PingTimeout), so each pong moves it on; one that
// stops answering is closed with 4001 about that long after its last pong. The ping
// interval is short (many pings in little time) and the timeout long: a test
// goroutine or a server writer descheduled for a second on a loaded machine answers
// late, not too late.
func TestPingPong(t *testing.T) {
	const interval, timeout = 40 * time.Millisecond, 1500 * time.Millisecond
	f := newFixture(t, HubConfig{}, func(c *Config) {
		c.PingInterval = interval
		c.PingTimeout = timeout
	})
	c := f.connect("alice")
	start := time.Now()
	pings := 0
	for time.Since(start) < interval+timeout+500*time.Millisecond {
		if got := c.text(); got != "2" {
			t.Fatalf("got %q, want ping", got)
		}
		pings++
		c.send("3")
	}
	if pings < 5 {
		t.Fatalf("%d pings in %s", pings, time.Since(start))
	}
	// One that stops answering is closed, after the deadline its last pong set.
	stopped := time.Now()
	texts := c.expectClose(ClosePingTimeout)
	for _, m := range texts {
		if m != "2" {
			t.Fatalf("unexpected %q before ping timeout", m)
		}
	}
	waited := time.Since(stopped)
	if waited < timeout {
		t.Fatalf("closed %s after the last pong, before the %s it allows", waited, interval+timeout)
	}
	if waited > interval+timeout+10*time.Second {
		t.Fatalf("ping timeout after %s", waited)
	}
}

func TestConnectTimeout(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) { c.ConnectTimeout = 50 * time.Millisecond })
	c, _ := f.open("")
	c.expectClose(CloseConnectTimeout)
}

func TestProtocolCloses(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) { c.MaxPayload = 1024 })
	tests := []struct {
		name      string
		connected bool
		send      func(c *client)
		code      ws.StatusCode
	}{
		{name: "message above maxPayload", connected: true, code: CloseMessageTooBig,
			send: func(c *client) { c.send(`42["joinChatBox","` + strings.Repeat("1", 2000) + `"]`) }},
		{name: "fragmented message above maxPayload", connected: true, code: CloseMessageTooBig,
			send: func(c *client) {
				part := []byte(strings.Repeat("x", 700))
				_ = ws.WriteFrame(c.nc, ws.MaskFrame(ws.NewFrame(ws.OpText, false, part)))
				_ = ws.WriteFrame(c.nc, ws.MaskFrame(ws.NewFrame(ws.OpContinuation, true, part)))
			}},
		{name: "binary frame", connected: true, code: CloseUnsupportedData,
			send: func(c *client) { _ = wsutil.WriteClientBinary(c.nc, []byte{4, 1, 2}) }},
		{name: "binary event packet", connected: true, code: CloseUnsupportedData,
			send: func(c *client) { c.send(`451-["upload",{"_placeholder":true,"num":0}]`) }},
		{name: "invalid UTF-8", connected: true, code: CloseInvalidPayload,
			send: func(c *client) { c.send("42[\"joinChatBox\",\"\xff\"]") }},
		{name: "garbage engine packet", connected: true, code: CloseProtocolError,
			send: func(c *client) { c.send("x") }},
		{name: "bad socket.io JSON", connected: true, code: CloseProtocolError,
			send: func(c *client) { c.send(`42["joinChatBox",`) }},
		{name: "huge ack id", connected: true, code: CloseProtocolError,
			send: func(c *client) { c.send(`4299999999999999999999["joinNotification"]`) }},
		{name: "event before CONNECT", code: CloseProtocolError,
			send: func(c *client) { c.send(`42["joinNotification"]`) }},
		{name: "second CONNECT", connected: true, code: CloseProtocolError,
			send: func(c *client) { c.send(`40{"token":"alice"}`) }},
		{name: "client DISCONNECT", connected: true, code: CloseNormal,
			send: func(c *client) { c.send(`41`) }},
		{name: "engine close", connected: true, code: CloseNormal,
			send: func(c *client) { c.send(`1`) }},
		{name: "websocket close", connected: true, code: CloseNormal,
			send: func(c *client) {
				_ = ws.WriteFrame(c.nc, ws.MaskFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusNormalClosure, "bye"))))
			}},
		{name: "unmasked client frame", connected: true, code: CloseProtocolError,
			send: func(c *client) { _ = ws.WriteFrame(c.nc, ws.NewTextFrame([]byte("3"))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c *client
			if tt.connected {
				c = f.connect("alice")
			} else {
				c, _ = f.open("")
			}
			tt.send(c)
			c.expectClose(tt.code)
			eventually(t, "socket released", func() bool { return f.srv.Stats().Connections == 0 })
		})
	}
}

func TestWebsocketPingAnswered(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	c := f.connect("alice")
	if err := ws.WriteFrame(c.nc, ws.MaskFrame(ws.NewPingFrame([]byte("hi")))); err != nil {
		t.Fatal(err)
	}
	h, p, err := c.frame()
	if err != nil || h.OpCode != ws.OpPong || string(p) != "hi" {
		t.Fatalf("got %v %q %v, want pong hi", h.OpCode, p, err)
	}
}

func TestShutdown(t *testing.T) {
	f := newFixture(t, HubConfig{}, nil)
	a, b := f.connect("alice"), f.connect("carol")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	a.expectClose(CloseGoingAway)
	b.expectClose(CloseGoingAway)
	if n := f.srv.goroutines.Running(); n != 0 {
		t.Fatalf("%d goroutines left after shutdown", n)
	}
	_, _, _, err := ws.Dial(ctx, f.url(""))
	if se, ok := err.(ws.StatusError); !ok || int(se) != http.StatusServiceUnavailable {
		t.Fatalf("dial after shutdown: %v, want status 503", err)
	}
}

func TestMaxConnections(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) { c.MaxConnections = 1 })
	f.open("")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, _, err := ws.Dial(ctx, f.url(""))
	if se, ok := err.(ws.StatusError); !ok || int(se) != http.StatusServiceUnavailable {
		t.Fatalf("second dial: %v, want status 503", err)
	}
}

func TestCheckOrigin(t *testing.T) {
	f := newFixture(t, HubConfig{}, func(c *Config) {
		c.CheckOrigin = func(r *http.Request) bool { return r.Header.Get("Origin") == "https://app.example" }
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, _, err := ws.Dialer{Header: ws.HandshakeHeaderHTTP(http.Header{"Origin": {"https://evil.example"}})}.Dial(ctx, f.url(""))
	if se, ok := err.(ws.StatusError); !ok || int(se) != http.StatusForbidden {
		t.Fatalf("foreign origin: %v, want 403", err)
	}
	c := dialWith(t, ws.Dialer{Header: ws.HandshakeHeaderHTTP(http.Header{"Origin": {"https://app.example"}})}, f.url(""))
	c.expectPrefix("0{")
}

func TestNewServerValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{name: "no authenticator", cfg: Config{Authorizer: testAuthorizer}},
		{name: "no authorizer", cfg: Config{Authenticator: testAuthenticator}},
		{name: "tiny queue", cfg: Config{Authenticator: testAuthenticator, Authorizer: testAuthorizer, QueueSize: 2}},
		{name: "negative ping", cfg: Config{Authenticator: testAuthenticator, Authorizer: testAuthorizer, PingInterval: -time.Second}},
		{name: "tiny payload", cfg: Config{Authenticator: testAuthenticator, Authorizer: testAuthorizer, MaxPayload: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewServer(tt.cfg); err == nil {
				t.Fatal("NewServer accepted an invalid config")
			}
		})
	}
}
