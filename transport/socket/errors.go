package socket

import (
	"errors"

	"github.com/gobwas/ws"
)

// Close codes the gateway ends a websocket with. socket.io-client treats every
// transport close as "transport close" and reconnects with backoff (then re-joins
// and is replayed what it missed), except after a DISCONNECT packet "41", which the
// server sends only when the session itself is over (Server.Disconnect).
const (
	CloseNormal          ws.StatusCode = 1000 // client sent 41 or an Engine.IO close; Server.Disconnect
	CloseGoingAway       ws.StatusCode = 1001 // server shutting down
	CloseProtocolError   ws.StatusCode = 1002 // malformed or unexpected Engine.IO / Socket.IO packet
	CloseUnsupportedData ws.StatusCode = 1003 // binary frame, or binary packet (types 5, 6)
	CloseInvalidPayload  ws.StatusCode = 1007 // text frame that is not valid UTF-8
	ClosePolicyViolation ws.StatusCode = 1008 // authentication refused (after CONNECT_ERROR 44)
	CloseMessageTooBig   ws.StatusCode = 1009 // message above Config.MaxPayload
	CloseInternalError   ws.StatusCode = 1011 // the server failed
	ClosePingTimeout     ws.StatusCode = 4001 // no pong within PingInterval+PingTimeout
	CloseConnectTimeout  ws.StatusCode = 4002 // no CONNECT within Config.ConnectTimeout
	CloseReauthenticate  ws.StatusCode = 4003 // the user's credentials changed (Hub.Reauthenticate) or the token expired: reconnect with a fresh token
	CloseSlowConsumer    ws.StatusCode = 4008 // outbound queue full: the client does not read fast enough
)

// Errors returned by the exported API.
var (
	// ErrInvalidEvent: Hub.Publish was given an event it cannot send (no tenant, no
	// rooms, an invalid room or name, a payload that is not a JSON object).
	ErrInvalidEvent = errors.New("socket: invalid event")
	// ErrClosed: the server is shut down.
	ErrClosed = errors.New("socket: server closed")
)

// Connect error messages (CONNECT_ERROR 44{"message":…}) beyond the engine codes.
const msgInvalidNamespace = "Invalid namespace"
