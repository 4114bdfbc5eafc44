package webchat

import (
	"encoding/json"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
	"github.com/rs/zerolog"

	"atende/transport/netlimit"
	"atende/transport/wsconn"
)

// maxRemembered bounds the attendant message ids a socket remembers for read receipts.
const maxRemembered = 512

// socket is one widget websocket, the protocol on top of a wsconn.Conn: the
// connection's reader calls Opened (the welcome), then Message for each frame; its
// writer is the only one that writes, and ticks the socket every PingInterval (a
// websocket ping, or the idle close). Closed runs when both are done and detaches
// the socket.
type socket struct {
	// static after construction (vis and log are set by attach, before the
	// connection starts)
	srv    *Server
	ep     *endpoint
	vis    *visitor
	ws     wsconn.Conn
	token  string // the visitor token sent in the welcome
	log    zerolog.Logger
	frames *bucket        // Config.FrameRate over this socket's frames
	addr   string         // the client address key new visitors are counted under
	pass   *netlimit.Pass // the Gate's place, released when the socket ends
	party  string         // the socket's id as a party of the call relay: "webchat:<random>"

	// owned by the reader
	name    string // from hello
	email   string // from hello; not passed on until engine.ChannelContact has an e-mail
	strikes int    // refused frames in a row
	fresh   bool   // the welcome had no history: the first message starts a conversation
	seed    string // the welcome's proof-of-work challenge; "" when none was asked
	proven  bool   // the challenge was solved

	rememberMu sync.Mutex          // guards remembered and order
	remembered map[string]struct{} // attendant message ids shown on this socket, not yet read
	order      []string            // remembered ids, oldest first

	lastActive atomic.Int64 // unix nanoseconds of the last hello, message or read
}

func newSocket(srv *Server, ep *endpoint, nc net.Conn, src io.Reader, token string) *socket {
	now := srv.cfg.Now()
	sk := &socket{
		srv:        srv,
		ep:         ep,
		token:      token,
		log:        ep.log,
		frames:     newBucket(srv.cfg.FrameRate, srv.cfg.FrameBurst, now),
		remembered: make(map[string]struct{}),
		party:      "webchat:" + randomNodeID(),
	}
	sk.ws.Init(nc, src, &srv.wsopts, sk)
	sk.lastActive.Store(now.UnixNano())
	return sk
}

// closeWith starts closing the socket, once (wsconn.Conn.CloseWith). Safe from any
// goroutine; never blocks.
func (sk *socket) closeWith(code ws.StatusCode, reason string, drain bool) {
	sk.ws.CloseWith(code, reason, drain)
}

// send queues a frame; a full queue closes the socket (slow consumer).
func (sk *socket) send(frame []byte) {
	sk.ws.Send(frame)
}

// ID names the socket as a party of the call relay (call.Party); no gateway sid
// has a colon, so the two never meet.
func (sk *socket) ID() string { return sk.party }

// SendCall queues a relay frame as {"type":"call","call":…} (call.Party). A full
// queue closes the socket, as for any frame.
func (sk *socket) SendCall(frame json.RawMessage) bool {
	return sk.ws.Send(textFrame(callEvent(frame))) == wsconn.Sent
}

// closing reports whether closeWith was called.
func (sk *socket) closing() bool { return sk.ws.Closing() }

// remember notes an attendant message id shown on this socket, so that a read
// frame naming it becomes a receipt.
func (sk *socket) remember(id string) {
	sk.rememberMu.Lock()
	defer sk.rememberMu.Unlock()
	if _, ok := sk.remembered[id]; ok {
		return
	}
	if len(sk.order) >= maxRemembered {
		delete(sk.remembered, sk.order[0])
		sk.order = sk.order[1:]
	}
	sk.remembered[id] = struct{}{}
	sk.order = append(sk.order, id)
}

// forget removes id and reports whether it was remembered.
func (sk *socket) forget(id string) bool {
	sk.rememberMu.Lock()
	defer sk.rememberMu.Unlock()
	if _, ok := sk.remembered[id]; !ok {
		return false
	}
	delete(sk.remembered, id)
	for i, v := range sk.order {
		if v == id {
			sk.order = append(sk.order[:i], sk.order[i+1:]...)
			break
		}
	}
	return true
}

// Opened sends the welcome (wsconn.Handler).
func (sk *socket) Opened() { sk.welcome() }

// Message handles one text frame (wsconn.Handler).
func (sk *socket) Message(msg []byte) { sk.handle(msg) }

// tick closes a socket whose visitor has been idle for IdleTimeout, and otherwise
// sends a websocket ping (pingLoop, every PingInterval).
func (sk *socket) tick() {
	cfg := sk.srv.cfg
	if idle := cfg.Now().Sub(time.Unix(0, sk.lastActive.Load())); idle > cfg.IdleTimeout {
		sk.closeWith(CloseIdle, "idle", true)
		return
	}
	sk.send(wsconn.PingFrame)
}

// Failed answers how the socket closes when reading stops, after an error frame
// where the widget shows one (wsconn.Handler).
func (sk *socket) Failed(f wsconn.Failure) wsconn.Close {
	switch f.Kind {
	case wsconn.TooBig:
		sk.send(textFrame(errorPayload(errTooLarge, "")))
		return wsconn.Close{Code: CloseMessageTooBig, Reason: "frame above MaxFrameSize", Drain: true}
	case wsconn.InvalidUTF8:
		sk.send(textFrame(errorPayload(errInvalidUTF8, "")))
		return wsconn.Close{Code: CloseInvalidPayload, Reason: "invalid UTF-8", Drain: true}
	case wsconn.Binary:
		sk.send(textFrame(errorPayload(errBinary, "")))
		return wsconn.Close{Code: CloseUnsupportedData, Reason: "binary frames are not supported", Drain: true}
	case wsconn.ProtocolError:
		return wsconn.Close{Code: CloseProtocolError, Reason: "websocket protocol error: " + f.Err.Error(), Drain: true}
	case wsconn.Timeout:
		return wsconn.Close{Code: ClosePingTimeout, Reason: "ping timeout"} // the widget is silent
	case wsconn.PeerClosed:
		return wsconn.Close{Code: f.Code, Reason: "widget closed the websocket"}
	}
	return wsconn.Close{Code: CloseNormal, Reason: "widget gone"}
}

// Closed runs once the socket's reader and writer are done (wsconn.Handler).
func (sk *socket) Closed() {
	sk.pass.Done()
	sk.srv.detach(sk)
	if r := sk.srv.cfg.Calls; r != nil {
		// A call page that vanished without an end: its peer is told "gone".
		r.Leave(sk)
	}
	code, reason := sk.ws.CloseCode()
	ev := sk.log.Debug()
	switch code {
	case CloseNormal, CloseGoingAway, CloseIdle, CloseNotInitialized, ClosePingTimeout:
	case CloseSlowConsumer, CloseInternalError:
		ev = sk.log.Warn()
	default:
		ev = sk.log.Info()
	}
	ev.Int("close_code", int(code)).Str("reason", reason).Msg("webchat socket closed")
}
