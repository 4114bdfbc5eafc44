package webchat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"atende/engine"
	"atende/persistence/redisstate"
	"atende/transport/netlimit"
)

// dialFrom dials url from local address src (a loopback address other than
// 127.0.0.1 is another client address).
func dialFrom(t *testing.T, src, url string) *client {
	t.Helper()
	d := ws.Dialer{NetDial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
		return nd.DialContext(ctx, network, addr)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, br, _, err := d.Dial(ctx, url)
	if err != nil {
		t.Fatalf("dial %s from %s: %v", url, src, err)
	}
	var r io.Reader = conn
	if br != nil {
		r = br
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &client{t: t, conn: conn, rw: struct {
		io.Reader
		io.Writer
	}{r, conn}}
}

// visitorsRecorded counts the distinct visitors whose messages the sink recorded:
// the contacts (and pending tickets) the connection actor would have created.
func (e *env) visitorsRecorded() int {
	in, _, _ := e.j.snapshot()
	seen := map[string]bool{}
	for _, m := range in {
		seen[m.From.Number] = true
	}
	return len(seen)
}

// firstMessage connects a new visitor from src, sends one message and returns the
// answer to it (an ack or an error frame) and the visitor's token.
func (e *env) firstMessage(src, body string) (serverFrame, string) {
	e.t.Helper()
	c := dialFrom(e.t, src, e.url("7", ""))
	w := c.expect("welcome")
	c.write(map[string]string{"type": "message", "id": "m1", "body": body})
	return c.next(), w.Visitor
}

func TestNewVisitorFloodStaysWithinLimits(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.NewVisitorRate = netlimit.PerMinute(1, 5)           // per address: 5 at once, then one a minute
		c.NewVisitorsPerConnection = netlimit.PerMinute(1, 8) // the connection: 8 at once
	})
	// The flood of issue 17: one address opens visitor after visitor, each with a
	// first message (a contact and a pending ticket each).
	var admitted []string
	refused := 0
	for i := range 40 {
		f, token := e.firstMessage("127.0.0.1", fmt.Sprintf("flood %d", i))
		switch {
		case f.Type == "ack":
			admitted = append(admitted, token)
		case f.Type == "error" && f.Code == string(engine.ErrTooManyAttempts) && f.Limit == "newVisitor" && f.ID == "m1":
			if f.Retry < 1 || f.Retry > 60 {
				t.Fatalf("refusal %+v: retryAfter %d, want 1..60 s", f, f.Retry)
			}
			refused++
		default:
			t.Fatalf("visitor %d got %+v, want an ack or the new-visitor refusal", i, f)
		}
	}
	if len(admitted) != 5 || refused != 35 {
		t.Fatalf("flood from one address: %d admitted, %d refused; want 5 and 35", len(admitted), refused)
	}
	if got := e.visitorsRecorded(); got != 5 {
		t.Fatalf("the sink recorded %d visitors (contacts, tickets), want 5", got)
	}
	if got := e.srv.Stats().NewVisitorsRefused; got != 35 {
		t.Fatalf("Stats().NewVisitorsRefused = %d, want 35", got)
	}
	// A visitor of another address still gets through…
	if f, _ := e.firstMessage("127.0.0.2", "hello from elsewhere"); f.Type != "ack" {
		t.Fatalf("visitor from 127.0.0.2: %+v, want an ack", f)
	}
	// …and a returning visitor with a conversation is not a new one: its messages
	// pass though its address has no new visitors left.
	c, w := e.connect(admitted[0])
	if len(w.History) == 0 {
		t.Fatal("returning visitor welcomed without its history")
	}
	c.write(map[string]string{"type": "message", "id": "m2", "body": "still me"})
	if f := c.next(); f.Type != "ack" || f.ID != "m2" {
		t.Fatalf("returning visitor's message: %+v, want ack m2", f)
	}
	// The connection's ceiling holds across addresses: 8 in all.
	if f, _ := e.firstMessage("127.0.0.3", "one more"); f.Type != "ack" {
		t.Fatalf("7th new visitor of the connection: %+v, want an ack", f)
	}
	if f, _ := e.firstMessage("127.0.0.4", "and another"); f.Type != "ack" {
		t.Fatalf("8th new visitor of the connection: %+v, want an ack", f)
	}
	if f, _ := e.firstMessage("127.0.0.5", "over the ceiling"); f.Type != "error" || f.Limit != "newVisitor" {
		t.Fatalf("9th new visitor of the connection: %+v, want the new-visitor refusal", f)
	}
	if got := e.visitorsRecorded(); got != 8 {
		t.Fatalf("the sink recorded %d visitors, want 8", got)
	}
}

func TestNewVisitorRefusalKeepsSocketUntilStrikes(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.NewVisitorRate = netlimit.PerMinute(1, 1)
		c.MaxStrikes = 3
	})
	if f, _ := e.firstMessage("127.0.0.1", "first"); f.Type != "ack" {
		t.Fatalf("first visitor: %+v", f)
	}
	c := dial(t, e.url("7", ""))
	c.expect("welcome")
	for i := range 2 {
		c.write(map[string]string{"type": "message", "id": "x" + strconv.Itoa(i), "body": "again"})
		if f := c.next(); f.Limit != "newVisitor" {
			t.Fatalf("resend %d: %+v, want the new-visitor refusal", i, f)
		}
	}
	c.write(map[string]string{"type": "message", "id": "x9", "body": "again"})
	code, _ := c.closed()
	if code != ClosePolicyViolation {
		t.Fatalf("close %d after MaxStrikes refusals, want %d", code, ClosePolicyViolation)
	}
}

// handshake sends a websocket handshake from src and returns status, Retry-After and body.
func handshake(t *testing.T, src, url string) (int, string, string) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
	req, _ := http.NewRequest(http.MethodGet, "http"+strings.TrimPrefix(url, "ws"), nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("handshake from %s: %v", src, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return resp.StatusCode, "", ""
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
}

func TestGateCapsWidgetSocketsPerAddress(t *testing.T) {
	gate, err := netlimit.NewGate(netlimit.GateConfig{MaxPerAddress: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(c *Config) { c.Gate = gate })
	first, _ := e.connect("")
	e.connect("")
	status, retry, body := handshake(t, "127.0.0.1", e.url("7", ""))
	if status != http.StatusTooManyRequests || retry == "" || !strings.Contains(body, `"ERR_TOO_MANY_ATTEMPTS"`) {
		t.Fatalf("3rd socket of 127.0.0.1: %d Retry-After %q %s; want 429 ERR_TOO_MANY_ATTEMPTS with Retry-After", status, retry, body)
	}
	c := dialFrom(t, "127.0.0.2", e.url("7", ""))
	c.expect("welcome")
	// A closed socket gives its place back.
	_ = wsutil.WriteClientMessage(first.conn, ws.OpClose, ws.NewCloseFrameBody(ws.StatusNormalClosure, ""))
	first.closed()
	eventually(t, "the closed socket to leave the gate", func() bool { return gate.OpenFrom("127.0.0.1") == 1 })
	e.connect("")
}

// redisURL is where the shared-limit tests find Redis.
func redisURL() string {
	if u := os.Getenv("TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// TestNewVisitorLimitSharedAcrossNodes: two nodes counting in one Redis hold one
// per-address limit between them, not one each.
func TestNewVisitorLimitSharedAcrossNodes(t *testing.T) {
	var rb [6]byte
	_, _ = rand.Read(rb[:])
	prefix := "atende-test:" + hex.EncodeToString(rb[:]) + ":"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := redisstate.New(ctx, redisstate.Config{URL: redisURL(), Prefix: prefix})
	if err != nil {
		t.Fatalf("Redis at %s is required (set TEST_REDIS_URL): %v", redisURL(), err)
	}
	t.Cleanup(func() {
		keys, _ := r.Client().Keys(context.Background(), prefix+"*").Result()
		if len(keys) > 0 {
			_ = r.Client().Del(context.Background(), keys...).Err()
		}
		_ = r.Close()
	})
	rate := netlimit.PerMinute(1, 3)
	node := func() *env {
		byAddr, err := r.TokenBuckets("webchat-new-address", rate.PerSecond, rate.Burst, nil)
		if err != nil {
			t.Fatal(err)
		}
		return newEnv(t, func(c *Config) { c.NewVisitorRate, c.SharedNewVisitorsByAddress = rate, byAddr })
	}
	a, b := node(), node()
	answers := map[string]int{}
	for i := range 8 {
		e := a
		if i%2 == 1 {
			e = b
		}
		f, _ := e.firstMessage("127.0.0.1", fmt.Sprintf("visitor %d", i))
		answers[f.Type+f.Limit]++
	}
	if answers["ack"] != 3 || answers["errornewVisitor"] != 5 {
		t.Fatalf("8 new visitors of one address over two nodes: %v; want 3 acks in all, 5 refusals", answers)
	}
	if got := a.visitorsRecorded() + b.visitorsRecorded(); got != 3 {
		t.Fatalf("%d visitors recorded on the two nodes, want 3", got)
	}
}

// failingLimiter is a shared limiter that cannot be reached.
type failingLimiter struct{}

func (failingLimiter) Take(context.Context, string) (bool, time.Duration, error) {
	return false, 0, errors.New("dial tcp 10.0.0.1:6379: connection refused")
}

// TestNewVisitorLimitFallsBackToTheNode: with the shared count unreachable the node
// counts on its own, so the limit still holds and visitors still get through.
func TestNewVisitorLimitFallsBackToTheNode(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.NewVisitorRate = netlimit.PerMinute(1, 2)
		c.SharedNewVisitorsByAddress = failingLimiter{}
	})
	for i, want := range []string{"ack", "ack", "error"} {
		if f, _ := e.firstMessage("127.0.0.1", "hi"); f.Type != want {
			t.Fatalf("visitor %d: %+v, want %s", i, f, want)
		}
	}
}
