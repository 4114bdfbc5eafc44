package socket

import "atende/transport/wsconn"

// newMessage returns a buffer with headroom for a websocket header and room for
// size bytes of message; append the message, then call finishText.
func newMessage(size int) []byte { return wsconn.NewMessage(size) }

// finishText turns buf, made by newMessage, into one websocket text frame.
func finishText(buf []byte) []byte { return wsconn.FinishText(buf) }

// textFrame frames msg as one websocket text frame (a copy).
func textFrame(msg []byte) []byte { return wsconn.TextFrame(msg) }

// Frames that never change.
var (
	pingFrame       = textFrame([]byte{'2'})  // Engine.IO ping
	disconnectFrame = textFrame([]byte("41")) // Socket.IO DISCONNECT, root namespace
)
