// Package wsconn is the server side of one websocket connection, the core the
// realtime gateway (transport/socket, Socket.IO) and the web chat widget's socket
// (transport/channel/webchat) are protocols on top of: the upgrade, the read loop
// (frame header checks, the message size limit, UTF-8 checks, fragmented messages,
// ping/pong/close control frames), read and write deadlines, a bounded outbox of
// complete frames with one writer, and the close: a close frame after the pending
// frames (or not), a half-close, and a grace period for the peer's own close.
//
// # The handler boundary
//
// A protocol implements Handler. The core calls Opened once, then Message for each
// complete text message, one at a time, in order; Failed when reading stops (or a
// message must be refused) and it needs the protocol's close code and reason; and
// Closed once, after everything ended. The protocol writes only by Send (complete,
// unmasked server frames, which are never modified: one frame may be queued to many
// connections) and ends the connection by CloseWith. Nothing in this interface says
// which goroutine reads: with Options.ParkIdle an idle connection holds no goroutine,
// and a reader starts when its socket is readable (parking, park.go;
// docs/architecture.md). Periodic work (pings, idle checks) is the protocol's, done
// for all its connections by one loop: a connection has no timer of its own.
//
// # Concurrency
//
// Handler methods other than Closed run on the connection's reader, one at a time;
// a Message may block (a protocol waits on its sink) and delays only its own
// connection. Send, CloseWith, Closing and ExtendRead are safe from any goroutine
// and never block: a hub may call them under its own lock. Exactly one goroutine,
// the writer, writes to the net.Conn. A connection holds the goroutine.Group given
// to Start from Start to its end (Group.Hold), so its owner's shutdown waits for it;
// a group that is shutting down refuses new connections.
//
// # Overflow
//
// The outbox holds at most Options.QueueSize frames; a Send that would exceed it
// closes the connection with Options.Overflow (no drain: the peer does not read)
// rather than buffering without bound.
package wsconn
