package wsconn

import (
	"bytes"
	"strings"

	"github.com/gobwas/ws"
)

// Headroom is the space NewMessage leaves in front of a message for its websocket
// header (at most 10 bytes for an unmasked server frame).
const Headroom = 10

// NewMessage returns a buffer with headroom for a websocket header and room for
// size bytes of message; append the message, then call FinishText.
func NewMessage(size int) []byte {
	return make([]byte, Headroom, Headroom+size)
}

// FinishText turns buf, made by NewMessage and holding a message after the
// headroom, into one complete unmasked websocket text frame, without copying the
// message.
func FinishText(buf []byte) []byte {
	h := ws.Header{Fin: true, OpCode: ws.OpText, Length: int64(len(buf) - Headroom)}
	var hb [ws.MaxHeaderSize]byte
	w := bytes.NewBuffer(hb[:0])
	_ = ws.WriteHeader(w, h) // writing to a bytes.Buffer cannot fail
	start := Headroom - w.Len()
	copy(buf[start:], w.Bytes())
	return buf[start:]
}

// TextFrame frames msg as one unmasked websocket text frame (a copy).
func TextFrame(msg []byte) []byte {
	return FinishText(append(NewMessage(len(msg)), msg...))
}

// CloseFrame compiles a close frame; the reason is cut to fit a control frame.
func CloseFrame(code ws.StatusCode, reason string) []byte {
	if len(reason) > 123 {
		reason = strings.ToValidUTF8(reason[:123], "")
	}
	return ws.MustCompileFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(code, reason)))
}

// PingFrame is a websocket ping with no payload.
var PingFrame = ws.MustCompileFrame(ws.NewPingFrame(nil))
