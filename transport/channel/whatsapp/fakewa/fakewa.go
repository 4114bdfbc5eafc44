// Package fakewa stands in for WhatsApp's servers and the customer's phone in tests
// that must not reach the internet. Two fakes:
//
// Server (wire.go) is wire level: a TLS websocket speaking WhatsApp Web's frames, Noise
// XX handshake (certificate chain signed by its own root key) and binary XML nodes to
// the real whatsmeow client; it drives pairing (pair-device refs → QR codes; Scan →
// pair-success with a signed, HMAC'd ADV identity → 515 → login → success). It does
// not deliver messages.
//
// Phone (this file) is a seam without a socket: Phone.NewClient wraps a real whatsmeow
// client on the connection's real device store whose Connect dispatches, through
// whatsmeow's own dispatcher, the events the server would cause (events.QR with codes
// in WhatsApp's format, PairSuccess and Connected on a scan); sends succeed and are
// recorded. It serves tests of the send path.
package fakewa

//lint:file-ignore SA1019 the fake client dispatches events through whatsmeow's internals, as its socket reader does

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	waLog "go.mau.fi/whatsmeow/util/log"

	"atende/goroutine"
	"atende/transport/channel/whatsapp"
)

// Phone is the fake WhatsApp: it hands out clients and pairs them on a scan.
type Phone struct {
	mu      sync.Mutex         // guards the fields below
	pending map[string]*Client // QR code → client waiting for a scan
	sent    []Sent
	log     io.Writer     // LogTo's file: every Sent as a JSON line; nil: none
	delay   time.Duration // SlowSends: how long a send takes
}

// Sent is a message a client sent.
type Sent struct {
	To   string `json:"to"`
	ID   string `json:"id"`
	Body string `json:"body"`
}

// New returns a Phone with no clients.
func New() *Phone { return &Phone{pending: make(map[string]*Client)} }

// LogTo appends every message sent from now on to w as a JSON line (a Sent), written
// with one Write before SendMessage returns. With w an O_APPEND file the log outlives
// the process: a test that kills the node with SIGKILL reads what its clients had sent
// (cmd/atende TestCampaignSurvivesKill9).
func (p *Phone) LogTo(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = w
}

// SlowSends makes every send from now on take d before it is recorded, as a slow
// network would: a test then finds sends in flight whenever it looks.
func (p *Phone) SlowSends(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// NewClient is a whatsapp.NewClientFunc.
func (p *Phone) NewClient(dev *store.Device, log waLog.Logger) (whatsapp.Client, error) {
	return &Client{Client: whatsmeow.NewClient(dev, log), phone: p, dev: dev}, nil
}

// Client is a whatsmeow client whose server is the Phone.
type Client struct {
	*whatsmeow.Client
	phone *Phone
	dev   *store.Device

	mu        sync.Mutex // guards the fields below
	connected bool
	loggedIn  bool
	codes     []string
}

var _ whatsapp.Client = (*Client)(nil)

// Connect "opens the socket": an unpaired device gets a pair-device request (QR
// codes), a paired one logs in. Events are dispatched on their own goroutine, as
// whatsmeow's socket reader does.
func (c *Client) Connect() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.connected {
		return whatsmeow.ErrAlreadyConnected
	}
	c.connected = true
	if c.dev.ID != nil {
		c.loggedIn = true
		goroutine.Go(func() { c.DangerousInternals().DispatchEvent(&events.Connected{}) })
		return nil
	}
	c.codes = make([]string, 3)
	for i := range c.codes {
		c.codes[i] = strings.Join([]string{"2@" + randomText(24), base64.StdEncoding.EncodeToString(c.dev.NoiseKey.Pub[:]),
			base64.StdEncoding.EncodeToString(c.dev.IdentityKey.Pub[:]), base64.StdEncoding.EncodeToString(c.dev.AdvSecretKey)}, ",")
	}
	c.phone.mu.Lock()
	for _, code := range c.codes {
		c.phone.pending[code] = c
	}
	c.phone.mu.Unlock()
	codes := append([]string(nil), c.codes...)
	goroutine.Go(func() { c.DangerousInternals().DispatchEvent(&events.QR{Codes: codes}) })
	return nil
}

// Disconnect "closes the socket".
func (c *Client) Disconnect() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.connected, c.loggedIn = false, false
	c.forgetCodesLocked()
}

func (c *Client) forgetCodesLocked() {
	c.phone.mu.Lock()
	for _, code := range c.codes {
		if c.phone.pending[code] == c {
			delete(c.phone.pending, code)
		}
	}
	c.phone.mu.Unlock()
	c.codes = nil
}

// IsConnected reports whether Connect was called and not undone.
func (c *Client) IsConnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected
}

// IsLoggedIn reports whether the device is paired and connected.
func (c *Client) IsLoggedIn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loggedIn
}

// Logout unlinks the device: the store forgets it and LoggedOut is dispatched.
func (c *Client) Logout(ctx context.Context) error {
	c.mu.Lock()
	c.connected, c.loggedIn = false, false
	c.mu.Unlock()
	if c.dev.ID != nil {
		if err := c.dev.Delete(ctx); err != nil {
			return err
		}
	}
	goroutine.Go(func() {
		c.DangerousInternals().DispatchEvent(&events.LoggedOut{Reason: events.ConnectFailureLoggedOut})
	})
	return nil
}

// SendMessage records the message and answers as the server would.
func (c *Client) SendMessage(ctx context.Context, to types.JID, m *waE2E.Message, extra ...whatsmeow.SendRequestExtra) (whatsmeow.SendResponse, error) {
	if !c.IsLoggedIn() {
		return whatsmeow.SendResponse{}, whatsmeow.ErrNotLoggedIn
	}
	id := c.GenerateMessageID()
	if len(extra) > 0 && extra[0].ID != "" {
		id = extra[0].ID
	}
	body := m.GetConversation()
	if body == "" {
		body = m.GetExtendedTextMessage().GetText()
	}
	c.phone.mu.Lock()
	delay := c.phone.delay
	c.phone.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return whatsmeow.SendResponse{}, ctx.Err()
		}
	}
	sent := Sent{To: to.String(), ID: string(id), Body: body}
	c.phone.mu.Lock()
	defer c.phone.mu.Unlock()
	c.phone.sent = append(c.phone.sent, sent)
	if c.phone.log != nil {
		// The message counts as sent only once its line is written: a send that
		// answers success is always on the log.
		line, _ := json.Marshal(sent)
		if _, err := c.phone.log.Write(append(line, '\n')); err != nil {
			return whatsmeow.SendResponse{}, fmt.Errorf("fakewa: log the send: %w", err)
		}
	}
	return whatsmeow.SendResponse{ID: id, Timestamp: time.Now()}, nil
}

// Upload answers a fake media location.
func (c *Client) Upload(ctx context.Context, data []byte, t whatsmeow.MediaType) (whatsmeow.UploadResponse, error) {
	return whatsmeow.UploadResponse{URL: "https://mmg.invalid/fake", DirectPath: "/v/fake", MediaKey: make([]byte, 32), FileLength: uint64(len(data))}, nil
}

// Download has nothing to fetch.
func (c *Client) Download(ctx context.Context, m whatsmeow.DownloadableMessage) ([]byte, error) {
	return nil, whatsmeow.ErrNoURLPresent
}

// RejectCall accepts the rejection.
func (c *Client) RejectCall(ctx context.Context, from types.JID, callID string) error { return nil }

// Scan completes the pairing of the client showing code, as a phone scanning it
// would; it returns the paired JID.
func (p *Phone) Scan(ctx context.Context, code string) (types.JID, error) {
	p.mu.Lock()
	c := p.pending[code]
	p.mu.Unlock()
	if c == nil {
		return types.EmptyJID, fmt.Errorf("fakewa: no client shows that code")
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1e8))
	if err != nil {
		return types.EmptyJID, err
	}
	jid := types.NewADJID(fmt.Sprintf("55119%08d", n.Int64()), 0, 3)
	c.mu.Lock()
	c.forgetCodesLocked()
	c.dev.ID = &jid
	c.dev.Platform = "fakewa"
	c.dev.Account = &waAdv.ADVSignedDeviceIdentity{Details: []byte{0}, AccountSignature: make([]byte, 64),
		AccountSignatureKey: make([]byte, 32), DeviceSignature: make([]byte, 64)}
	c.loggedIn = true
	c.mu.Unlock()
	if err := c.dev.Save(ctx); err != nil {
		return types.EmptyJID, fmt.Errorf("fakewa: store the paired device: %w", err)
	}
	c.DangerousInternals().DispatchEvent(&events.PairSuccess{ID: jid, Platform: "fakewa"})
	c.DangerousInternals().DispatchEvent(&events.Connected{})
	return jid, nil
}

// Sent lists the messages clients sent, in order.
func (p *Phone) Sent() []Sent {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Sent(nil), p.sent...)
}

// ServeHTTP is the control API: POST /scan {"code": "..."} pairs the client showing
// code (404 if none); GET /sent lists sent messages.
func (p *Phone) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/scan":
		var body struct {
			Code string `json:"code"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil || body.Code == "" {
			http.Error(w, "body must be {\"code\": \"...\"}", http.StatusBadRequest)
			return
		}
		jid, err := p.Scan(r.Context(), body.Code)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"jid": jid.String(), "number": jid.User})
	case r.Method == http.MethodGet && r.URL.Path == "/sent":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(p.Sent())
	default:
		http.NotFound(w, r)
	}
}

func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}
