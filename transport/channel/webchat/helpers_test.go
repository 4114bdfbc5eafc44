package webchat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"atende/engine"
)

var testSecret = []byte("webchat-test-secret-0123456789abcdef")

// journal is the test's stand-in for the server's side: a sink that records inbound
// messages durably (de-duplicated on ProviderID), receipts and statuses, and a
// History over what it recorded plus what the test sent.
type journal struct {
	mu       sync.Mutex
	seen     map[string]bool
	inbound  []engine.InboundMessage
	calls    map[string]int // Inbound calls per ProviderID, duplicates included
	receipts []engine.Receipt
	statuses []engine.StatusChange
	items    map[string][]HistoryItem // by visitor number
	nextID   engine.ID

	gate    chan struct{} // when set, Inbound waits for a value (or ctx) before recording
	entered chan string   // when set, Inbound reports each ProviderID it starts on
	fail    []error       // errors the next Inbound calls return, in order
}

func newJournal() *journal {
	return &journal{seen: map[string]bool{}, calls: map[string]int{}, items: map[string][]HistoryItem{}}
}

func (j *journal) Inbound(ctx context.Context, m engine.InboundMessage) error {
	j.mu.Lock()
	gate, entered := j.gate, j.entered
	j.calls[m.ProviderID]++
	var fail error
	if len(j.fail) > 0 {
		fail, j.fail = j.fail[0], j.fail[1:]
	}
	j.mu.Unlock()
	if entered != nil {
		entered <- m.ProviderID
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if fail != nil {
		return fail
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.seen[m.ProviderID] {
		j.seen[m.ProviderID] = true
		j.inbound = append(j.inbound, m)
		j.nextID++
		j.items[m.From.Number] = append(j.items[m.From.Number], HistoryItem{
			MessageID: j.nextID, ProviderID: m.ProviderID, Body: m.Body, At: m.At,
		})
	}
	return nil
}

func (j *journal) Receipt(ctx context.Context, r engine.Receipt) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.receipts = append(j.receipts, r)
	return nil
}

func (j *journal) Status(ctx context.Context, s engine.StatusChange) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.statuses = append(j.statuses, s)
	return nil
}

func (j *journal) History(ctx context.Context, connectionID engine.ID, number string, limit int) ([]HistoryItem, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	items := j.items[number]
	if len(items) > limit {
		items = items[len(items)-limit:]
	}
	return append([]HistoryItem(nil), items...), nil
}

// outbound records an attendant message as the journal would before the actor
// sends it, and returns its id.
func (j *journal) outbound(number, body string, at time.Time) engine.ID {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.nextID++
	j.items[number] = append(j.items[number], HistoryItem{MessageID: j.nextID, FromMe: true, Body: body, At: at})
	return j.nextID
}

// sent notes the provider id the channel answered for message id.
func (j *journal) sent(number string, id engine.ID, providerID string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i, it := range j.items[number] {
		if it.MessageID == id {
			j.items[number][i].ProviderID = providerID
		}
	}
}

func (j *journal) snapshot() (inbound []engine.InboundMessage, receipts []engine.Receipt, statuses []engine.StatusChange) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append(inbound, j.inbound...), append(receipts, j.receipts...), append(statuses, j.statuses...)
}

func (j *journal) callsFor(providerID string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.calls[providerID]
}

// env is a running web chat: a Server on 127.0.0.1, one started connection.
type env struct {
	t    *testing.T
	srv  *Server
	http *httptest.Server
	j    *journal
	conn engine.Connection
	ch   engine.Channel
}

func newEnv(t *testing.T, mutate func(*Config)) *env {
	t.Helper()
	j := newJournal()
	cfg := Config{Secret: testSecret, History: j}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/webchat/", srv)
	hs := httptest.NewServer(mux)
	e := &env{t: t, srv: srv, http: hs, j: j, conn: engine.Connection{ID: 7, CompanyID: 3, Channel: engine.ChannelSocket}}
	e.ch, err = srv.NewChannel(e.conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.ch.Start(context.Background(), j); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Close()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return e
}

// url is the websocket URL of connection c with token v ("" for none).
func (e *env) url(c, v string) string {
	u := "ws" + strings.TrimPrefix(e.http.URL, "http") + "/webchat/ws?c=" + c
	if v != "" {
		u += "&v=" + v
	}
	return u
}

// send has the channel deliver an attendant message, recording it as the journal
// would, and returns the provider id.
func (e *env) send(number, body string) string {
	e.t.Helper()
	id := e.j.outbound(number, body, time.Now())
	pid, err := e.ch.Send(context.Background(), engine.OutboundMessage{MessageID: id, To: number, Body: body})
	if err != nil {
		e.t.Fatalf("Send: %v", err)
	}
	if want := "wc-out:" + strconv.FormatInt(id, 10); pid != want {
		e.t.Fatalf("Send answered %q, want %q", pid, want)
	}
	e.j.sent(number, id, pid)
	return pid
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// serverFrame is any frame the server sends.
type serverFrame struct {
	Type     string            `json:"type"`
	Visitor  string            `json:"visitor"`
	History  []messageFrame    `json:"history"`
	ID       string            `json:"id"`
	Body     string            `json:"body"`
	FromMe   bool              `json:"fromMe"`
	At       time.Time         `json:"at"`
	Media    *Media            `json:"media"`
	Code     string            `json:"code"`
	Fields   map[string]string `json:"fields"`
	TimeZone string            `json:"timeZone"`
	Limit    string            `json:"limit"`
	Retry    int               `json:"retryAfter"`
	Expected int64             `json:"expected"` // ERR_OUT_OF_ORDER's next seq
	// call.joined's, and a call frame's relay payload.
	CallID     string          `json:"callId"`
	Role       string          `json:"role"`
	ICEServers json.RawMessage `json:"iceServers"`
	Call       map[string]any  `json:"call"`
	// Challenge is a welcome's proof of work.
	Challenge *struct {
		Seed string `json:"seed"`
		Bits int    `json:"bits"`
	} `json:"challenge"`
}

// client is a raw gobwas/ws client, as a widget.
type client struct {
	t    *testing.T
	conn net.Conn
	rw   io.ReadWriter
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, br, _, err := ws.Dialer{}.Dial(ctx, url)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	var r io.Reader = conn
	if br != nil {
		r = br
	}
	c := &client{t: t, conn: conn, rw: struct {
		io.Reader
		io.Writer
	}{r, conn}}
	t.Cleanup(func() { _ = conn.Close() })
	return c
}

// write sends v as a JSON text frame.
func (c *client) write(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.writeRaw(ws.OpText, b)
}

// writeRaw sends one masked client frame.
func (c *client) writeRaw(op ws.OpCode, payload []byte) {
	c.t.Helper()
	_ = c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := wsutil.WriteClientMessage(c.conn, op, payload); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next reads the next server frame, answering pings. A close frame ends the test
// unless it is expected: use closed.
func (c *client) next() serverFrame {
	c.t.Helper()
	f, code, err := c.read()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if code != 0 {
		c.t.Fatalf("socket closed with %d, wanted a frame", code)
	}
	return f
}

// read reads a frame or the close frame (code != 0).
func (c *client) read() (serverFrame, ws.StatusCode, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	data, _, err := wsutil.ReadServerData(c.rw)
	var closed wsutil.ClosedError
	if errors.As(err, &closed) {
		return serverFrame{}, closed.Code, nil
	}
	if err != nil {
		return serverFrame{}, 0, err
	}
	var f serverFrame
	if err := json.Unmarshal(data, &f); err != nil {
		return serverFrame{}, 0, fmt.Errorf("server frame %q: %w", data, err)
	}
	return f, 0, nil
}

// expect reads the next frame and checks its type.
func (c *client) expect(typ string) serverFrame {
	c.t.Helper()
	f := c.next()
	if f.Type != typ {
		c.t.Fatalf("got a %q frame %+v, want %q", f.Type, f, typ)
	}
	return f
}

// closed reads frames until the close frame and returns its code and the frames
// before it.
func (c *client) closed() (ws.StatusCode, []serverFrame) {
	c.t.Helper()
	var before []serverFrame
	for {
		f, code, err := c.read()
		if err != nil {
			c.t.Fatalf("read until close: %v", err)
		}
		if code != 0 {
			_ = c.conn.Close() // as a browser does once the close handshake is done
			return code, before
		}
		before = append(before, f)
	}
}

// connect dials with token v and reads the welcome.
func (e *env) connect(v string) (*client, serverFrame) {
	e.t.Helper()
	c := dial(e.t, e.url("7", v))
	w := c.expect("welcome")
	if len(w.Visitor) != tokenLen {
		e.t.Fatalf("welcome token %q", w.Visitor)
	}
	if want := e.zone(); w.TimeZone != want {
		e.t.Fatalf("welcome time zone %q, want the tenant's %q", w.TimeZone, want)
	}
	return c, w
}

// zone is the welcome's expected time zone: the configured tenant zone, else the
// default.
func (e *env) zone() string {
	if e.srv.cfg.ZoneName != nil {
		return e.srv.cfg.ZoneName(context.Background(), e.conn.CompanyID)
	}
	return engine.QueueTimeZone
}

// vidOf is the visitor id of a token.
func vidOf(token string) string { return token[:visitorIDLen] }
