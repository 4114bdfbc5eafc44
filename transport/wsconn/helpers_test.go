package wsconn

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"

	"atende/goroutine"
)

// Test close codes for what the core reports; the protocols choose their own.
const (
	codeTooBig     ws.StatusCode = 1009
	codeUTF8       ws.StatusCode = 1007
	codeBinary     ws.StatusCode = 1003
	codeProtocol   ws.StatusCode = 1002
	codeTimeout    ws.StatusCode = 4001
	codeOverflow   ws.StatusCode = 4008
	testMaxMessage               = 1024
)

// recorder is a Handler that records what the core tells it.
type recorder struct {
	mu       sync.Mutex
	messages [][]byte
	failures []Failure
	opened   int

	closed chan struct{}
}

func newRecorder() *recorder { return &recorder{closed: make(chan struct{})} }

func (r *recorder) Opened() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opened++
}

func (r *recorder) Message(msg []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.messages = append(r.messages, append([]byte(nil), msg...))
}

func (r *recorder) Failed(f Failure) Close {
	r.mu.Lock()
	r.failures = append(r.failures, f)
	r.mu.Unlock()
	switch f.Kind {
	case TooBig:
		return Close{Code: codeTooBig, Reason: "too big", Drain: true}
	case InvalidUTF8:
		return Close{Code: codeUTF8, Reason: "invalid UTF-8", Drain: true}
	case Binary:
		return Close{Code: codeBinary, Reason: "binary", Drain: true}
	case ProtocolError:
		return Close{Code: codeProtocol, Reason: "protocol error", Drain: true}
	case Timeout:
		return Close{Code: codeTimeout, Reason: "timeout"}
	case PeerClosed:
		return Close{Code: f.Code, Reason: "peer closed"}
	}
	return Close{Code: CloseNormal, Reason: "gone"}
}

func (r *recorder) Closed() { close(r.closed) }

// kinds lists the failures' kinds.
func (r *recorder) kinds() []Kind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Kind
	for _, f := range r.failures {
		out = append(out, f.Kind)
	}
	return out
}

func (r *recorder) got() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.messages...)
}

// waitClosed waits (bounded) for Closed.
func (r *recorder) waitClosed(t *testing.T) {
	t.Helper()
	select {
	case <-r.closed:
	case <-time.After(20 * time.Second):
		t.Fatal("Closed was not called")
	}
}

func testOptions() *Options {
	return &Options{
		MaxMessageSize: testMaxMessage,
		QueueSize:      16,
		Overflow:       Close{Code: codeOverflow, Reason: "slow consumer"},
		WriteTimeout:   5 * time.Second,
		ReadTimeout:    20 * time.Second,
		ParkIdle:       true, // as the servers run; TestWithoutParking covers the rest
	}
}

// peer is the client side of a loopback websocket.
type peer struct {
	nc net.Conn
	br *bufio.Reader
}

// start runs a Conn with handler h over a loopback TCP pair and answers it and
// its peer; the test's end closes the peer and waits for the Conn's goroutines.
func start(t *testing.T, opts *Options, h Handler) (*Conn, *peer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	var g goroutine.Group
	c := new(Conn)
	c.Init(sv, nil, opts, h)
	if !c.Start(&g) {
		t.Fatal("Start refused")
	}
	t.Cleanup(func() {
		_ = cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := g.Wait(ctx); err != nil {
			t.Errorf("goroutines still running: %v", err)
		}
	})
	return c, &peer{nc: cl, br: bufio.NewReader(cl)}
}

// write sends raw bytes.
func (p *peer) write(t *testing.T, b []byte) {
	t.Helper()
	if _, err := p.nc.Write(b); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// frame compiles a client frame: masked unless told otherwise.
func frame(op ws.OpCode, fin bool, payload []byte) []byte {
	return ws.MustCompileFrame(ws.MaskFrame(ws.NewFrame(op, fin, payload)))
}

// next reads one server frame.
func (p *peer) next(t *testing.T) (ws.Header, []byte) {
	t.Helper()
	_ = p.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	h, err := ws.ReadHeader(p.br)
	if err != nil {
		t.Fatalf("read header: %v", err)
	}
	if h.Masked {
		t.Fatalf("server frame is masked: %+v", h)
	}
	b := make([]byte, h.Length)
	if _, err := io.ReadFull(p.br, b); err != nil {
		t.Fatalf("read payload: %v", err)
	}
	return h, b
}

// closeCode reads frames until the close frame and answers its code and the text
// frames before it.
func (p *peer) closeCode(t *testing.T) (ws.StatusCode, []string) {
	t.Helper()
	var texts []string
	for {
		h, b := p.next(t)
		switch h.OpCode {
		case ws.OpClose:
			code, reason := ws.ParseCloseFrameData(b)
			if !utf8.ValidString(reason) {
				t.Fatalf("close reason %q is not UTF-8", reason)
			}
			return code, texts
		case ws.OpText:
			texts = append(texts, string(b))
		}
	}
}

// ended reports whether the server's side of the stream ended (EOF or reset)
// before anything else arrived.
func (p *peer) ended(t *testing.T) bool {
	t.Helper()
	_ = p.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, p.br)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}
