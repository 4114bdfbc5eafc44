package webchat

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"atende/engine"
)

// Channel is the engine.Channel of one web chat connection. Build it with
// NewChannel (or Server.NewChannel, the ChannelFactory form).
type Channel struct {
	// static after construction
	srv  *Server
	conn engine.Connection

	mu sync.Mutex // guards ep
	ep *endpoint  // nil when not started
}

var (
	_ engine.Channel          = (*Channel)(nil)
	_ engine.IdempotentSender = (*Channel)(nil)
	_ engine.ChannelEnder     = (*Channel)(nil)
)

// NewChannel builds the Channel of connection conn on srv. Nothing happens until
// Start.
func NewChannel(srv *Server, conn engine.Connection) engine.Channel {
	return &Channel{srv: srv, conn: conn}
}

// NewChannel makes Server an engine.ChannelFactory for connections whose Channel is
// engine.ChannelSocket.
func (s *Server) NewChannel(conn engine.Connection) (engine.Channel, error) {
	if conn.Channel != engine.ChannelSocket {
		return nil, fmt.Errorf("webchat: connection %d speaks %q, not %q", conn.ID, conn.Channel, engine.ChannelSocket)
	}
	if conn.ID <= 0 {
		return nil, errors.New("webchat: connection without id")
	}
	return NewChannel(s, conn), nil
}

// Start accepts the connection's visitors from now on and hands what they say to
// sink. It returns at once; a CONNECTED status follows through sink.Status, from
// another goroutine (the web chat needs no pairing). Calling Start again replaces the
// sink; a Channel of the same connection that was never stopped is stopped (its
// sockets closed): the last owner wins.
func (c *Channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	if sink == nil {
		return errors.New("webchat start: nil sink")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("webchat start: %w", err)
	}
	ep, err := c.srv.start(c.conn, sink)
	if err != nil {
		return fmt.Errorf("webchat start connection %d: %w", c.conn.ID, err)
	}
	c.mu.Lock()
	c.ep = ep
	c.mu.Unlock()
	c.srv.goroutines.Go(func() {
		if ep.ctx.Err() != nil {
			return
		}
		sctx, cancel := context.WithTimeout(ep.ctx, c.srv.cfg.SinkTimeout)
		defer cancel()
		err := sink.Status(sctx, engine.StatusChange{Status: engine.ConnConnected, Reason: "web chat ready"})
		if err != nil && ep.ctx.Err() == nil {
			ep.log.Warn().Err(err).Msg("webchat status not recorded")
		}
	})
	return nil
}

// Send delivers an attendant's message to every open socket of the visitor m.To
// names ("webchat:<visitorId>") and answers "wc-out:<MessageID>". A visitor with no
// socket open gets it with the history of its next welcome: Send succeeds all the
// same, the message being durable in the journal. Sending the same MessageID again
// delivers a frame with the same id, which the widget shows once.
//
// Errors: engine.ErrWappInvalidContact for a To that is not a web chat visitor,
// ErrValidation for a message without MessageID, and an error wrapping
// engine.ErrChannelTemporary when the channel is not started.
func (c *Channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	c.mu.Lock()
	ep := c.ep
	c.mu.Unlock()
	if ep == nil || c.srv.stopped(ep) {
		return "", fmt.Errorf("webchat send: connection %d not started: %w", c.conn.ID, engine.ErrChannelTemporary)
	}
	vid, ok := visitorOf(m.To)
	if !ok {
		return "", engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("webchat send: %q is not a web chat visitor", m.To))
	}
	if m.MessageID <= 0 {
		return "", &engine.Error{Code: engine.ErrValidation, Fields: map[string]string{"messageId": engine.MsgRequired}}
	}
	id := outboundID(m.MessageID)
	payload := encode(messageFrame{
		Type:   "message",
		ID:     id,
		Body:   m.Body,
		FromMe: true,
		At:     stamp(c.srv.cfg.Now()),
		Media:  c.srv.media(ep, m.MediaType, m.MediaPath, m.MediaName),
	})
	if cl := c.srv.cfg.Cluster; cl != nil {
		// The visitor's sockets may be on any node: every node delivers to its own.
		err := cl.Publish(ctx, Delivery{ConnectionID: c.conn.ID, Visitor: vid, ID: id, Frame: payload})
		if err != nil {
			return "", fmt.Errorf("webchat send: publish: %v: %w", err, engine.ErrChannelTemporary)
		}
		return id, nil
	}
	frame := textFrame(payload)
	for _, sk := range c.srv.socketsOf(ep, vid) {
		sk.remember(id)
		sk.send(frame)
	}
	return id, nil
}

// ResendIsIdempotent implements engine.IdempotentSender: a re-send carries the same
// frame id ("wc-out:<MessageID>"), and the widget shows an id once (its shown map;
// after a reload the history comes from the journal, one entry per message).
func (c *Channel) ResendIsIdempotent() bool { return true }

// Stop closes the connection's sockets on this node (ERR_WAPP_NOT_INITIALIZED,
// then CloseNotInitialized) and refuses its visitors until the next Start. Sink
// calls in flight are cancelled, not awaited. In cluster mode the visitors are
// attached to every node, the connection's actor wherever it runs: Stop (a
// hand-over, a drain) leaves them be, End closes them everywhere.
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	ep := c.ep
	c.ep = nil
	c.mu.Unlock()
	if ep != nil {
		c.srv.stop(ep)
	}
	return nil
}

// End implements engine.ChannelEnder: Stop, and in cluster mode a stop Delivery
// that closes the connection's visitors on every node (at most once, like every
// delivery; a node the bus missed finds the connection stopped at the next lookup).
func (c *Channel) End(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil {
		return err
	}
	if cl := c.srv.cfg.Cluster; cl != nil {
		if err := cl.Publish(ctx, Delivery{ConnectionID: c.conn.ID, Stop: true}); err != nil {
			return fmt.Errorf("webchat end connection %d: publish: %w", c.conn.ID, err)
		}
	}
	return nil
}
