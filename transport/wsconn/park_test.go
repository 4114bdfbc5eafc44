package wsconn

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"atende/goroutine"
)

// eventually polls cond until it holds, failing after a generous bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("never: %s", what)
}

func TestIdleConnectionParksAndWakes(t *testing.T) {
	rec := newRecorder()
	c, p := start(t, testOptions(), rec)
	eventually(t, "parked after the greeting", c.park.parked.Load)
	for i, msg := range []string{"one", "two"} {
		p.write(t, frame(ws.OpText, true, []byte(msg)))
		p.write(t, frame(ws.OpPing, true, []byte(msg)))
		if h, b := p.next(t); h.OpCode != ws.OpPong || string(b) != msg {
			t.Fatalf("got %v %q, want the pong %q", h.OpCode, b, msg)
		}
		eventually(t, "parked again", c.park.parked.Load)
		if got := len(rec.got()); got != i+1 {
			t.Fatalf("%d messages handled, want %d", got, i+1)
		}
	}
	// The peer reads the pong as soon as it is written, a moment before the writer
	// marks itself idle: wait for that, rather than look at once.
	eventually(t, "the writer idle", func() bool { return c.writer.Load() == writerIdle })
	if got := rec.got(); string(got[0]) != "one" || string(got[1]) != "two" {
		t.Fatalf("messages %q", got)
	}
}

func TestFragmentsAcrossParking(t *testing.T) {
	rec := newRecorder()
	c, p := start(t, testOptions(), rec)
	eventually(t, "parked", c.park.parked.Load)
	// The first fragment alone: the reader waits for the rest inside the message
	// (it parks only between messages).
	p.write(t, frame(ws.OpText, false, []byte("frag")))
	eventually(t, "woken by the first fragment", func() bool { return !c.park.parked.Load() })
	time.Sleep(20 * time.Millisecond)
	p.write(t, frame(ws.OpContinuation, true, []byte("ment")))
	eventually(t, "the message", func() bool { return len(rec.got()) == 1 })
	if got := string(rec.got()[0]); got != "fragment" {
		t.Fatalf("message %q", got)
	}
}

func TestParkedReaderTimesOut(t *testing.T) {
	opts := testOptions()
	opts.ReadTimeout = 0 // the protocol moves the deadline
	rec := newRecorder()
	c, p := start(t, opts, rec)
	c.ExtendRead(time.Hour)
	eventually(t, "parked", c.park.parked.Load)
	// A deadline moved while parked: the earlier timer must not end the connection.
	c.ExtendRead(150 * time.Millisecond)
	c.ExtendRead(time.Hour)
	time.Sleep(500 * time.Millisecond)
	if c.Closing() {
		t.Fatal("closed at a deadline that was moved later")
	}
	c.ExtendRead(50 * time.Millisecond)
	if code, _ := p.closeCode(t); code != codeTimeout {
		t.Fatalf("close code %d, want %d", code, codeTimeout)
	}
	rec.waitClosed(t)
	if k := rec.kinds(); !slices.Equal(k, []Kind{Timeout}) {
		t.Fatalf("failures %v", k)
	}
}

func TestCloseWhileParked(t *testing.T) {
	rec := newRecorder()
	c, p := start(t, testOptions(), rec)
	eventually(t, "parked", c.park.parked.Load)
	c.Send(TextFrame([]byte("last")))
	c.CloseWith(4000, "bye", true)
	code, texts := p.closeCode(t)
	if code != 4000 || !slices.Equal(texts, []string{"last"}) {
		t.Fatalf("close %d after %q", code, texts)
	}
	_ = p.nc.Close()
	rec.waitClosed(t)
}

func TestPeerGoneWhileParked(t *testing.T) {
	rec := newRecorder()
	c, p := start(t, testOptions(), rec)
	eventually(t, "parked", c.park.parked.Load)
	_ = p.nc.Close()
	rec.waitClosed(t)
	if k := rec.kinds(); !slices.Equal(k, []Kind{Gone}) {
		t.Fatalf("failures %v", k)
	}
}

// TestParkedConnectionsHoldNoGoroutine opens connections, lets them go idle and
// counts the goroutines left: none per connection (the poller's is shared).
func TestParkedConnectionsHoldNoGoroutine(t *testing.T) {
	const n = 64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, _ = thePoller() // its goroutine is not a connection's
	base := runtime.NumGoroutine()
	var g goroutine.Group
	opts := testOptions()
	var peers []net.Conn
	var conns []*Conn
	for range n {
		cl, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		sv, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		c := new(Conn)
		c.Init(sv, nil, opts, newRecorder())
		c.Start(&g)
		c.Send(TextFrame([]byte("hello"))) // the writer runs once, then stops
		peers, conns = append(peers, cl), append(conns, c)
	}
	eventually(t, "every connection parked, no goroutine of theirs left", func() bool {
		for _, c := range conns {
			if !c.park.parked.Load() || c.writer.Load() != writerIdle {
				return false
			}
		}
		return runtime.NumGoroutine() <= base+2
	})
	if got := g.Running(); got != n {
		t.Fatalf("group counts %d, want %d holds", got, n)
	}
	for _, cl := range peers {
		_ = cl.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Wait(ctx); err != nil {
		t.Fatalf("connections did not end when their peers left: %v", err)
	}
}

func TestWithoutParking(t *testing.T) {
	opts := testOptions()
	opts.ParkIdle = false
	opts.ReadTimeout = 200 * time.Millisecond
	rec := newRecorder()
	c, p := start(t, opts, rec)
	p.write(t, frame(ws.OpText, true, []byte("hi")))
	if code, _ := p.closeCode(t); code != codeTimeout {
		t.Fatalf("close code %d, want %d", code, codeTimeout)
	}
	rec.waitClosed(t)
	if c.park.parked.Load() || c.park.pollable {
		t.Fatal("parked without ParkIdle")
	}
	if got := rec.got(); len(got) != 1 || string(got[0]) != "hi" {
		t.Fatalf("messages %q", got)
	}
}

// echo is a Handler that answers every message with the same text.
type echo struct {
	recorder
	c *Conn
}

func (e *echo) Message(msg []byte) { e.c.Send(TextFrame(msg)) }

// TestParkAndWakeUnderLoad: connections that alternate between a message and an
// idle pause, many at once, each get every answer: no wake is lost between a
// reader parking and the next byte, nor between a writer stopping and the next
// frame.
func TestParkAndWakeUnderLoad(t *testing.T) {
	const conns, rounds = 16, 60
	errs := make(chan error, conns)
	for i := range conns {
		e := &echo{recorder: recorder{closed: make(chan struct{})}}
		c, p := start(t, testOptions(), e)
		e.c = c
		go func() {
			for r := range rounds {
				msg := fmt.Sprintf("c%d r%d", i, r)
				if _, err := p.nc.Write(frame(ws.OpText, true, []byte(msg))); err != nil {
					errs <- err
					return
				}
				_ = p.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
				h, err := ws.ReadHeader(p.br)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", msg, err)
					return
				}
				b := make([]byte, h.Length)
				if _, err := io.ReadFull(p.br, b); err != nil || string(b) != msg {
					errs <- fmt.Errorf("%s: got %q, %v", msg, b, err)
					return
				}
				if r%3 == 0 {
					time.Sleep(time.Duration(r%7) * time.Millisecond) // let it park
				}
			}
			errs <- nil
		}()
	}
	for range conns {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
