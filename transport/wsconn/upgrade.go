package wsconn

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/gobwas/ws"
)

// Upgrade answers a websocket handshake on w, within Options.WriteTimeout, and
// hands over the connection: nc, and src to read it through (nc, preceded by any
// bytes the peer sent right after the handshake that the HTTP server had already
// buffered). On an error nothing is left open.
func (o *Options) Upgrade(w http.ResponseWriter, r *http.Request) (nc net.Conn, src io.Reader, err error) {
	up := ws.HTTPUpgrader{Timeout: o.WriteTimeout}
	nc, rw, _, err := up.Upgrade(r, w)
	if err != nil {
		if nc != nil {
			_ = nc.Close()
		}
		return nil, nil, fmt.Errorf("websocket upgrade: %w", err)
	}
	return nc, early(nc, rw), nil
}

// early is nc preceded by what rw's reader holds.
func early(nc net.Conn, rw *bufio.ReadWriter) io.Reader {
	if rw == nil || rw.Reader.Buffered() == 0 {
		return nc
	}
	b, _ := rw.Reader.Peek(rw.Reader.Buffered())
	return &prefixed{b: bytes.Clone(b), nc: nc}
}

// prefixed reads b, then nc. A connection parks only once b is consumed: the
// poller sees the socket, not b.
type prefixed struct {
	b  []byte
	nc net.Conn
}

func (p *prefixed) Read(buf []byte) (int, error) {
	if len(p.b) == 0 {
		return p.nc.Read(buf)
	}
	n := copy(buf, p.b)
	p.b = p.b[n:]
	if len(p.b) == 0 {
		p.b = nil
	}
	return n, nil
}

// Reject ends an upgraded connection that never became a Conn (its protocol
// refused it), on the caller's goroutine, within CloseGrace: it writes last (the
// protocol's frames, then a close frame with code and reason), half-closes, reads
// until the peer's end (at most 64 KiB), and closes nc.
func Reject(nc net.Conn, src io.Reader, code ws.StatusCode, reason string, last ...[]byte) {
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(CloseGrace))
	bufs := net.Buffers(append(last, CloseFrame(code, reason)))
	if _, err := bufs.WriteTo(nc); err != nil {
		return
	}
	if hc, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(src, 64<<10)) // until the peer closes, or the deadline
}
