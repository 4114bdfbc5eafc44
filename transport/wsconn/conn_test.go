package wsconn

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"atende/goroutine"
)

// raw writes a client frame header as given (bad bits included) and its payload,
// masked when h says so.
func raw(h ws.Header, payload []byte) []byte {
	var b bytes.Buffer
	if h.Masked && h.Mask == [4]byte{} {
		h.Mask = [4]byte{1, 2, 3, 4}
	}
	h.Length = int64(len(payload))
	_ = ws.WriteHeader(&b, h)
	p := append([]byte(nil), payload...)
	if h.Masked {
		ws.Cipher(p, h.Mask, 0)
	}
	b.Write(p)
	return b.Bytes()
}

func TestHostileFrames(t *testing.T) {
	big := bytes.Repeat([]byte("a"), testMaxMessage/2+10)
	tests := []struct {
		name string
		in   []byte
		code ws.StatusCode
		kind Kind
	}{
		{"frame above the limit", frame(ws.OpText, true, bytes.Repeat([]byte("a"), testMaxMessage+1)), codeTooBig, TooBig},
		{"header above the limit, no payload sent", func() []byte {
			var b bytes.Buffer
			_ = ws.WriteHeader(&b, ws.Header{Fin: true, OpCode: ws.OpText, Masked: true, Length: 1 << 40})
			return b.Bytes()
		}(), codeTooBig, TooBig},
		{"fragments above the limit together", slices.Concat(frame(ws.OpText, false, big), frame(ws.OpContinuation, true, big)), codeTooBig, TooBig},
		{"fragmented ping", frame(ws.OpPing, false, []byte("x")), codeProtocol, ProtocolError},
		{"fragmented close", frame(ws.OpClose, false, nil), codeProtocol, ProtocolError},
		{"ping above 125 bytes", frame(ws.OpPing, true, bytes.Repeat([]byte("p"), 126)), codeProtocol, ProtocolError},
		{"reserved opcode 3", raw(ws.Header{Fin: true, OpCode: 3, Masked: true}, []byte("x")), codeProtocol, ProtocolError},
		{"reserved opcode 7", raw(ws.Header{Fin: true, OpCode: 7, Masked: true}, nil), codeProtocol, ProtocolError},
		{"reserved control opcode 11", raw(ws.Header{Fin: true, OpCode: 0xB, Masked: true}, nil), codeProtocol, ProtocolError},
		{"reserved control opcode 15", raw(ws.Header{Fin: true, OpCode: 0xF, Masked: true}, nil), codeProtocol, ProtocolError},
		{"reserved bit", raw(ws.Header{Fin: true, Rsv: 4, OpCode: ws.OpText, Masked: true}, []byte("x")), codeProtocol, ProtocolError},
		{"unmasked client frame", raw(ws.Header{Fin: true, OpCode: ws.OpText}, []byte("x")), codeProtocol, ProtocolError},
		{"continuation with no message", frame(ws.OpContinuation, true, []byte("x")), codeProtocol, ProtocolError},
		{"new message inside a fragmented one", slices.Concat(frame(ws.OpText, false, []byte("a")), frame(ws.OpText, true, []byte("b"))), codeProtocol, ProtocolError},
		{"invalid UTF-8", frame(ws.OpText, true, []byte("ol\xe1")), codeUTF8, InvalidUTF8},
		{"UTF-8 cut between fragments, never finished", slices.Concat(frame(ws.OpText, false, []byte("\xc3")), frame(ws.OpContinuation, true, []byte("x"))), codeUTF8, InvalidUTF8},
		{"binary", frame(ws.OpBinary, true, []byte{0, 1, 2}), codeBinary, Binary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder()
			_, p := start(t, testOptions(), rec)
			// A good message first: the hostile frame ends a working connection.
			p.write(t, slices.Concat(frame(ws.OpText, true, []byte("hello")), tt.in))
			code, _ := p.closeCode(t)
			if code != tt.code {
				t.Fatalf("close code %d, want %d", code, tt.code)
			}
			_ = p.nc.Close() // the server drains the rest until the stream ends
			rec.waitClosed(t)
			if got := rec.kinds(); !slices.Equal(got, []Kind{tt.kind}) {
				t.Fatalf("failures %v, want [%v]", got, tt.kind)
			}
			if got := rec.got(); len(got) != 1 || string(got[0]) != "hello" {
				t.Fatalf("messages %q, want only hello", got)
			}
		})
	}
}

func TestMessagesAndControlFrames(t *testing.T) {
	rec := newRecorder()
	_, p := start(t, testOptions(), rec)
	long := strings.Repeat("é", testMaxMessage/2) // exactly the limit, in bytes
	p.write(t, slices.Concat(
		frame(ws.OpText, false, []byte("frag")),
		frame(ws.OpPing, true, []byte("between")), // answered in the middle of a message
		frame(ws.OpContinuation, false, []byte("men")),
		frame(ws.OpContinuation, true, []byte("ted")),
		frame(ws.OpText, true, []byte(long)),
		frame(ws.OpPong, true, []byte("unasked")), // ignored
		frame(ws.OpText, true, nil),
		frame(ws.OpPing, true, nil),
	))
	for _, want := range []string{"between", ""} {
		h, b := p.next(t)
		if h.OpCode != ws.OpPong || string(b) != want {
			t.Fatalf("got %v %q, want pong %q", h.OpCode, b, want)
		}
	}
	p.write(t, frame(ws.OpClose, true, ws.NewCloseFrameBody(ws.StatusGoingAway, "tab closed")))
	if code, _ := p.closeCode(t); code != ws.StatusGoingAway {
		t.Fatalf("close echoed with %d, want 1001", code)
	}
	_ = p.nc.Close()
	rec.waitClosed(t)
	got := rec.got()
	if len(got) != 3 || string(got[0]) != "fragmented" || string(got[1]) != long || len(got[2]) != 0 {
		t.Fatalf("messages %q", got)
	}
	if k := rec.kinds(); !slices.Equal(k, []Kind{PeerClosed}) || rec.failures[0].Code != ws.StatusGoingAway {
		t.Fatalf("failures %+v", rec.failures)
	}
	if rec.opened != 1 {
		t.Fatalf("Opened called %d times", rec.opened)
	}
}

func TestPeerCloseWithoutCodeIsNormal(t *testing.T) {
	for _, body := range [][]byte{nil, ws.NewCloseFrameBody(1005, "")} {
		rec := newRecorder()
		_, p := start(t, testOptions(), rec)
		p.write(t, frame(ws.OpClose, true, body))
		if code, _ := p.closeCode(t); code != CloseNormal {
			t.Fatalf("body %q: close echoed with %d, want 1000", body, code)
		}
		rec.waitClosed(t)
	}
}

func TestReadTimeoutCloses(t *testing.T) {
	opts := testOptions()
	opts.ReadTimeout = 50 * time.Millisecond
	rec := newRecorder()
	_, p := start(t, opts, rec)
	if code, _ := p.closeCode(t); code != codeTimeout {
		t.Fatalf("close code %d, want %d", code, codeTimeout)
	}
	rec.waitClosed(t)
	if k := rec.kinds(); !slices.Equal(k, []Kind{Timeout}) {
		t.Fatalf("failures %v", k)
	}
}

func TestPeerGoneWithoutClose(t *testing.T) {
	rec := newRecorder()
	_, p := start(t, testOptions(), rec)
	p.write(t, frame(ws.OpText, false, []byte("half"))) // then the stream ends
	_ = p.nc.Close()
	rec.waitClosed(t)
	if k := rec.kinds(); !slices.Equal(k, []Kind{Gone}) {
		t.Fatalf("failures %v", k)
	}
	if len(rec.got()) != 0 {
		t.Fatal("a half message was handed over")
	}
}

// A peer that does not read: the kernel's buffers fill, the writer blocks, the
// outbox fills, and the Send that finds it full closes the connection with
// Options.Overflow — no drain; the blocked write gives up within CloseGrace.
func TestSlowReaderOverflowCloses(t *testing.T) {
	opts := testOptions()
	opts.QueueSize = 4
	rec := newRecorder()
	c, p := start(t, opts, rec)
	chunk := TextFrame(bytes.Repeat([]byte("x"), 64<<10))
	deadline := time.Now().Add(20 * time.Second)
	for c.Send(chunk) == Sent {
		if time.Now().After(deadline) {
			t.Fatal("the outbox never filled")
		}
	}
	if code, _ := c.CloseCode(); code != codeOverflow || !c.Closing() {
		t.Fatalf("close code %d closing %v, want %d", code, c.Closing(), codeOverflow)
	}
	if r := c.Send(chunk); r != Shut {
		t.Fatalf("Send after the close answered %d, want Shut", r)
	}
	rec.waitClosed(t)
	if !p.ended(t) {
		t.Fatal("the server kept the connection open")
	}
}

// With the writer held (Options.HoldUntilOpen), the overflow is seen on the wire:
// the close frame carries Options.Overflow's code, and the held frames are dropped.
func TestOverflowCloseFrame(t *testing.T) {
	opts := testOptions()
	opts.QueueSize = 3
	opts.HoldUntilOpen = true
	rec := newRecorder()
	c, p := start(t, opts, rec)
	for i := range 3 {
		if r := c.Send(TextFrame([]byte(fmt.Sprint(i)))); r != Sent {
			t.Fatalf("send %d: %d", i, r)
		}
	}
	if r := c.Send(TextFrame([]byte("3"))); r != Full {
		t.Fatalf("fourth send answered %d, want Full", r)
	}
	code, texts := p.closeCode(t)
	if code != codeOverflow || len(texts) != 0 {
		t.Fatalf("close code %d after %q, want %d after nothing", code, texts, codeOverflow)
	}
	p.write(t, frame(ws.OpClose, true, nil))
	rec.waitClosed(t)
}

func TestHoldUntilOpen(t *testing.T) {
	opts := testOptions()
	opts.HoldUntilOpen = true
	rec := newRecorder()
	c, p := start(t, opts, rec)
	c.Send(TextFrame([]byte("second")))
	c.Send(TextFrame([]byte("third")))
	c.Open(TextFrame([]byte("first")))
	c.Send(TextFrame([]byte("fourth")))
	c.CloseWith(CloseNormal, "done", true)
	code, texts := p.closeCode(t)
	if code != CloseNormal || strings.Join(texts, " ") != "first second third fourth" {
		t.Fatalf("got %q then %d", texts, code)
	}
	p.write(t, frame(ws.OpClose, true, nil))
	rec.waitClosed(t)
}

// A drained close writes every queued frame, in order, before the close frame.
func TestCloseDrains(t *testing.T) {
	rec := newRecorder()
	opts := testOptions()
	opts.QueueSize = 1000
	c, p := start(t, opts, rec)
	var want []string
	for i := range 500 {
		want = append(want, fmt.Sprint(i, strings.Repeat(".", 1000)))
		c.Send(TextFrame([]byte(want[i])))
	}
	c.CloseWith(CloseGoingAway, "shutting down", true)
	c.CloseWith(codeOverflow, "too late", false) // the first close wins
	code, texts := p.closeCode(t)
	if code != CloseGoingAway || !slices.Equal(texts, want) {
		t.Fatalf("close %d after %d frames, want 1001 after %d", code, len(texts), len(want))
	}
	p.write(t, frame(ws.OpClose, true, nil))
	rec.waitClosed(t)
}

// A close that drains to a peer that reads nothing ends when the write times out,
// and a close asked during the drain changes nothing.
func TestCloseDuringDrainToStuckPeer(t *testing.T) {
	rec := newRecorder()
	opts := testOptions()
	opts.QueueSize = 1000
	opts.WriteTimeout = 300 * time.Millisecond
	c, p := start(t, opts, rec)
	chunk := TextFrame(bytes.Repeat([]byte("x"), 32<<10))
	for range 400 { // 13 MB: far more than the kernel buffers
		c.Send(chunk)
	}
	c.CloseWith(CloseGoingAway, "shutting down", true)
	c.CloseWith(codeOverflow, "during the drain", false)
	rec.waitClosed(t)
	if code, reason := c.CloseCode(); code != CloseGoingAway || reason != "shutting down" {
		t.Fatalf("close %d %q, want the first", code, reason)
	}
	if !p.ended(t) {
		t.Fatal("the server kept the connection open")
	}
}

// The peer's close frame while the server drains: the drain goes on, one close
// frame answers, the connection ends.
func TestPeerClosesDuringDrain(t *testing.T) {
	rec := newRecorder()
	opts := testOptions()
	opts.QueueSize = 1000
	c, p := start(t, opts, rec)
	for i := range 200 {
		c.Send(TextFrame([]byte(fmt.Sprint(i, strings.Repeat(".", 4000)))))
	}
	c.CloseWith(CloseGoingAway, "shutting down", true)
	p.write(t, frame(ws.OpClose, true, ws.NewCloseFrameBody(CloseNormal, "")))
	code, texts := p.closeCode(t)
	if code != CloseGoingAway || len(texts) != 200 {
		t.Fatalf("close %d after %d frames", code, len(texts))
	}
	rec.waitClosed(t)
	if len(rec.kinds()) != 0 {
		t.Fatalf("the handler was asked %v after the close", rec.kinds())
	}
}

func TestStartRefused(t *testing.T) {
	var g goroutine.Group
	g.Stop()
	rec := newRecorder()
	c := new(Conn)
	c.Init(nil, nil, testOptions(), rec)
	if c.Start(&g) {
		t.Fatal("Start ran on a stopped group")
	}
	rec.waitClosed(t)
	if code, _ := c.CloseCode(); code != CloseGoingAway {
		t.Fatalf("close code %d, want 1001", code)
	}
}

func TestCloseFrameReasonFits(t *testing.T) {
	f := CloseFrame(1002, strings.Repeat("é", 100)) // 200 bytes: cut
	h, err := ws.ReadHeader(bytes.NewReader(f))
	if err != nil || h.Length > ws.MaxControlFramePayloadSize || h.OpCode != ws.OpClose {
		t.Fatalf("%+v %v", h, err)
	}
	code, reason := ws.ParseCloseFrameData(f[len(f)-int(h.Length):])
	if code != 1002 || !strings.HasPrefix(strings.Repeat("é", 100), reason) || len(reason) < 120 {
		t.Fatalf("%d %q", code, reason)
	}
}

func TestValidate(t *testing.T) {
	for _, mutate := range []func(*Options){
		func(o *Options) { o.MaxMessageSize = 0 },
		func(o *Options) { o.QueueSize = 0 },
		func(o *Options) { o.WriteTimeout = 0 },
		func(o *Options) { o.ReadTimeout = -1 },
	} {
		o := testOptions()
		mutate(o)
		if o.Validate() == nil {
			t.Errorf("%+v validated", *o)
		}
	}
	if err := testOptions().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestReject(t *testing.T) {
	for _, peerCloses := range []bool{true, false} {
		t.Run(fmt.Sprint("peer closes ", peerCloses), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			cl, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			sv, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Reject(sv, sv, 4004, "not started", TextFrame([]byte(`{"type":"error"}`)))
			}()
			p := &peer{nc: cl, br: bufio.NewReader(cl)}
			code, texts := p.closeCode(t)
			if code != 4004 || len(texts) != 1 || texts[0] != `{"type":"error"}` {
				t.Fatalf("got %q then %d", texts, code)
			}
			if peerCloses {
				p.write(t, frame(ws.OpClose, true, ws.NewCloseFrameBody(code, "")))
				_ = cl.Close()
			}
			select {
			case <-done:
			case <-time.After(20 * time.Second): // CloseGrace bounds it when the peer stays
				t.Fatal("Reject did not return")
			}
			if !peerCloses && !p.ended(t) {
				t.Fatal("the connection stayed open")
			}
		})
	}
}
