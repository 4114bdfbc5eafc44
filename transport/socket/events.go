package socket

import (
	"context"
	"encoding/json"

	"atende/transport/socket/sio"
)

// Peer is one connected socket as an EventHandler sees it.
type Peer interface {
	// ID names the socket on this node (its Engine.IO sid).
	ID() string
	// Principal is who the socket belongs to.
	Principal() Principal
	// Emit queues the event 42[name,payload] to this socket alone. It carries no
	// sequence number and is never replayed: it is for messages that mean nothing
	// after a reconnect (call signalling). A full queue disconnects the socket
	// (slow consumer). It reports whether the frame was queued.
	Emit(name string, payload json.RawMessage) bool
}

// EventHandler serves client events the gateway does not handle itself (package
// call's signalling). Config.Events is optional.
type EventHandler interface {
	// Handles reports whether name is one of the handler's events.
	Handles(name string) bool
	// HandleEvent handles one event of p. Its result is the ack's argument when the
	// client asked for one ({"ok":true} when nil); an error answers
	// {"error":code} with engine.CodeOf(err). Called from the socket's reader
	// goroutine with a context bounded by Config.AuthTimeout; it must not block
	// longer.
	HandleEvent(ctx context.Context, p Peer, name string, args []json.RawMessage) (json.RawMessage, error)
	// Closed tells that p is gone (after any HandleEvent of it returned). Called
	// once per connected socket, from the socket's last goroutine; it must not block.
	Closed(p Peer)
}

// connPeer is a conn seen through Peer.
type connPeer struct{ c *conn }

func (p connPeer) ID() string           { return p.c.id }
func (p connPeer) Principal() Principal { return p.c.principal }
func (p connPeer) Emit(name string, payload json.RawMessage) bool {
	return p.c.srv.hub.deliver(p.c, textFrame(sio.AppendEvent(nil, name, payload)))
}
