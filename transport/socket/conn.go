package socket

import (
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
	"github.com/rs/zerolog"

	"atende/transport/netlimit"
	"atende/transport/wsconn"
)

// conn is one websocket: one Engine.IO session carrying one Socket.IO session on the
// root namespace, the protocol on top of a wsconn.Conn. The connection's reader
// calls Message for each Engine.IO packet; its writer is the only one that writes.
// Closed runs when both are done and detaches the socket.
type conn struct {
	// static after construction
	srv  *Server
	ws   wsconn.Conn
	id   string         // Engine.IO sid, the conn_id of the logs
	pass *netlimit.Pass // the Gate's place, released when the socket ends

	// owned by the reader; the fields marked * are written before the hub
	// first sees the socket (join at CONNECT) and only read after.
	query     *handshakeQuery // what the handshake's query gave, nil when nothing; forgotten at CONNECT
	principal Principal       // *
	tenant    int64           // * principal.CompanyID
	lastSeq   int64           // * the client's last sequence number, when replay
	resync    string          // * a reason to send resync instead of replaying

	// owned by the hub, guarded by the tenant's lock
	rooms []Room // joined rooms but its company and user rooms (inCompany, inUser): allRooms
	mark  int64  // sequence number of the last event delivered (one delivery per event)

	expires atomic.Int64 // unix nanoseconds of principal.ExpiresAt, 0 for never; set at CONNECT, read by the pinger

	// The flags, together so that they share one word (an idle socket is mostly
	// this struct): each is owned as the groups above say.
	bucket     uint8 // the server's ping bucket; guarded by the server's mu
	connected  bool  // reader: CONNECT accepted
	replay     bool  // reader, *: the client gave a last sequence number
	handledAny bool  // reader: an event went to Config.Events: tell it when the socket ends
	resynced   bool  // hub: resync was sent, no further replay
	detached   bool  // hub: out of the hub for good
	inCompany  bool  // hub: in its company's room (not listed in rooms: every socket but a guest is)
	inUser     bool  // hub: in its own user's room (likewise)
}

// handshakeQuery is what a socket's handshake URL carried for its CONNECT (most
// clients send both in the CONNECT's auth instead): kept apart so that a
// connected socket does not carry the room for them.
type handshakeQuery struct {
	token   string // token=
	lastSeq string // lastSeq=
}

func newConn(srv *Server, nc net.Conn, src io.Reader, id string) *conn {
	c := &conn{srv: srv, id: id}
	c.ws.Init(nc, src, &srv.wsopts, c)
	return c
}

// closeWith starts closing the socket, once (wsconn.Conn.CloseWith). Safe from any
// goroutine and never blocks: the hub calls it under a tenant lock.
func (c *conn) closeWith(code ws.StatusCode, reason string, drain bool) {
	c.ws.CloseWith(code, reason, drain)
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
func (c *conn) closing() bool { return c.ws.Closing() }

// extendRead moves the read deadline to d from now, unless the goodbye deadline is set.
func (c *conn) extendRead(d time.Duration) { c.ws.ExtendRead(d) }

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

// allRooms lists every room c is in: its company and user rooms, then rooms.
// Caller holds the tenant's lock.
func (c *conn) allRooms() []Room {
	out := make([]Room, 0, 2+len(c.rooms))
	if c.inCompany {
		out = append(out, CompanyRoom())
	}
	if c.inUser {
		out = append(out, UserRoom(c.principal.UserID))
	}
	return append(out, c.rooms...)
}

// ownUserRoom reports whether r is the room of c's own user.
func (c *conn) ownUserRoom(r Room) bool {
	return r.Kind == RoomUser && c.principal.UserID > 0 && r.ID == strconv.FormatInt(c.principal.UserID, 10)
}

// Closed runs once the socket's reader and writer are done (wsconn.Handler).
func (c *conn) Closed() {
	c.pass.Done()
	if c.tenant != 0 {
		c.srv.hub.detach(c)
	}
	// The reader has finished, so handledAny is safe to read.
	if c.handledAny && c.srv.cfg.Events != nil {
		c.srv.cfg.Events.Closed(connPeer{c})
	}
	c.srv.forget(c)
	code, reason := c.ws.CloseCode()
	ev := c.logAt(zerolog.DebugLevel)
	if code != CloseNormal && code != CloseGoingAway {
		ev = c.logAt(zerolog.InfoLevel)
	}
	if code == CloseSlowConsumer || code == CloseInternalError {
		ev = c.logAt(zerolog.WarnLevel)
	}
	ev.Int("close_code", int(code)).Str("reason", reason).
		Int64("user_id", c.principal.UserID).Int64("tenant", c.tenant).Msg("socket closed")
}
