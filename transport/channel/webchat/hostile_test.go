package webchat

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"atende/engine"
)

// fixedClock stops time, so that rate limits never refill during a test.
func fixedClock(c *Config) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return t0 }
}

func TestHostileFrames(t *testing.T) {
	cases := []struct {
		name      string
		op        ws.OpCode
		payload   string
		wantCode  engine.Code
		wantField string
		wantClose ws.StatusCode // 0: the socket stays open
	}{
		{name: "oversized frame", op: ws.OpText, payload: `{"type":"message","id":"x","body":"` + strings.Repeat("a", DefaultMaxFrameSize) + `"}`,
			wantCode: engine.ErrBodyTooLarge, wantClose: CloseMessageTooBig},
		{name: "invalid utf-8", op: ws.OpText, payload: "{\"type\":\"message\",\"id\":\"x\",\"body\":\"\xc3\x28\"}",
			wantCode: engine.ErrInvalidJSON, wantClose: CloseInvalidPayload},
		{name: "binary frame", op: ws.OpBinary, payload: `{"type":"ping"}`, wantCode: engine.ErrInvalidJSON, wantClose: CloseUnsupportedData},
		{name: "malformed json", op: ws.OpText, payload: `{"type":"message",`, wantCode: engine.ErrInvalidJSON},
		{name: "wrong type of value", op: ws.OpText, payload: `{"type":"message","id":"x","body":12}`, wantCode: engine.ErrInvalidJSON},
		{name: "unknown frame type", op: ws.OpText, payload: `{"type":"typing"}`, wantCode: engine.ErrValidation, wantField: "type"},
		{name: "control characters", op: ws.OpText, payload: `{"type":"message","id":"x","body":"a\u0000\u001b[2J"}`, wantCode: engine.ErrValidation, wantField: "body"},
		{name: "body over 4096 characters", op: ws.OpText, payload: `{"type":"message","id":"x","body":"` + strings.Repeat("é", 4097) + `"}`, wantCode: engine.ErrBodyTooLarge},
		{name: "hello with html for a name", op: ws.OpText, payload: `{"type":"hello","name":"` + strings.Repeat("<b>", 20) + `"}`, wantCode: engine.ErrValidation, wantField: "name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			c, _ := e.connect("")
			c.writeRaw(tc.op, []byte(tc.payload))
			var f serverFrame
			if tc.wantClose != 0 {
				code, frames := c.closed()
				if code != tc.wantClose || len(frames) != 1 {
					t.Fatalf("closed with %d after %+v, want %d after one error", code, frames, tc.wantClose)
				}
				f = frames[0]
			} else {
				f = c.expect("error")
			}
			if f.Type != "error" || f.Code != string(tc.wantCode) {
				t.Fatalf("got %+v, want error %s", f, tc.wantCode)
			}
			if tc.wantField != "" && f.Fields[tc.wantField] == "" {
				t.Fatalf("fields %v, want %q", f.Fields, tc.wantField)
			}
			if tc.wantClose == 0 { // still usable
				c.write(map[string]string{"type": "ping"})
				c.expect("pong")
			}
			if in, _, _ := e.j.snapshot(); len(in) != 0 {
				t.Fatalf("a refused frame reached the sink: %+v", in)
			}
		})
	}
}

func TestRefusalsInARowClose(t *testing.T) {
	e := newEnv(t, nil)
	c, _ := e.connect("")
	for range 12 {
		c.writeRaw(ws.OpText, []byte("nope"))
	}
	code, frames := c.closed()
	if code != ClosePolicyViolation || len(frames) != 10 {
		t.Fatalf("closed with %d after %d frames, want 1008 after 10 errors", code, len(frames))
	}
}

func TestMessageFlood(t *testing.T) {
	e := newEnv(t, fixedClock)
	c, w := e.connect("")
	for i := range 40 {
		c.write(map[string]string{"type": "message", "id": fmt.Sprint("f", i), "body": "spam"})
	}
	code, frames := c.closed()
	acks, limited := 0, 0
	for _, f := range frames {
		switch {
		case f.Type == "ack":
			acks++
		case f.Type == "error" && f.Code == string(engine.ErrTooManyAttempts) && f.ID != "":
			limited++
		default:
			t.Fatalf("unexpected frame %+v", f)
		}
	}
	if code != ClosePolicyViolation || acks != 20 || limited != 10 {
		t.Fatalf("close %d, %d acks, %d refusals; want 1008, 20 (the burst), 10", code, acks, limited)
	}
	if in, _, _ := e.j.snapshot(); len(in) != 20 {
		t.Fatalf("sink recorded %d", len(in))
	}
	// The limit is the visitor's, not the socket's: a new tab starts with it spent.
	c2, _ := e.connect(w.Visitor)
	c2.write(map[string]string{"type": "message", "id": "after", "body": "spam"})
	if f := c2.expect("error"); f.Code != string(engine.ErrTooManyAttempts) {
		t.Fatalf("got %+v", f)
	}
}

func TestFrameFlood(t *testing.T) {
	e := newEnv(t, fixedClock)
	c, _ := e.connect("")
	for range 60 {
		c.write(map[string]string{"type": "ping"})
	}
	code, frames := c.closed()
	pongs, limited := 0, 0
	for _, f := range frames {
		switch {
		case f.Type == "pong":
			pongs++
		case f.Type == "error" && f.Code == string(engine.ErrTooManyAttempts):
			limited++
		}
	}
	if code != ClosePolicyViolation || pongs != 40 || limited != 10 {
		t.Fatalf("close %d, %d pongs, %d refusals", code, pongs, limited)
	}
}

func TestTooManySocketsPerVisitor(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxSocketsPerVisitor = 2 })
	_, w := e.connect("")
	e.connect(w.Visitor)
	third := dial(t, e.url("7", w.Visitor))
	code, frames := third.closed()
	if code != CloseTooManySockets || len(frames) != 1 || frames[0].Code != string(engine.ErrTooManyAttempts) {
		t.Fatalf("close %d after %+v", code, frames)
	}
	e.connect("") // another visitor is not affected
}

func TestHandshakeRefusals(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.MaxConnections = 1
		c.CheckOrigin = func(r *http.Request) bool { return r.Header.Get("Origin") != "https://evil.example" }
	})
	upgrade := map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
	cases := []struct {
		name   string
		method string
		path   string
		header map[string]string
		want   int
	}{
		{name: "no connection", method: "GET", path: "/webchat/ws", header: upgrade, want: 400},
		{name: "connection zero", method: "GET", path: "/webchat/ws?c=0", header: upgrade, want: 400},
		{name: "leading zero", method: "GET", path: "/webchat/ws?c=07", header: upgrade, want: 400},
		{name: "negative", method: "GET", path: "/webchat/ws?c=-7", header: upgrade, want: 400},
		{name: "not a number", method: "GET", path: "/webchat/ws?c=7%3Cscript%3E", header: upgrade, want: 400},
		{name: "not an upgrade", method: "GET", path: "/webchat/ws?c=7", want: 400},
		{name: "post", method: "POST", path: "/webchat/ws?c=7", header: upgrade, want: 405},
		{name: "foreign origin", method: "GET", path: "/webchat/ws?c=7", header: merge(upgrade, map[string]string{"Origin": "https://evil.example"}), want: 403},
		{name: "unknown path", method: "GET", path: "/webchat/admin", want: 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, e.http.URL+tc.path, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	t.Run("max connections", func(t *testing.T) {
		e.connect("")
		req, _ := http.NewRequest("GET", e.http.URL+"/webchat/ws?c=7", nil)
		for k, v := range upgrade {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", resp.StatusCode)
		}
	})
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestTimeouts(t *testing.T) {
	t.Run("a silent widget is closed with 4001", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.PingInterval, c.PongTimeout = 20*time.Millisecond, 20*time.Millisecond })
		c, _ := e.connect("")
		// Read without answering pings, as a dead peer would.
		if code := rawCloseCode(t, c); code != ClosePingTimeout {
			t.Fatalf("closed with %d", code)
		}
	})
	t.Run("an idle visitor is closed with 4002", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.PingInterval, c.IdleTimeout = 10*time.Millisecond, 30*time.Millisecond })
		c, _ := e.connect("")
		if code, _ := c.closed(); code != CloseIdle {
			t.Fatalf("closed with %d", code)
		}
	})
}

// rawCloseCode reads server frames without answering any, until the close frame.
func rawCloseCode(t *testing.T, c *client) ws.StatusCode {
	t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c.rw)
	for {
		h, err := ws.ReadHeader(r)
		if err != nil {
			t.Fatalf("read header: %v", err)
		}
		payload := make([]byte, h.Length)
		if _, err := io.ReadFull(r, payload); err != nil {
			t.Fatalf("read payload: %v", err)
		}
		if h.OpCode == ws.OpClose {
			code, _ := ws.ParseCloseFrameData(payload)
			return code
		}
	}
}

func TestSlowConsumerIsClosed(t *testing.T) {
	srv, err := New(Config{Secret: testSecret, QueueSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := srv.start(engine.Connection{ID: 1}, newJournal())
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	sk := newSocket(srv, ep, a, a, "")
	for range 4 {
		sk.send([]byte("x"))
	}
	if sk.closing() {
		t.Fatal("closed before the queue was full")
	}
	sk.send([]byte("x"))
	if code, _ := sk.ws.CloseCode(); !sk.closing() || code != CloseSlowConsumer {
		t.Fatalf("closing %v code %d", sk.closing(), code)
	}
}
