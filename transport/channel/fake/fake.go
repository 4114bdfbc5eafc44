package fake

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"atende/engine"
)

// ErrNotStarted is returned by the Inject methods of a fake that is not started (the
// provider has no session to deliver on).
var ErrNotStarted = errors.New("fake channel: not started")

// Options configures a fake. The zero value is a fake that accepts every send.
type Options struct {
	// FailFirst makes the first FailFirst calls to Send fail with an error wrapping
	// engine.ErrChannelTemporary.
	FailFirst int
	// Duplicate delivers every injected inbound message twice (provider redelivery).
	Duplicate bool
	// SendError, when set, is asked about every send after the FailFirst ones; a
	// non-nil answer fails that send with it.
	SendError func(m engine.OutboundMessage) error
	// StartError makes Start fail with it.
	StartError error
	// Now stamps injected inbound messages that have no At. Nil: a fixed clock
	// starting at 2026-01-01T12:00:00Z that advances one second per message, so runs
	// are reproducible.
	Now func() time.Time
}

// Sent is one successful send.
type Sent struct {
	Message    engine.OutboundMessage
	ProviderID string
}

// Channel is the fake. Build it with New.
type Channel struct {
	// static after construction
	opts Options

	mu       sync.Mutex // guards the fields below
	sink     engine.ChannelSink
	started  bool
	starts   int           // successful Start calls
	stops    int           // Stop calls
	attempts int           // Send calls, failed ones included
	sent     []Sent        // successful sends, in order
	inbound  int           // inbound messages injected (for ids and the clock)
	changed  chan struct{} // closed and replaced whenever sent or started changes
}

var _ engine.Channel = (*Channel)(nil)

// New builds a fake with opts.
func New(opts Options) *Channel {
	return &Channel{opts: opts, changed: make(chan struct{})}
}

// notify wakes the Wait calls. Caller holds c.mu.
func (c *Channel) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Start records sink (replacing the one of a previous owner) and returns
// Options.StartError.
func (c *Channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	if sink == nil {
		return errors.New("fake channel start: nil sink")
	}
	if c.opts.StartError != nil {
		return fmt.Errorf("fake channel start: %w", c.opts.StartError)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sink, c.started = sink, true
	c.starts++
	c.notify()
	return nil
}

// Stop ends the session: Inject calls fail until the next Start. Sends still work
// (an actor that sends after Stop is a bug the test should see in Sent, not a panic).
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sink, c.started = nil, false
	c.stops++
	c.notify()
	return nil
}

// Send records m and answers "fake-out:<n>", n counting successful sends from 1,
// unless it is one of the first Options.FailFirst sends or Options.SendError fails it.
func (c *Channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("fake channel send: %w", err)
	}
	c.mu.Lock()
	c.attempts++
	if c.attempts <= c.opts.FailFirst {
		n := c.attempts
		c.mu.Unlock()
		return "", fmt.Errorf("fake channel send: failure %d of %d: %w", n, c.opts.FailFirst, engine.ErrChannelTemporary)
	}
	c.mu.Unlock()
	if c.opts.SendError != nil {
		if err := c.opts.SendError(m); err != nil {
			return "", err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	id := "fake-out:" + strconv.Itoa(len(c.sent)+1)
	c.sent = append(c.sent, Sent{Message: m, ProviderID: id})
	c.notify()
	return id, nil
}

// Sent is a copy of the successful sends, in order.
func (c *Channel) Sent() []Sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Sent(nil), c.sent...)
}

// Attempts is the number of Send calls, failed ones included.
func (c *Channel) Attempts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attempts
}

// Started reports whether the fake is started.
func (c *Channel) Started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

// Starts counts the successful Start calls.
func (c *Channel) Starts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts
}

// Stops counts the Stop calls.
func (c *Channel) Stops() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stops
}

// WaitSent blocks until at least n sends succeeded, and returns them; or ctx's error.
func (c *Channel) WaitSent(ctx context.Context, n int) ([]Sent, error) {
	for {
		c.mu.Lock()
		if len(c.sent) >= n {
			out := append([]Sent(nil), c.sent...)
			c.mu.Unlock()
			return out, nil
		}
		changed := c.changed
		have := len(c.sent)
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("fake channel: %d of %d sends: %w", have, n, ctx.Err())
		}
	}
}

// WaitStarted blocks until the fake is started, or ctx is done.
func (c *Channel) WaitStarted(ctx context.Context) error {
	for {
		c.mu.Lock()
		started, changed := c.started, c.changed
		c.mu.Unlock()
		if started {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("fake channel: not started: %w", ctx.Err())
		}
	}
}

// currentSink is the started sink, or ErrNotStarted.
func (c *Channel) currentSink() (engine.ChannelSink, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return nil, ErrNotStarted
	}
	return c.sink, nil
}

// Text builds the n-th inbound text message of a conversation: ProviderID
// "fake-in:<from>:<n>", so that tests name messages without bookkeeping.
func Text(from string, n int, body string) engine.InboundMessage {
	return engine.InboundMessage{
		ProviderID: "fake-in:" + from + ":" + strconv.Itoa(n),
		From:       engine.ChannelContact{Number: from, Name: "Contact " + from},
		Body:       body,
	}
}

// InjectInbound delivers m to the sink as the provider would (twice with
// Options.Duplicate) and returns the sink's error. A message without ProviderID gets
// "fake-in:<n>", one without At the fake's clock.
func (c *Channel) InjectInbound(ctx context.Context, m engine.InboundMessage) error {
	sink, err := c.currentSink()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.inbound++
	n := c.inbound
	c.mu.Unlock()
	if m.ProviderID == "" {
		m.ProviderID = "fake-in:" + strconv.Itoa(n)
	}
	if m.At.IsZero() {
		m.At = c.now(n)
	}
	deliveries := 1
	if c.opts.Duplicate {
		deliveries = 2
	}
	for i := range deliveries {
		if err := sink.Inbound(ctx, m); err != nil {
			return fmt.Errorf("fake channel inbound %s (delivery %d): %w", m.ProviderID, i+1, err)
		}
	}
	return nil
}

// now is the stamp of the n-th injected message.
func (c *Channel) now(n int) time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Second)
}

// InjectReceipt delivers r to the sink.
func (c *Channel) InjectReceipt(ctx context.Context, r engine.Receipt) error {
	sink, err := c.currentSink()
	if err != nil {
		return err
	}
	if err := sink.Receipt(ctx, r); err != nil {
		return fmt.Errorf("fake channel receipt %s: %w", r.ProviderID, err)
	}
	return nil
}

// InjectStatus delivers s to the sink.
func (c *Channel) InjectStatus(ctx context.Context, s engine.StatusChange) error {
	sink, err := c.currentSink()
	if err != nil {
		return err
	}
	if err := sink.Status(ctx, s); err != nil {
		return fmt.Errorf("fake channel status %s: %w", s.Status, err)
	}
	return nil
}

// InjectQRCode delivers a qrcode status with code, as a WhatsApp session waiting to
// be paired does.
func (c *Channel) InjectQRCode(ctx context.Context, code string) error {
	return c.InjectStatus(ctx, engine.StatusChange{Status: engine.ConnQRCode, QRCode: code})
}

// InjectConnected delivers a CONNECTED status with the paired number.
func (c *Channel) InjectConnected(ctx context.Context, number string) error {
	return c.InjectStatus(ctx, engine.StatusChange{Status: engine.ConnConnected, Number: number})
}
