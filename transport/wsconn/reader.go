package wsconn

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// keepBuf is the largest message buffer returned to the pool: a rare large
// message does not pin its buffer.
const keepBuf = 4 << 10

// bufPool holds message buffers between messages, so that an idle connection
// holds none.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// readFirst is the connection's first reader: it greets, then reads.
func (c *Conn) readFirst() {
	c.h.Opened()
	if t := c.opts.ReadTimeout; t > 0 {
		c.ExtendRead(t)
	}
	c.read()
}

// read is the connection's reader, from its start or from a wake until it parks
// or reading ends. It reads frames: it answers control frames through the
// outbox, hands text messages to the handler one at a time, and refuses the rest.
// Between messages, with nothing to read, it parks (tryPark) and returns. It ends
// after the connection started closing and the peer closed its side (or the
// goodbye deadline passed), or when the peer is gone. (One function, not a loop
// under a wrapper: a reader that cannot park waits under this frame, and every
// frame counts against its stack.)
func (c *Conn) read() {
	rd := wsutil.Reader{
		Source:         c.src,
		State:          ws.StateServerSide,
		CheckUTF8:      true,
		MaxFrameSize:   c.opts.MaxMessageSize,
		MaxMessageSize: c.opts.MaxMessageSize,
	}
	rd.OnIntermediate = c.control
	for {
		if c.tryPark() {
			return
		}
		hdr, err := rd.NextFrame()
		if err != nil {
			c.readFailed(err)
			c.exit()
			return
		}
		switch {
		case hdr.OpCode.IsControl():
			err = c.control(hdr, &rd)
		case c.Closing():
			err = rd.Discard()
		case hdr.OpCode == ws.OpBinary:
			c.fail(Failure{Kind: Binary})
			err = rd.Discard()
		default: // a text message, into a pooled buffer (inline: see above)
			bp := bufPool.Get().(*[]byte)
			var buf []byte
			buf, err = readAll(&rd, (*bp)[:0])
			if err == nil {
				c.h.Message(buf)
			}
			if cap(buf) <= keepBuf {
				*bp = buf[:0]
				bufPool.Put(bp)
			}
		}
		if err != nil {
			c.readFailed(err)
			c.exit()
			return
		}
		if t := c.opts.ReadTimeout; t > 0 {
			c.ExtendRead(t)
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

// control handles a control frame, also one between the fragments of a message:
// answer ping with pong, echo close.
func (c *Conn) control(hdr ws.Header, body io.Reader) error {
	var p [ws.MaxControlFramePayloadSize]byte // ws.CheckHeader refused a longer one
	payload := p[:hdr.Length]
	if _, err := io.ReadFull(body, payload); err != nil {
		if err == io.EOF {
			// The stream ended before the payload. A bare EOF would read, between
			// the fragments of a message, as that message's end (FuzzRead found it).
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	switch hdr.OpCode {
	case ws.OpPing:
		c.Send(ws.MustCompileFrame(ws.NewPongFrame(payload)))
	case ws.OpClose:
		code, _ := ws.ParseCloseFrameData(payload)
		if code.Empty() || code == 1005 || code == 1006 || code == 1015 {
			code = CloseNormal // codes a peer must not send, or none: a normal close
		}
		if !c.Closing() {
			c.fail(Failure{Kind: PeerClosed, Code: code})
		}
	}
	return nil
}

// fail asks the handler how to close for f, and closes.
func (c *Conn) fail(f Failure) {
	cl := c.h.Failed(f)
	c.CloseWith(cl.Code, cl.Reason, cl.Drain)
}

// readFailed classifies the error that ended reading and closes accordingly, then
// drains the connection so the close frame reaches a peer still sending.
func (c *Conn) readFailed(err error) {
	var perr ws.ProtocolError
	terminal := false
	switch {
	case c.Closing():
		terminal = true // the goodbye deadline, or the peer's end after our close
	case errors.Is(err, wsutil.ErrFrameTooLarge), errors.Is(err, wsutil.ErrMessageTooLarge):
		c.fail(Failure{Kind: TooBig, Err: err})
	case errors.Is(err, wsutil.ErrInvalidUTF8):
		c.fail(Failure{Kind: InvalidUTF8, Err: err})
	case errors.As(err, &perr):
		c.fail(Failure{Kind: ProtocolError, Err: err})
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.fail(Failure{Kind: Timeout, Err: err})
		terminal = true // the peer is silent; nothing to drain
	default:
		c.fail(Failure{Kind: Gone, Err: err})
		terminal = true
	}
	if !terminal {
		_, _ = io.Copy(io.Discard, c.src) // until the peer closes or the goodbye deadline
	}
}
