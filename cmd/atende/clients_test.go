package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// api is a logged-in REST client.
type api struct {
	t      testing.TB
	base   string
	token  string
	user   int64
	queues []int64 // the user's queues, as the login answered them
}

func login(t testing.TB, base, email, password string) *api {
	t.Helper()
	a := &api{t: t, base: base}
	var out struct {
		Token string `json:"token"`
		User  struct {
			ID     int64 `json:"id"`
			Queues []struct {
				ID int64 `json:"id"`
			} `json:"queues"`
		} `json:"user"`
	}
	a.call("POST", "/auth/login", map[string]string{"email": email, "password": password}, http.StatusOK, &out)
	if out.Token == "" {
		t.Fatalf("login %s: no token", email)
	}
	a.token, a.user = out.Token, out.User.ID
	for _, q := range out.User.Queues {
		a.queues = append(a.queues, q.ID)
	}
	return a
}

// call sends a JSON request and decodes the answer into out (when not nil),
// failing the test unless the status is want.
func (a *api) call(method, path string, body any, want int, out any) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, a.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		a.t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, raw)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
}

// sioEvent is one Socket.IO event a client received.
type sioEvent struct {
	Name string
	Body map[string]any
	At   time.Time // when it arrived
}

// sioClient is a minimal Socket.IO v4 (Engine.IO 4, websocket) client for tests.
type sioClient struct {
	t    testing.TB
	conn net.Conn
	rw   io.ReadWriter // conn, reading first what the handshake buffered

	mu     sync.Mutex // guards events, acks and writes
	events []sioEvent
	acks   map[int]json.RawMessage
	nextID int
	closed chan struct{}
	// closeErr is why the read loop ended (a wsutil.ClosedError carries the server's
	// close code and reason).
	closeErr error
}

// dialSocket connects a socket with lastSeq (0: a fresh client) and, when given, the
// rooms it is about to join, declared at CONNECT as the web app does (each the array
// of its join event), so that a reconnect's replay covers them in one ordered stream.
func dialSocket(t testing.TB, base, token string, lastSeq int64, rooms ...[]string) *sioClient {
	t.Helper()
	u := strings.Replace(base, "http://", "ws://", 1) + "/socket.io/?EIO=4&transport=websocket"
	conn, br, _, err := ws.Dial(context.Background(), u)
	if err != nil {
		t.Fatalf("dial socket: %v", err)
	}
	c := &sioClient{t: t, conn: conn, rw: readWriter(conn, br), acks: map[int]json.RawMessage{}, closed: make(chan struct{})}
	t.Cleanup(func() { conn.Close() })
	open := c.read()
	if !strings.HasPrefix(open, "0{") {
		t.Fatalf("open packet %q", open)
	}
	fields := map[string]any{"token": token, "lastSeq": lastSeq}
	if len(rooms) > 0 {
		fields["rooms"] = rooms
	}
	auth, _ := json.Marshal(fields)
	c.write("40" + string(auth))
	if got := c.read(); !strings.HasPrefix(got, "40{") {
		t.Fatalf("connect answered %q", got)
	}
	go c.loop()
	return c
}

// read answers the next packet that is not a ping. The server may ping a socket
// any time after the open packet (its pinger visits the sockets in slices), even
// before the CONNECT answer, so a ping here is answered as socket.io-client does.
func (c *sioClient) read() string {
	c.t.Helper()
	for {
		_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := wsutil.ReadServerText(c.rw)
		if err != nil {
			c.t.Fatalf("socket read: %v", err)
		}
		if string(b) != "2" {
			return string(b)
		}
		c.write("3")
	}
}

func (c *sioClient) write(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = wsutil.WriteClientText(c.conn, []byte(s))
}

func (c *sioClient) loop() {
	defer close(c.closed)
	for {
		_ = c.conn.SetReadDeadline(time.Now().Add(time.Minute))
		b, err := wsutil.ReadServerText(c.rw)
		if err != nil {
			c.mu.Lock()
			c.closeErr = err
			c.mu.Unlock()
			return
		}
		s := string(b)
		switch {
		case s == "2":
			c.write("3")
		case strings.HasPrefix(s, "42"):
			var arr []json.RawMessage
			if json.Unmarshal([]byte(s[2:]), &arr) != nil || len(arr) < 2 {
				continue
			}
			ev := sioEvent{At: time.Now()}
			_ = json.Unmarshal(arr[0], &ev.Name)
			_ = json.Unmarshal(arr[1], &ev.Body)
			c.mu.Lock()
			c.events = append(c.events, ev)
			c.mu.Unlock()
		case strings.HasPrefix(s, "43"):
			i := strings.IndexByte(s, '[')
			var id int
			fmt.Sscanf(s[2:i], "%d", &id)
			c.mu.Lock()
			c.acks[id] = json.RawMessage(s[i:])
			c.mu.Unlock()
		}
	}
}

// emit sends an event with an ack and waits for the answer.
func (c *sioClient) emit(name string, arg any) string {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	a, _ := json.Marshal(arg)
	c.write(fmt.Sprintf("42%d[%q,%s]", id, name, a))
	var ack json.RawMessage
	waitFor(c.t, "ack of "+name, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		ack = c.acks[id]
		return ack != nil
	})
	return string(ack)
}

// waitEvent waits for an event matching match and returns it.
func (c *sioClient) waitEvent(what string, match func(sioEvent) bool) sioEvent {
	c.t.Helper()
	var got sioEvent
	waitFor(c.t, what, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, ev := range c.events {
			if match(ev) {
				got = ev
				return true
			}
		}
		return false
	})
	return got
}

func (c *sioClient) receivedAt() []sioEvent { return c.received() }

func (c *sioClient) received() []sioEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sioEvent(nil), c.events...)
}

// customer is a web chat visitor speaking the widget's protocol.
type customer struct {
	t      testing.TB
	conn   net.Conn
	token  string
	mu     sync.Mutex
	frames []map[string]any
	wmu    sync.Mutex
}

func dialCustomer(t testing.TB, base string, connID int64, token string) *customer {
	t.Helper()
	return dialCustomerFrom(t, base, connID, token, "")
}

// dialCustomerFrom dials from local address src ("" for any): another loopback
// address is another client address to the server's limits.
func dialCustomerFrom(t testing.TB, base string, connID int64, token, src string) *customer {
	t.Helper()
	u := fmt.Sprintf("%s/webchat/ws?c=%d", strings.Replace(base, "http://", "ws://", 1), connID)
	if token != "" {
		u += "&v=" + token
	}
	var d ws.Dialer
	if src != "" {
		d.NetDial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
			return nd.DialContext(ctx, network, addr)
		}
	}
	conn, br, _, err := d.Dial(context.Background(), u)
	if err != nil {
		t.Fatalf("dial web chat: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &customer{t: t, conn: conn}
	rw := readWriter(conn, br)
	go func() {
		for {
			b, err := wsutil.ReadServerText(rw)
			if err != nil {
				return
			}
			var f map[string]any
			if json.Unmarshal(b, &f) == nil {
				c.mu.Lock()
				c.frames = append(c.frames, f)
				c.mu.Unlock()
			}
		}
	}()
	w := c.wait("welcome", func(f map[string]any) bool { return f["type"] == "welcome" })
	c.token, _ = w["visitor"].(string)
	return c
}

func (c *customer) send(v any) {
	b, _ := json.Marshal(v)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := wsutil.WriteClientText(c.conn, b); err != nil {
		c.t.Fatalf("customer write: %v", err)
	}
}

func (c *customer) wait(what string, match func(map[string]any) bool) map[string]any {
	c.t.Helper()
	var got map[string]any
	waitFor(c.t, what, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, f := range c.frames {
			if match(f) {
				got = f
				return true
			}
		}
		return false
	})
	return got
}

// say sends a message and waits for its ack (the message is durable then).
func (c *customer) say(id, body string) {
	c.t.Helper()
	c.send(map[string]string{"type": "message", "id": id, "body": body})
	c.wait("ack of "+id, func(f map[string]any) bool { return f["type"] == "ack" && f["id"] == id })
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readWriter reads what the handshake left buffered in br before reading conn.
func readWriter(conn net.Conn, br *bufio.Reader) io.ReadWriter {
	if br == nil {
		return conn
	}
	return struct {
		io.Reader
		io.Writer
	}{io.MultiReader(br, conn), conn}
}
