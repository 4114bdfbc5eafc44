package wsconn

import "github.com/gobwas/ws"

// Handler is a protocol on top of a Conn. Opened, Message and Failed are called
// for one Conn one at a time; Closed is called last, once.
type Handler interface {
	// Opened runs before the first frame is read. A greeting that needs a lookup
	// (the web chat's welcome reads the visitor's history) goes here; it may block.
	Opened()
	// Message handles one complete text message (every fragment, valid UTF-8, at
	// most Options.MaxMessageSize bytes). msg is only valid until Message returns:
	// the core reuses its buffer.
	Message(msg []byte)
	// Failed says how to close the connection for f. It may Send a last frame first
	// (an error the protocol explains itself with); the core then calls CloseWith
	// with the answer. It is not called once the connection is closing.
	Failed(f Failure) Close
	// Closed runs once, after the reader and the writer ended and the net.Conn was
	// closed: release what the connection held. It must not block.
	Closed()
}

// Kind is what made the reader stop or refuse.
type Kind uint8

// What a Failure is about.
const (
	// TooBig: a frame or message above Options.MaxMessageSize. The rest is drained.
	TooBig Kind = iota + 1
	// InvalidUTF8: a text message that is not valid UTF-8. The rest is drained.
	InvalidUTF8
	// Binary: a binary message; the protocols on this core speak text only. The
	// message is discarded and reading goes on until the close completes.
	Binary
	// ProtocolError: a frame RFC 6455 forbids (reserved bits or opcodes, an
	// unmasked client frame, a fragmented or oversized control frame, a
	// continuation out of place). The rest is drained.
	ProtocolError
	// Timeout: the read deadline passed (Options.ReadTimeout, or the last
	// ExtendRead). Reading ends.
	Timeout
	// Gone: the peer's stream ended or failed without a close frame. Reading ends.
	Gone
	// PeerClosed: the peer sent a close frame; Failure.Code is its code (CloseNormal
	// when it gave none or a code that must not be sent). Reading goes on until the
	// peer's end or the close grace.
	PeerClosed
)

// String names k for logs and tests.
func (k Kind) String() string {
	switch k {
	case TooBig:
		return "too big"
	case InvalidUTF8:
		return "invalid UTF-8"
	case Binary:
		return "binary"
	case ProtocolError:
		return "protocol error"
	case Timeout:
		return "timeout"
	case Gone:
		return "gone"
	case PeerClosed:
		return "peer closed"
	}
	return "unknown"
}

// Failure is why the reader stopped, or refused a message.
type Failure struct {
	Kind Kind
	Code ws.StatusCode // PeerClosed: the peer's close code
	Err  error         // the read error, when there was one (TooBig, InvalidUTF8, ProtocolError, Timeout, Gone)
}

// Close is how a connection ends: the close frame's code and reason, and whether
// the frames already queued are written before it.
type Close struct {
	Code   ws.StatusCode
	Reason string
	Drain  bool
}

// Close codes the core itself uses (RFC 6455 section 7.4.1).
const (
	CloseNormal    ws.StatusCode = 1000
	CloseGoingAway ws.StatusCode = 1001 // Start refused: the server is shutting down
)
