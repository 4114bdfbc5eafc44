package wsconn

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"

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
	return io.MultiReader(bytes.NewReader(bytes.Clone(b)), nc)
}
