package socket

import (
	"bytes"

	"github.com/gobwas/ws"
)

// headroom is the space frame builders leave in front of a message for its
// websocket header (at most 10 bytes for an unmasked server frame).
const headroom = 10

// newMessage returns a buffer with headroom for a websocket header and room for
// size bytes of message; append the message, then call finishText.
func newMessage(size int) []byte {
	return make([]byte, headroom, headroom+size)
}

// finishText turns buf, made by newMessage and holding a message after the headroom,
// into one complete unmasked websocket text frame, without copying the message.
func finishText(buf []byte) []byte {
	h := ws.Header{Fin: true, OpCode: ws.OpText, Length: int64(len(buf) - headroom)}
	var hb [ws.MaxHeaderSize]byte
	w := bytes.NewBuffer(hb[:0])
	_ = ws.WriteHeader(w, h) // writing to a bytes.Buffer cannot fail
	start := headroom - w.Len()
	copy(buf[start:], w.Bytes())
	return buf[start:]
}

// textFrame frames msg as one websocket text frame (a copy).
func textFrame(msg []byte) []byte {
	buf := newMessage(len(msg))
	return finishText(append(buf, msg...))
}

// Frames that never change.
var (
	pingFrame       = textFrame([]byte{'2'})  // Engine.IO ping
	disconnectFrame = textFrame([]byte("41")) // Socket.IO DISCONNECT, root namespace
)
