package whatsapp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"
	"google.golang.org/protobuf/proto"

	"atende/engine"
	"atende/goroutine"
)

// Channel is one WhatsApp connection: a whatsmeow client on the connection's device.
type Channel struct {
	// static after NewChannel
	conn engine.Connection
	f    *Factory
	log  zerolog.Logger

	mu       sync.Mutex // guards the fields below
	client   Client
	dev      *store.Device
	sink     engine.ChannelSink
	items    chan func(context.Context) // messages, receipts, calls: bounded
	control  []func(context.Context)    // status changes: never dropped (rare by nature)
	wake     chan struct{}              // cap 1: control has work
	cancel   context.CancelFunc
	tr       *goroutine.Group
	stopping bool
	stalled  bool
}

var (
	_ engine.Channel          = (*Channel)(nil)
	_ engine.CredentialWiper  = (*Channel)(nil)
	_ engine.IdempotentSender = (*Channel)(nil)
)

// Start loads the connection's device and connects. An unpaired device gets a QR
// channel first: every code becomes a StatusChange{Status: qrcode}.
func (c *Channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	if sink == nil {
		return errors.New("whatsapp: Start without a sink")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client != nil {
		return nil
	}
	dev, err := c.f.cfg.Devices.Load(ctx, c.conn.ID)
	if err != nil {
		return err
	}
	cli, err := c.f.newClient(dev)
	if err != nil {
		return fmt.Errorf("whatsapp: client of connection %d: %w", c.conn.ID, err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.client, c.dev, c.sink, c.cancel = cli, dev, sink, cancel
	c.items = make(chan func(context.Context), c.f.cfg.QueueSize)
	c.wake = make(chan struct{}, 1)
	c.control, c.stopping, c.stalled = nil, false, false
	c.tr = &goroutine.Group{}
	items, wake, tr := c.items, c.wake, c.tr
	tr.Go(func() { c.drain(runCtx, items, wake) })
	cli.AddEventHandlerWithSuccessStatus(func(evt any) bool {
		// A client left behind by Stop may still dispatch (a late LoggedOut): ignored.
		if c.currentClient() != cli {
			return true
		}
		return c.handle(evt)
	})

	if dev.ID == nil {
		qr, err := cli.GetQRChannel(runCtx)
		if err != nil {
			c.abortLocked()
			return fmt.Errorf("whatsapp: QR channel: %w", err)
		}
		tr.Go(func() { c.readQR(runCtx, qr) })
	} else {
		c.pushControlLocked(c.statusFn(engine.StatusChange{Status: engine.ConnOpening}))
	}
	// Connect dispatches events (to handle, which takes c.mu) before it returns.
	c.mu.Unlock()
	err = cli.Connect()
	c.mu.Lock()
	if err != nil {
		if c.client == cli {
			c.abortLocked()
		}
		return &engine.Error{Code: engine.ErrSendingWappMsg, Cause: fmt.Errorf("whatsapp: connect: %w", err)}
	}
	return nil
}

// abortLocked undoes a half-done Start.
func (c *Channel) abortLocked() {
	c.client.Disconnect()
	c.cancel()
	c.client, c.dev = nil, nil
}

// Stop disconnects. Messages already taken from WhatsApp are handed to the sink
// before Stop returns (or ctx ends).
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	cli, items, cancel, tr := c.client, c.items, c.cancel, c.tr
	if cli == nil {
		c.mu.Unlock()
		return nil
	}
	c.stopping = true
	c.mu.Unlock()

	cli.Disconnect()
	done := make(chan struct{})
	select {
	case items <- func(context.Context) { close(done) }:
		select {
		case <-done:
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
	cancel()
	err := tr.Wait(ctx)
	c.mu.Lock()
	c.client, c.dev = nil, nil
	c.mu.Unlock()
	return err
}

// WipeCredentials logs the device out when it is connected (the phone's "linked
// devices" list loses it) and deletes it from our database either way.
func (c *Channel) WipeCredentials(ctx context.Context) error {
	c.mu.Lock()
	cli, dev := c.client, c.dev
	c.mu.Unlock()
	if cli != nil && cli.IsLoggedIn() {
		if err := cli.Logout(ctx); err != nil {
			c.log.Warn().Err(err).Msg("whatsapp logout failed; deleting the device anyway")
		}
	}
	if cli != nil {
		_ = c.Stop(ctx)
	}
	return c.f.cfg.Devices.Forget(ctx, c.conn.ID, dev)
}

// handle is whatsmeow's event handler. It never blocks: messages, receipts and calls
// go to the bounded queue (a full queue answers false for a message, so whatsmeow
// does not acknowledge it and WhatsApp delivers it again on the next connection);
// session events go to the control list, which is never dropped.
func (c *Channel) handle(evt any) bool {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error().Str("event", fmt.Sprintf("%T", evt)).Interface("panic", r).Msg("whatsapp event handler panicked")
		}
	}()
	switch e := evt.(type) {
	case *events.Message:
		in := convertMessage(e)
		switch in.kind {
		case inMessage:
			return c.enqueue(func(ctx context.Context) { c.deliverInbound(ctx, in) })
		case inRevoke:
			// "Deleted for everyone": the sink marks the stored message deleted. Like a
			// message, a full queue leaves it unacknowledged for WhatsApp to redeliver.
			m := in.msg
			return c.enqueue(func(ctx context.Context) {
				c.retry(ctx, "revoke", func(ctx context.Context) error { return c.sinkNow().Inbound(ctx, m) })
			})
		}
		return true
	case *events.Receipt:
		rs := convertReceipt(e)
		if len(rs) == 0 {
			return true
		}
		return c.enqueue(func(ctx context.Context) {
			for _, r := range rs {
				c.retry(ctx, "receipt", func(ctx context.Context) error { return c.sinkNow().Receipt(ctx, r) })
			}
		})
	case *events.CallOffer:
		if e == nil || e.From.IsEmpty() || e.CallID == "" {
			return true
		}
		from, id := e.From, e.CallID
		if !c.enqueue(func(ctx context.Context) { c.handleCall(ctx, from, id) }) {
			c.log.Warn().Str("call_id", id).Msg("whatsapp queue full; call offer not handled")
		}
		return true
	case *events.PairSuccess:
		if e == nil {
			return true
		}
		jid := e.ID
		c.pushControl(func(ctx context.Context) {
			if err := c.f.cfg.Devices.Bind(ctx, c.conn.ID, jid); err != nil {
				c.log.Error().Err(err).Msg("whatsapp: recording the paired device failed")
			}
			c.status(ctx, engine.StatusChange{Status: engine.ConnPairing, Number: jid.User})
		})
	case *events.Connected:
		c.mu.Lock()
		c.stalled = false
		c.mu.Unlock()
		c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnConnected, Number: c.ownNumber()}))
	case *events.KeepAliveTimeout:
		if e == nil || e.LastSuccess.IsZero() || time.Since(e.LastSuccess) < c.f.cfg.StallAfter {
			return true
		}
		c.mu.Lock()
		first := !c.stalled
		c.stalled = true
		c.mu.Unlock()
		if first {
			c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnStalled,
				Reason: fmt.Sprintf("keepalive failing since %s", e.LastSuccess.UTC().Format(time.RFC3339))}))
		}
	case *events.KeepAliveRestored:
		c.mu.Lock()
		was := c.stalled
		c.stalled = false
		c.mu.Unlock()
		if was {
			c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnConnected, Number: c.ownNumber()}))
		}
	case *events.LoggedOut:
		if e == nil {
			return true
		}
		reason := "logged out: " + e.Reason.String()
		c.pushControl(func(ctx context.Context) {
			c.mu.Lock()
			dev := c.dev
			c.mu.Unlock()
			if err := c.f.cfg.Devices.Forget(ctx, c.conn.ID, dev); err != nil {
				c.log.Error().Err(err).Msg("whatsapp: wiping the logged-out device failed")
			}
			c.status(ctx, engine.StatusChange{Status: engine.ConnDisconnected, Reason: reason})
		})
	case *events.StreamReplaced:
		c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnDisconnected, Reason: "session opened elsewhere"}))
	case *events.TemporaryBan:
		if e == nil {
			return true
		}
		c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnDisconnected, Reason: e.String()}))
	case *events.ClientOutdated:
		c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnDisconnected, Reason: "client outdated"}))
	case *events.Disconnected:
		// A paired session that drops reconnects by itself (whatsmeow's auto-reconnect);
		// during pairing the QR channel reports the drop as a timeout instead.
		c.mu.Lock()
		paired, stopping := c.dev != nil && c.dev.ID != nil, c.stopping
		c.mu.Unlock()
		if paired && !stopping {
			c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnOpening, Reason: "reconnecting"}))
		}
	}
	return true
}

// readQR turns the QR channel's items into status changes.
func (c *Channel) readQR(ctx context.Context, qr <-chan whatsmeow.QRChannelItem) {
	for {
		select {
		case <-ctx.Done():
			return
		case item, ok := <-qr:
			if !ok {
				return
			}
			switch item.Event {
			case whatsmeow.QRChannelEventCode:
				c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnQRCode, QRCode: item.Code}))
			case whatsmeow.QRChannelTimeout.Event:
				c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnTimeout, Reason: "QR code not scanned in time"}))
			case whatsmeow.QRChannelSuccess.Event:
				// PairSuccess already reported PAIRING.
			default:
				reason := item.Event
				if item.Error != nil {
					reason = item.Error.Error()
				}
				c.pushControl(c.statusFn(engine.StatusChange{Status: engine.ConnDisconnected, Reason: "pairing failed: " + reason}))
			}
		}
	}
}

// enqueue hands fn to the drain goroutine without blocking; false when the queue is full.
func (c *Channel) enqueue(fn func(context.Context)) bool {
	c.mu.Lock()
	items := c.items
	c.mu.Unlock()
	if items == nil {
		return false
	}
	select {
	case items <- fn:
		return true
	default:
		c.log.Warn().Msg("whatsapp event queue full; WhatsApp will deliver the message again")
		return false
	}
}

func (c *Channel) pushControl(fn func(context.Context)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pushControlLocked(fn)
}

func (c *Channel) pushControlLocked(fn func(context.Context)) {
	if c.wake == nil {
		return
	}
	c.control = append(c.control, fn)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// drain is the one goroutine that calls the sink, in arrival order within each queue
// (session events first: a QR code must not wait behind a burst of messages).
func (c *Channel) drain(ctx context.Context, items <-chan func(context.Context), wake <-chan struct{}) {
	for {
		c.runControl(ctx)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case fn := <-items:
			c.runControl(ctx)
			fn(ctx)
		}
	}
}

func (c *Channel) runControl(ctx context.Context) {
	for {
		c.mu.Lock()
		if len(c.control) == 0 {
			c.mu.Unlock()
			return
		}
		fn := c.control[0]
		c.control = c.control[1:]
		c.mu.Unlock()
		fn(ctx)
	}
}

func (c *Channel) statusFn(s engine.StatusChange) func(context.Context) {
	return func(ctx context.Context) { c.status(ctx, s) }
}

func (c *Channel) status(ctx context.Context, s engine.StatusChange) {
	c.retry(ctx, "status "+s.Status, func(ctx context.Context) error { return c.sinkNow().Status(ctx, s) })
}

func (c *Channel) sinkNow() engine.ChannelSink {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sink
}

// retry calls fn until it succeeds, up to 5 times with a doubling pause (0.1 s to
// 1.6 s): the sink fails only while the connection's actor moves between nodes.
func (c *Channel) retry(ctx context.Context, what string, fn func(context.Context) error) {
	pause := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		if err == nil {
			return
		}
		if attempt == 5 || ctx.Err() != nil {
			c.log.Error().Err(err).Msg("whatsapp: sink refused " + what + "; dropped")
			return
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
		}
		pause *= 2
	}
}

// PhoneContacts implements engine.ContactLister: the contacts the paired phone
// synced to this device (whatsmeow's contact store), phone numbers only (groups,
// broadcast lists and hidden ids left out), sorted by number. The name is the one
// the phone's owner saved, else the contact's own profile or business name, else the
// number.
func (c *Channel) PhoneContacts(ctx context.Context) ([]engine.PhoneContact, error) {
	c.mu.Lock()
	dev := c.dev
	c.mu.Unlock()
	if dev == nil || dev.ID == nil || dev.Contacts == nil {
		return nil, engine.E(engine.ErrWappNotInitialized)
	}
	all, err := dev.Contacts.GetAllContacts(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the phone's contacts: %w", err)
	}
	out := make([]engine.PhoneContact, 0, len(all))
	for jid, info := range all {
		if jid.Server != types.DefaultUserServer || !isDigits(jid.User) {
			continue
		}
		name := jid.User
		for _, n := range []string{info.FullName, info.FirstName, info.PushName, info.BusinessName} {
			if n = strings.TrimSpace(n); n != "" {
				name = n
				break
			}
		}
		out = append(out, engine.PhoneContact{Number: jid.User, Name: name})
	}
	slices.SortFunc(out, func(a, b engine.PhoneContact) int { return strings.Compare(a.Number, b.Number) })
	return out, nil
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func (c *Channel) ownNumber() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dev == nil || c.dev.ID == nil {
		return ""
	}
	return c.dev.ID.User
}

func (c *Channel) currentClient() Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.client
}

// deliverInbound downloads the media of in (if any) into the media store and hands
// the message to the sink.
func (c *Channel) deliverInbound(ctx context.Context, in inbound) {
	m := in.msg
	if in.media != nil {
		path, typ, name, err := c.fetchMedia(ctx, in)
		if err != nil {
			c.log.Warn().Str("provider_id", m.ProviderID).Err(err).Msg("whatsapp media not stored; message kept without it")
			m.DropMedia()
		} else {
			m.MediaPath, m.MediaType = path, typ
			if m.MediaName == "" {
				m.MediaName = name
			}
		}
	}
	c.retry(ctx, "inbound message", func(ctx context.Context) error { return c.sinkNow().Inbound(ctx, m) })
}

func (c *Channel) fetchMedia(ctx context.Context, in inbound) (path, typ, name string, err error) {
	if c.f.cfg.Media == nil {
		return "", "", "", errors.New("no media store")
	}
	if in.size > uint64(c.f.cfg.MaxMediaBytes) {
		return "", "", "", fmt.Errorf("media of %d bytes is over the limit", in.size)
	}
	cli := c.currentClient()
	if cli == nil {
		return "", "", "", errors.New("not connected")
	}
	data, err := cli.Download(ctx, in.media)
	if err != nil {
		return "", "", "", &engine.Error{Code: engine.ErrWappDownloadMedia, Cause: err}
	}
	f, err := c.f.cfg.Media.Save(ctx, c.conn.CompanyID, bytes.NewReader(data), in.msg.MediaName, in.mime)
	if err != nil {
		return "", "", "", err
	}
	return f.Path, f.Type, f.Name, nil
}

// handleCall rejects a call and tells the caller so when the tenant's acceptCalls
// setting is "disabled" (spec section 2); otherwise the phone keeps ringing.
func (c *Channel) handleCall(ctx context.Context, from types.JID, callID string) {
	if c.f.cfg.Settings == nil {
		return
	}
	s, err := c.f.cfg.Settings.Get(ctx, c.conn.CompanyID, engine.SettingAcceptCalls)
	if err != nil || s.Value != "disabled" {
		return
	}
	cli := c.currentClient()
	if cli == nil {
		return
	}
	if err := cli.RejectCall(ctx, from, callID); err != nil {
		c.log.Warn().Err(err).Msg("whatsapp: rejecting a call failed")
	}
	if c.f.cfg.CallRejectMessage == "" {
		return
	}
	if _, err := cli.SendMessage(ctx, from.ToNonAD(), &waE2E.Message{Conversation: proto.String(c.f.cfg.CallRejectMessage)}); err != nil {
		c.log.Warn().Err(err).Msg("whatsapp: telling the caller calls are not accepted failed")
	}
}

// Send delivers m. Its WhatsApp id is recorded against m.MessageID before the first
// attempt, so every retry (after a timeout or a crash) sends under the same id.
// ResendIsIdempotent implements engine.IdempotentSender: a re-send of one of our
// MessageIDs goes out under the WhatsApp id fixed for it before the first attempt
// (whatsapp_sent), which the recipient's client shows once.
func (c *Channel) ResendIsIdempotent() bool { return true }

func (c *Channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	cli := c.currentClient()
	if cli == nil || !cli.IsLoggedIn() {
		return "", &engine.Error{Code: engine.ErrSendingWappMsg, Cause: errors.New("whatsapp: not connected")}
	}
	to, ok := jidFor(m.To)
	if !ok {
		return "", &engine.Error{Code: engine.ErrWappInvalidContact}
	}
	msg, err := c.build(ctx, cli, to, m)
	if err != nil {
		return "", err
	}
	id, err := c.f.cfg.Devices.SentID(ctx, c.conn.ID, m.MessageID, func() string { return string(cli.GenerateMessageID()) })
	if err != nil {
		return "", &engine.Error{Code: engine.ErrSendingWappMsg, Cause: err}
	}
	if _, err := cli.SendMessage(ctx, to, msg, whatsmeow.SendRequestExtra{ID: types.MessageID(id)}); err != nil {
		return "", &engine.Error{Code: engine.ErrSendingWappMsg, Cause: err}
	}
	return id, nil
}

// build makes the WhatsApp message of m, uploading its media.
func (c *Channel) build(ctx context.Context, cli Client, to types.JID, m engine.OutboundMessage) (*waE2E.Message, error) {
	var ci *waE2E.ContextInfo
	if m.QuotedProviderID != "" {
		ci = &waE2E.ContextInfo{StanzaID: proto.String(m.QuotedProviderID)}
		if to.Server == types.DefaultUserServer {
			// In a one-to-one chat the quoted message is taken to be the customer's.
			ci.Participant = proto.String(to.String())
		}
	}
	if m.MediaType == "" || m.MediaPath == "" {
		if ci == nil {
			return &waE2E.Message{Conversation: proto.String(m.Body)}, nil
		}
		return &waE2E.Message{ExtendedTextMessage: &waE2E.ExtendedTextMessage{Text: proto.String(m.Body), ContextInfo: ci}}, nil
	}
	if c.f.cfg.Media == nil {
		return nil, &engine.Error{Code: engine.ErrSendingWappMsg, Cause: errors.New("whatsapp: no media store")}
	}
	r, file, err := c.f.cfg.Media.Open(ctx, c.conn.CompanyID, m.MediaPath)
	if err != nil {
		return nil, fmt.Errorf("whatsapp: open media %s: %w", m.MediaPath, err)
	}
	data, err := io.ReadAll(io.LimitReader(r, c.f.cfg.MaxMediaBytes+1))
	r.Close()
	if err != nil {
		return nil, &engine.Error{Code: engine.ErrSendingWappMsg, Cause: err}
	}
	if int64(len(data)) > c.f.cfg.MaxMediaBytes {
		return nil, &engine.Error{Code: engine.ErrMediaTooLarge}
	}
	typ := m.MediaType
	if file.Type != "" {
		typ = file.Type
	}
	name := m.MediaName
	if name == "" {
		name = file.Name
	}
	var kind whatsmeow.MediaType
	switch typ {
	case engine.MediaImage:
		kind = whatsmeow.MediaImage
	case engine.MediaAudio:
		kind = whatsmeow.MediaAudio
	case engine.MediaVideo:
		kind = whatsmeow.MediaVideo
	default:
		kind, typ = whatsmeow.MediaDocument, engine.MediaDocument
	}
	up, err := cli.Upload(ctx, data, kind)
	if err != nil {
		return nil, &engine.Error{Code: engine.ErrSendingWappMsg, Cause: fmt.Errorf("whatsapp: upload: %w", err)}
	}
	var caption *string
	if m.Body != "" {
		caption = proto.String(m.Body)
	}
	mime := proto.String(file.MIME)
	switch typ {
	case engine.MediaImage:
		return &waE2E.Message{ImageMessage: &waE2E.ImageMessage{Caption: caption, Mimetype: mime, URL: &up.URL,
			DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256,
			FileLength: &up.FileLength, ContextInfo: ci}}, nil
	case engine.MediaAudio:
		return &waE2E.Message{AudioMessage: &waE2E.AudioMessage{Mimetype: mime, URL: &up.URL,
			DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256,
			FileLength: &up.FileLength, ContextInfo: ci}}, nil
	case engine.MediaVideo:
		return &waE2E.Message{VideoMessage: &waE2E.VideoMessage{Caption: caption, Mimetype: mime, URL: &up.URL,
			DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256,
			FileLength: &up.FileLength, ContextInfo: ci}}, nil
	}
	return &waE2E.Message{DocumentMessage: &waE2E.DocumentMessage{Caption: caption, Mimetype: mime, URL: &up.URL,
		DirectPath: &up.DirectPath, MediaKey: up.MediaKey, FileEncSHA256: up.FileEncSHA256, FileSHA256: up.FileSHA256,
		FileLength: &up.FileLength, FileName: proto.String(name), Title: proto.String(name), ContextInfo: ci}}, nil
}
