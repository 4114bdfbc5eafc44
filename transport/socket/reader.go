package socket

import (
	"errors"
	"strings"

	"github.com/rs/zerolog"

	"atende/transport/socket/sio"
	"atende/transport/wsconn"
)

// Opened starts the connect timeout: the client has Config.ConnectTimeout to send
// CONNECT (wsconn.Handler).
func (c *conn) Opened() { c.extendRead(c.srv.cfg.ConnectTimeout) }

// Message handles one text message (wsconn.Handler).
func (c *conn) Message(msg []byte) { c.handle(msg) }

// Failed answers how the socket closes when reading stops (wsconn.Handler).
func (c *conn) Failed(f wsconn.Failure) wsconn.Close {
	switch f.Kind {
	case wsconn.TooBig:
		return wsconn.Close{Code: CloseMessageTooBig, Reason: "message above maxPayload", Drain: true}
	case wsconn.InvalidUTF8:
		return wsconn.Close{Code: CloseInvalidPayload, Reason: "invalid UTF-8", Drain: true}
	case wsconn.Binary:
		return wsconn.Close{Code: CloseUnsupportedData, Reason: "binary frames are not supported", Drain: true}
	case wsconn.ProtocolError:
		return wsconn.Close{Code: CloseProtocolError, Reason: "websocket protocol error: " + f.Err.Error(), Drain: true}
	case wsconn.Timeout:
		if c.connected {
			return wsconn.Close{Code: ClosePingTimeout, Reason: "ping timeout"} // the client is silent
		}
		return wsconn.Close{Code: CloseConnectTimeout, Reason: "connect timeout", Drain: true}
	case wsconn.PeerClosed:
		return wsconn.Close{Code: f.Code, Reason: "client closed the websocket"}
	}
	return wsconn.Close{Code: CloseNormal, Reason: "client gone"}
}

// handle processes one text message: an Engine.IO packet.
func (c *conn) handle(msg []byte) {
	f, err := sio.DecodeFrame(msg)
	if err != nil {
		c.refuse(err)
		return
	}
	switch f.Type {
	case sio.EnginePong:
		if c.connected {
			c.extendRead(c.srv.cfg.PingInterval + c.srv.cfg.PingTimeout)
		}
	case sio.EngineMessage:
		c.packet(f.Data)
	case sio.EngineClose:
		c.closeWith(CloseNormal, "client closed the session", true)
	case sio.EngineNoop:
	default: // open, ping, upgrade: not what a websocket-only client sends
		c.closeWith(CloseProtocolError, "unexpected engine.io "+f.Type.String()+" packet", true)
	}
}

// refuse closes the socket for a packet that does not decode.
func (c *conn) refuse(err error) {
	c.logAt(zerolog.DebugLevel).Err(err).Msg("bad packet")
	switch {
	case errors.Is(err, sio.ErrInvalidUTF8):
		c.closeWith(CloseInvalidPayload, "invalid UTF-8", true)
	case errors.Is(err, sio.ErrBinaryUnsupported):
		c.closeWith(CloseUnsupportedData, "binary packets are not supported", true)
	default:
		c.closeWith(CloseProtocolError, trimReason(err.Error()), true)
	}
}

func trimReason(s string) string {
	if len(s) > 100 {
		s = s[:100]
	}
	return strings.ToValidUTF8(s, "")
}
