package socket

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
	"github.com/rs/zerolog"

	"atende/transport/netlimit"
)

// closeGrace bounds the goodbye: writing the close frame after a kick, and waiting
// for the client to close its side once ours is closed.
const closeGrace = time.Second

// conn is one websocket: one Engine.IO session carrying one Socket.IO session on the
// root namespace. Its reader goroutine reads and handles client packets; its writer
// goroutine is the only one that writes to nc. Whichever of the two finishes last
// closes nc and detaches the socket.
type conn struct {
	// static after construction
	srv  *Server
	nc   net.Conn
	src  io.Reader // nc, preceded by any bytes the HTTP server had buffered
	id   string    // Engine.IO sid, the conn_id of the logs
	out  outbox
	done chan struct{}  // closed by closeWith
	pass *netlimit.Pass // the Gate's place, released when the socket ends

	bucket int // the server's ping bucket; guarded by the server's mu

	// owned by the reader goroutine; the fields marked * are written before the hub
	// first sees the socket (join at CONNECT) and only read after.
	queryToken   string    // handshake token=, forgotten at CONNECT
	queryLastSeq string    // handshake lastSeq=
	connected    bool      // CONNECT accepted
	principal    Principal // *
	tenant       int64     // * principal.CompanyID
	lastSeq      int64     // * the client's last sequence number, when replay
	replay       bool      // * the client gave a last sequence number
	resync       string    // * a reason to send resync instead of replaying
	handledAny   bool      // an event went to Config.Events: tell it when the socket ends

	// owned by the hub, guarded by the tenant's lock
	rooms    []Room // joined rooms, company and user rooms included
	mark     int64  // sequence number of the last event delivered (one delivery per event)
	resynced bool   // resync was sent: no further replay
	detached bool   // out of the hub for good

	// closing: closeOnce writes the fields before closing done; read after <-done.
	closeOnce   sync.Once
	closeCode   ws.StatusCode
	closeReason string
	drain       bool // write the pending frames before the close frame

	dlMu    sync.Mutex // guards dlFinal and orders read deadline changes
	dlFinal bool       // the goodbye deadline is set; no more extensions

	exits atomic.Int32 // reader and writer goroutines not yet finished

	expires atomic.Int64 // unix nanoseconds of principal.ExpiresAt, 0 for never; set at CONNECT, read by the pinger
}

func newConn(srv *Server, nc net.Conn, src io.Reader, id string) *conn {
	c := &conn{
		srv:  srv,
		nc:   nc,
		src:  src,
		id:   id,
		out:  newOutbox(srv.cfg.QueueSize),
		done: make(chan struct{}),
	}
	c.exits.Store(2)
	return c
}

// closeWith starts closing the socket, once: the outbox stops accepting frames and
// the writer, after the pending frames if drain, sends a close frame with code and
// reason. Without drain a writer stuck on a peer that does not read gives up within
// closeGrace. Safe from any goroutine and never blocks: the hub calls it under a
// tenant lock.
func (c *conn) closeWith(code ws.StatusCode, reason string, drain bool) {
	c.closeOnce.Do(func() {
		c.closeCode, c.closeReason, c.drain = code, reason, drain
		close(c.done)
		c.out.close() // after done: the writer wakes and sees it
		if !drain && c.nc != nil {
			_ = c.nc.SetWriteDeadline(time.Now().Add(closeGrace))
		}
	})
}

// logAt starts a log line about this socket. No child logger is kept per socket:
// zerolog's With() allocates a 500-byte context that an idle socket would carry.
func (c *conn) logAt(level zerolog.Level) *zerolog.Event {
	return c.srv.log.WithLevel(level).Str("conn_id", c.id)
}

// send queues frames to the socket; a full queue disconnects it (slow consumer).
func (c *conn) send(frames ...[]byte) {
	c.srv.hub.deliver(c, frames...)
}

// closing reports whether closeWith was called.
func (c *conn) closing() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// extendRead moves the read deadline to d from now, unless the goodbye deadline is set.
func (c *conn) extendRead(d time.Duration) {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	if !c.dlFinal {
		_ = c.nc.SetReadDeadline(time.Now().Add(d))
	}
}

// finalRead sets the goodbye read deadline, after which the reader gives up.
func (c *conn) finalRead(d time.Duration) {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	c.dlFinal = true
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
}

// joined counts the rooms c joined by client events. Caller holds the tenant's lock.
func (c *conn) joined() int {
	n := 0
	for _, r := range c.rooms {
		if r.Kind != RoomCompany && r.Kind != RoomUser {
			n++
		}
	}
	return n
}

// exit is deferred by the reader and the writer; the last one out cleans up.
func (c *conn) exit() {
	if c.exits.Add(-1) != 0 {
		return
	}
	_ = c.nc.Close()
	c.pass.Done()
	if c.tenant != 0 {
		c.srv.hub.detach(c)
	}
	// The reader has finished (exits reached 0), so handledAny is safe to read.
	if c.handledAny && c.srv.cfg.Events != nil {
		c.srv.cfg.Events.Closed(connPeer{c})
	}
	c.srv.forget(c)
	ev := c.logAt(zerolog.DebugLevel)
	if c.closeCode != CloseNormal && c.closeCode != CloseGoingAway {
		ev = c.logAt(zerolog.InfoLevel)
	}
	if c.closeCode == CloseSlowConsumer || c.closeCode == CloseInternalError {
		ev = c.logAt(zerolog.WarnLevel)
	}
	ev.Int("close_code", int(c.closeCode)).Str("reason", c.closeReason).
		Int64("user_id", c.principal.UserID).Int64("tenant", c.tenant).Msg("socket closed")
}
