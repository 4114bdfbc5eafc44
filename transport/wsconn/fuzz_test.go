package wsconn

import (
	"bytes"
	"io"
	"net"
	"slices"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"
)

// streamConn is a net.Conn that reads a fixed stream, then EOF; writes and
// deadlines do nothing.
type streamConn struct{ r io.Reader }

func (s streamConn) Read(p []byte) (int, error)     { return s.r.Read(p) }
func (streamConn) Write(p []byte) (int, error)      { return len(p), nil }
func (streamConn) Close() error                     { return nil }
func (streamConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (streamConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (streamConn) SetDeadline(time.Time) error      { return nil }
func (streamConn) SetReadDeadline(time.Time) error  { return nil }
func (streamConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzRead feeds a hostile client stream to the frame reader (no goroutines, no
// network) and checks what it hands over and what it queues: messages are valid
// UTF-8 within the limit, every queued frame is a well-formed server frame, the
// connection always ends closing, and the handler hears of at most one failure.
func FuzzRead(f *testing.F) {
	for _, seed := range [][]byte{
		frame(ws.OpText, true, []byte("hello")),
		slices.Concat(frame(ws.OpText, false, []byte("frag")), frame(ws.OpPing, true, []byte("p")), frame(ws.OpContinuation, true, []byte("ment"))),
		frame(ws.OpPing, true, bytes.Repeat([]byte("p"), 125)),
		frame(ws.OpClose, true, ws.NewCloseFrameBody(1001, "bye")),
		frame(ws.OpClose, true, []byte{3}), // a one-byte close body
		frame(ws.OpText, true, []byte("ol\xe1")),
		frame(ws.OpBinary, true, []byte{1, 2, 3}),
		raw(ws.Header{Fin: true, OpCode: 3, Masked: true}, []byte("x")),
		raw(ws.Header{Fin: true, Rsv: 2, OpCode: ws.OpText, Masked: true}, []byte("x")),
		raw(ws.Header{Fin: true, OpCode: ws.OpText}, []byte("unmasked")),
		frame(ws.OpPing, false, nil),
		frame(ws.OpText, true, bytes.Repeat([]byte("a"), testMaxMessage+1)),
		slices.Concat(frame(ws.OpText, false, []byte("\xc3")), frame(ws.OpContinuation, true, []byte("\xa9"))),
		slices.Concat(frame(ws.OpText, true, []byte("a")), frame(ws.OpPong, true, nil), frame(ws.OpText, true, []byte("b"))),
	} {
		f.Add(seed)
	}
	opts := testOptions()
	opts.QueueSize = 1 << 20 // every pong stays queued, to be checked
	f.Fuzz(func(t *testing.T, in []byte) {
		rec := newRecorder()
		c := new(Conn)
		c.Init(streamConn{bytes.NewReader(in)}, nil, opts, rec)
		c.readFirst() // on this goroutine: exit does nothing, as Start never counted the work
		if !c.Closing() {
			t.Fatal("reading ended without a close")
		}
		if n := len(rec.kinds()); n > 1 {
			t.Fatalf("%d failures %v: the handler is asked once", n, rec.kinds())
		}
		for _, m := range rec.got() {
			if len(m) > testMaxMessage || !utf8.Valid(m) {
				t.Fatalf("handed over %q", m)
			}
		}
		for _, fr := range c.Pending() {
			r := bytes.NewReader(fr)
			h, err := ws.ReadHeader(r)
			if err != nil || h.Masked || !h.Fin || h.Rsv != 0 || int64(r.Len()) != h.Length {
				t.Fatalf("queued a bad frame %q: %+v %v", fr, h, err)
			}
			if h.OpCode != ws.OpPong || h.Length > ws.MaxControlFramePayloadSize {
				t.Fatalf("queued %v of %d bytes, want only pongs", h.OpCode, h.Length)
			}
		}
	})
}
