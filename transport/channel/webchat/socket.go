package webchat

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/rs/zerolog"

	"atende/transport/netlimit"
)

// keepBuf is the largest read buffer a socket keeps between messages.
const keepBuf = 4 << 10

// maxRemembered bounds the attendant message ids a socket remembers for read receipts.
const maxRemembered = 512

// socket is one widget websocket. Its reader goroutine sends the welcome, then reads
// and handles client frames; its writer goroutine is the only one that writes to nc.
// Whichever of the two finishes last closes nc and detaches the socket.
type socket struct {
	// static after construction (vis and log are set by attach, before the
	// goroutines start)
	srv    *Server
	ep     *endpoint
	vis    *visitor
	nc     net.Conn
	src    io.Reader // nc, preceded by any bytes the HTTP server had buffered
	token  string    // the visitor token sent in the welcome
	log    zerolog.Logger
	out    outbox
	done   chan struct{}  // closed by closeWith
	frames *bucket        // Config.FrameRate over this socket's frames
	addr   string         // the client address key new visitors are counted under
	pass   *netlimit.Pass // the Gate's place, released when the socket ends
	party  string         // the socket's id as a party of the call relay: "webchat:<random>"

	// owned by the reader goroutine
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

	// closing: closeOnce writes the fields before closing done; read after <-done.
	closeOnce   sync.Once
	closeCode   ws.StatusCode
	closeReason string
	drain       bool // write the pending frames before the close frame

	dlMu    sync.Mutex // guards dlFinal and orders read deadline changes
	dlFinal bool       // the goodbye deadline is set; no more extensions

	exits atomic.Int32 // reader and writer goroutines not yet finished
}

func newSocket(srv *Server, ep *endpoint, nc net.Conn, src io.Reader, token string) *socket {
	now := srv.cfg.Now()
	sk := &socket{
		srv:        srv,
		ep:         ep,
		nc:         nc,
		src:        src,
		token:      token,
		log:        ep.log,
		out:        newOutbox(srv.cfg.QueueSize),
		done:       make(chan struct{}),
		frames:     newBucket(srv.cfg.FrameRate, srv.cfg.FrameBurst, now),
		remembered: make(map[string]struct{}),
		party:      "webchat:" + randomNodeID(),
	}
	sk.lastActive.Store(now.UnixNano())
	sk.exits.Store(2)
	return sk
}

// closeWith starts closing the socket, once: the outbox stops accepting frames and
// the writer, after the pending frames if drain, sends a close frame with code and
// reason. Safe from any goroutine; never blocks.
func (sk *socket) closeWith(code ws.StatusCode, reason string, drain bool) {
	sk.closeOnce.Do(func() {
		sk.closeCode, sk.closeReason, sk.drain = code, reason, drain
		sk.out.close()
		close(sk.done)
		if !drain {
			_ = sk.nc.SetWriteDeadline(time.Now().Add(closeGrace))
		}
	})
}

// send queues a frame; a full queue closes the socket (slow consumer).
func (sk *socket) send(frame []byte) {
	if sk.out.push(frame) == pushFull {
		sk.closeWith(CloseSlowConsumer, "outbound queue full", false)
	}
}

// ID names the socket as a party of the call relay (call.Party); no gateway sid
// has a colon, so the two never meet.
func (sk *socket) ID() string { return sk.party }

// SendCall queues a relay frame as {"type":"call","call":…} (call.Party). A full
// queue closes the socket, as for any frame.
func (sk *socket) SendCall(frame json.RawMessage) bool {
	switch sk.out.push(textFrame(callEvent(frame))) {
	case pushFull:
		sk.closeWith(CloseSlowConsumer, "outbound queue full", false)
		return false
	case pushShut:
		return false
	}
	return true
}

// closing reports whether closeWith was called.
func (sk *socket) closing() bool {
	select {
	case <-sk.done:
		return true
	default:
		return false
	}
}

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

// extendRead moves the read deadline to d from now, unless the goodbye deadline is set.
func (sk *socket) extendRead(d time.Duration) {
	sk.dlMu.Lock()
	defer sk.dlMu.Unlock()
	if !sk.dlFinal {
		_ = sk.nc.SetReadDeadline(time.Now().Add(d))
	}
}

// finalRead sets the goodbye read deadline, after which the reader gives up.
func (sk *socket) finalRead(d time.Duration) {
	sk.dlMu.Lock()
	defer sk.dlMu.Unlock()
	sk.dlFinal = true
	_ = sk.nc.SetReadDeadline(time.Now().Add(d))
}

// exit is deferred by the reader and the writer; the last one out cleans up.
func (sk *socket) exit() {
	if sk.exits.Add(-1) != 0 {
		return
	}
	_ = sk.nc.Close()
	sk.pass.Done()
	sk.srv.detach(sk)
	if r := sk.srv.cfg.Calls; r != nil {
		// A call page that vanished without an end: its peer is told "gone".
		r.Leave(sk)
	}
	ev := sk.log.Debug()
	switch sk.closeCode {
	case CloseNormal, CloseGoingAway, CloseIdle, CloseNotInitialized, ClosePingTimeout:
	case CloseSlowConsumer, CloseInternalError:
		ev = sk.log.Warn()
	default:
		ev = sk.log.Info()
	}
	ev.Int("close_code", int(sk.closeCode)).Str("reason", sk.closeReason).Msg("webchat socket closed")
}

// writeLoop is the socket's writer goroutine: the only code that writes to nc. It
// sends queued frames, a websocket ping every PingInterval (closing an idle socket
// instead), and at the end the close frame.
func (sk *socket) writeLoop() {
	defer sk.exit()
	cfg := sk.srv.cfg
	ping := time.NewTicker(cfg.PingInterval)
	defer ping.Stop()
	pingFrame := ws.MustCompileFrame(ws.NewPingFrame(nil))
	for {
		select {
		case <-sk.out.wake:
			if err := sk.write(sk.out.take(), cfg.WriteTimeout); err != nil {
				sk.writeFailed(err)
				return
			}
		case <-ping.C:
			if idle := cfg.Now().Sub(time.Unix(0, sk.lastActive.Load())); idle > cfg.IdleTimeout {
				sk.closeWith(CloseIdle, "idle", true)
				continue
			}
			if err := sk.write([][]byte{pingFrame}, cfg.WriteTimeout); err != nil {
				sk.writeFailed(err)
				return
			}
		case <-sk.done:
			sk.goodbye()
			return
		}
	}
}

// write sends frames in one writev.
func (sk *socket) write(frames [][]byte, timeout time.Duration) error {
	if len(frames) == 0 {
		return nil
	}
	if err := sk.nc.SetWriteDeadline(time.Now().Add(timeout)); err != nil {
		return err
	}
	bufs := net.Buffers(frames)
	_, err := bufs.WriteTo(sk.nc)
	return err
}

// writeFailed ends the socket after a failed write: the stream may hold half a
// frame, so no close frame follows.
func (sk *socket) writeFailed(err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		sk.closeWith(CloseSlowConsumer, "write timeout", false)
	} else {
		sk.closeWith(CloseNormal, "write failed: "+err.Error(), false)
	}
	sk.finalRead(0)
}

// goodbye runs when closeWith was called: flush what is pending if asked, send the
// close frame, half-close, and give the reader closeGrace to see the widget's end.
func (sk *socket) goodbye() {
	timeout := sk.srv.cfg.WriteTimeout
	if !sk.drain {
		timeout = closeGrace
	}
	var err error
	if sk.drain {
		err = sk.write(sk.out.takeAll(), timeout)
	}
	if err == nil {
		err = sk.write([][]byte{closeFrame(sk.closeCode, sk.closeReason)}, timeout)
	}
	if err != nil {
		sk.finalRead(0)
		return
	}
	if hc, ok := sk.nc.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	sk.finalRead(closeGrace)
}

// readLoop is the socket's reader goroutine: it sends the welcome, then reads
// websocket frames, answers control frames through the writer and handles the
// widget's text frames, one at a time. It ends after the socket started closing and
// the widget closed its side (or the goodbye deadline passed).
func (sk *socket) readLoop() {
	defer sk.exit()
	cfg := sk.srv.cfg
	sk.welcome()
	rd := wsutil.Reader{
		Source:         sk.src,
		State:          ws.StateServerSide,
		CheckUTF8:      true,
		MaxFrameSize:   cfg.MaxFrameSize,
		MaxMessageSize: cfg.MaxFrameSize,
	}
	rd.OnIntermediate = sk.control
	var buf []byte
	for {
		sk.extendRead(cfg.PingInterval + cfg.PongTimeout)
		hdr, err := rd.NextFrame()
		if err != nil {
			sk.readFailed(err)
			return
		}
		switch {
		case hdr.OpCode.IsControl():
			err = sk.control(hdr, &rd)
		case sk.closing():
			err = rd.Discard()
		case hdr.OpCode == ws.OpBinary:
			sk.send(textFrame(errorPayload(errBinary, "")))
			sk.closeWith(CloseUnsupportedData, "binary frames are not supported", true)
			err = rd.Discard()
		default:
			buf, err = readAll(&rd, buf[:0])
			if err == nil {
				sk.handle(buf)
			}
			if cap(buf) > keepBuf {
				buf = nil
			}
		}
		if err != nil {
			sk.readFailed(err)
			return
		}
	}
}

// readAll appends the rest of the current message to buf, growing it as bytes
// arrive (the Reader's MaxMessageSize bounds the total).
func readAll(rd *wsutil.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// control handles a control frame: answer ping with pong, echo close.
func (sk *socket) control(hdr ws.Header, body io.Reader) error {
	var p [125]byte // RFC 6455: control payloads are at most 125 bytes (the Reader checks)
	payload := p[:hdr.Length]
	if _, err := io.ReadFull(body, payload); err != nil {
		return err
	}
	switch hdr.OpCode {
	case ws.OpPing:
		sk.send(ws.MustCompileFrame(ws.NewPongFrame(payload)))
	case ws.OpClose:
		code, _ := ws.ParseCloseFrameData(payload)
		if code.Empty() || code == 1005 || code == 1006 || code == 1015 {
			code = CloseNormal
		}
		sk.closeWith(code, "widget closed the websocket", false)
	}
	return nil
}

// readFailed classifies the error that ended reading and closes accordingly, then
// drains the connection so the close frame reaches a widget still sending.
func (sk *socket) readFailed(err error) {
	var perr ws.ProtocolError
	terminal := false
	switch {
	case sk.closing():
		terminal = true // the goodbye deadline, or the widget's end after our close
	case errors.Is(err, wsutil.ErrFrameTooLarge), errors.Is(err, wsutil.ErrMessageTooLarge):
		sk.send(textFrame(errorPayload(errTooLarge, "")))
		sk.closeWith(CloseMessageTooBig, "frame above MaxFrameSize", true)
	case errors.Is(err, wsutil.ErrInvalidUTF8):
		sk.send(textFrame(errorPayload(errInvalidUTF8, "")))
		sk.closeWith(CloseInvalidPayload, "invalid UTF-8", true)
	case errors.As(err, &perr):
		sk.closeWith(CloseProtocolError, "websocket protocol error: "+string(perr), true)
	case errors.Is(err, os.ErrDeadlineExceeded):
		sk.closeWith(ClosePingTimeout, "ping timeout", false)
		terminal = true // the widget is silent; nothing to drain
	default:
		sk.closeWith(CloseNormal, "widget gone", false)
		terminal = true
	}
	if !terminal {
		_, _ = io.Copy(io.Discard, sk.src) // until the widget closes or the goodbye deadline
	}
}
