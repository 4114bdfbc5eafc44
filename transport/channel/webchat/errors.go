package webchat

import (
	"errors"

	"github.com/gobwas/ws"
)

// Close codes the web chat ends a socket with. The widget reconnects with backoff
// after any of them, except as noted.
const (
	CloseNormal          ws.StatusCode = 1000 // the widget closed
	CloseGoingAway       ws.StatusCode = 1001 // server shutting down
	CloseProtocolError   ws.StatusCode = 1002 // websocket protocol error
	CloseUnsupportedData ws.StatusCode = 1003 // binary frame (the protocol is JSON text)
	CloseInvalidPayload  ws.StatusCode = 1007 // text frame that is not valid UTF-8
	ClosePolicyViolation ws.StatusCode = 1008 // Config.MaxStrikes refused frames in a row
	CloseMessageTooBig   ws.StatusCode = 1009 // frame above Config.MaxFrameSize
	CloseInternalError   ws.StatusCode = 1011 // the server failed
	ClosePingTimeout     ws.StatusCode = 4001 // nothing received for PingInterval+PongTimeout
	CloseIdle            ws.StatusCode = 4002 // no visitor activity for IdleTimeout; the widget reconnects when its page is visible
	CloseNotInitialized  ws.StatusCode = 4004 // the connection is not started (or was stopped); slow retries
	CloseSlowConsumer    ws.StatusCode = 4008 // outbound queue full
	CloseTooManySockets  ws.StatusCode = 4009 // the visitor has MaxSocketsPerVisitor sockets open
)

// ErrClosed is returned by Channel.Start once the Server is shut down.
var ErrClosed = errors.New("webchat: server closed")
