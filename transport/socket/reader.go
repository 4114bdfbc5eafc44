package socket

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/rs/zerolog"

	"atende/transport/socket/sio"
)

// keepBuf is the largest read buffer a socket keeps between messages.
const keepBuf = 4 << 10

// readLoop is the socket's reader goroutine: it reads websocket frames, answers
// control frames through the writer, and handles Engine.IO / Socket.IO packets. It
// ends after the socket started closing and the client closed its side (or the
// goodbye deadline passed).
func (c *conn) readLoop() {
	defer c.exit()
	c.extendRead(c.srv.cfg.ConnectTimeout)
	rd := wsutil.Reader{
		Source:         c.src,
		State:          ws.StateServerSide,
		CheckUTF8:      true,
		MaxFrameSize:   c.srv.cfg.MaxPayload,
		MaxMessageSize: c.srv.cfg.MaxPayload,
	}
	rd.OnIntermediate = func(hdr ws.Header, body io.Reader) error {
		return c.control(hdr, body)
	}
	var buf []byte
	for {
		hdr, err := rd.NextFrame()
		if err != nil {
			c.readFailed(err)
			return
		}
		switch {
		case hdr.OpCode.IsControl():
			err = c.control(hdr, &rd)
		case c.closing():
			err = rd.Discard()
		case hdr.OpCode == ws.OpBinary:
			c.closeWith(CloseUnsupportedData, "binary frames are not supported", true)
			err = rd.Discard()
		default:
			buf, err = readAll(&rd, buf[:0])
			if err == nil {
				c.handle(buf)
			}
			if cap(buf) > keepBuf {
				buf = nil
			}
		}
		if err != nil {
			c.readFailed(err)
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
func (c *conn) control(hdr ws.Header, body io.Reader) error {
	var p [125]byte // RFC 6455: control payloads are at most 125 bytes (CheckHeader enforces it)
	payload := p[:hdr.Length]
	if _, err := io.ReadFull(body, payload); err != nil {
		return err
	}
	switch hdr.OpCode {
	case ws.OpPing:
		c.send(ws.MustCompileFrame(ws.NewPongFrame(payload)))
	case ws.OpClose:
		code, _ := ws.ParseCloseFrameData(payload)
		if code.Empty() || code == 1005 || code == 1006 || code == 1015 {
			code = CloseNormal
		}
		c.closeWith(code, "client closed the websocket", false)
	}
	return nil
}

// readFailed classifies the error that ended reading and closes accordingly, then
// drains the connection so the close frame reaches a client still sending.
func (c *conn) readFailed(err error) {
	var perr ws.ProtocolError
	terminal := false
	switch {
	case c.closing():
		terminal = true // the goodbye deadline, or the client's end after our close
	case errors.Is(err, wsutil.ErrFrameTooLarge), errors.Is(err, wsutil.ErrMessageTooLarge):
		c.closeWith(CloseMessageTooBig, "message above maxPayload", true)
	case errors.Is(err, wsutil.ErrInvalidUTF8):
		c.closeWith(CloseInvalidPayload, "invalid UTF-8", true)
	case errors.As(err, &perr):
		c.closeWith(CloseProtocolError, "websocket protocol error: "+string(perr), true)
	case errors.Is(err, os.ErrDeadlineExceeded) && c.connected:
		c.closeWith(ClosePingTimeout, "ping timeout", false)
		terminal = true // the client is silent; nothing to drain
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.closeWith(CloseConnectTimeout, "connect timeout", true)
		terminal = true
	default:
		c.closeWith(CloseNormal, "client gone", false)
		terminal = true
	}
	if !terminal {
		_, _ = io.Copy(io.Discard, c.src) // until the client closes or the goodbye deadline
	}
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
