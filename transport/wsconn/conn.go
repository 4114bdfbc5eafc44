package wsconn

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"

	"atende/goroutine"
)

// CloseGrace bounds the goodbye: writing the close frame when the frames before it
// are not drained, and waiting for the peer to close its side once ours is closed.
const CloseGrace = time.Second

// Options are the settings the connections of one server share: one value per
// server, passed by pointer and not changed once a connection uses it.
type Options struct {
	// MaxMessageSize bounds one inbound message, all its fragments; a bigger one is
	// refused as TooBig before its payload is read. Required (above 0).
	MaxMessageSize int64
	// QueueSize bounds the outbox, in frames. Required (above 0).
	QueueSize int
	// Overflow is how a connection is closed when a Send finds its outbox full, or
	// a write outlasts WriteTimeout (the peer does not read). Its Drain is ignored.
	Overflow Close
	// WriteTimeout bounds each write, and the upgrade's response. Required.
	WriteTimeout time.Duration
	// ReadTimeout, when set, moves the read deadline to ReadTimeout from now once
	// the connection opened and after each frame: a peer that sends nothing (not
	// even a pong) for that long is a Timeout. Zero: the protocol moves the deadline
	// itself (ExtendRead). A parked connection's timeout is reported up to 100 ms
	// late (the poller's sweep).
	ReadTimeout time.Duration
	// HoldUntilOpen holds every frame sent before Open, which then goes first.
	HoldUntilOpen bool
	// Written, when set, counts the frames written.
	Written *atomic.Int64
	// ParkIdle lets an idle connection hold no goroutine: between messages its
	// reader hands the socket to the process's poller (epoll, Linux only) and ends,
	// and its writer runs only while frames are queued. Without it, or where the
	// connection cannot park (not a plain socket, not Linux), a reader goroutine
	// waits in Read for the connection's life.
	ParkIdle bool
}

// Validate reports settings a connection cannot run with.
func (o *Options) Validate() error {
	switch {
	case o.MaxMessageSize <= 0:
		return fmt.Errorf("wsconn: MaxMessageSize %d is not above 0", o.MaxMessageSize)
	case o.QueueSize <= 0:
		return fmt.Errorf("wsconn: QueueSize %d is not above 0", o.QueueSize)
	case o.WriteTimeout <= 0:
		return fmt.Errorf("wsconn: WriteTimeout %s is not above 0", o.WriteTimeout)
	case o.ReadTimeout < 0:
		return errors.New("wsconn: negative ReadTimeout")
	}
	return nil
}

// Conn is one server-side websocket connection. Its zero value is not usable:
// Init it (a protocol embeds a Conn in its own connection struct, so that an idle
// connection is one allocation), then Start it.
type Conn struct {
	// static after Init
	nc   net.Conn
	src  io.Reader // nc, preceded by any bytes the HTTP server had buffered
	opts *Options
	h    Handler

	g    *goroutine.Group // held from Start until exit; nil when Start was refused
	out  outbox
	park parking

	dlMu  sync.Mutex  // orders read deadline changes
	final atomic.Bool // the goodbye deadline is set; no more extensions (set under dlMu)

	writer atomic.Int32 // writerOff, writerIdle, writerBusy or writerDone
	exits  atomic.Int32 // the reader's and the writer's work not yet finished
}

// The writer's states: it runs only while it has frames to write.
const (
	writerOff  int32 = iota // not started: frames wait for Start
	writerIdle              // nothing to write: the next frame starts a writer
	writerBusy              // a goroutine is writing
	writerDone              // the close frame went out, or writing failed
)

// Init prepares c for nc, read through src (nc itself, or what Upgrade answered),
// speaking the protocol h. nc and h may be nil for a connection that never
// starts: what is sent then stays queued (Pending), as in a protocol's unit tests.
func (c *Conn) Init(nc net.Conn, src io.Reader, opts *Options, h Handler) {
	c.nc, c.src, c.opts, c.h = nc, src, opts, h
	if c.src == nil && nc != nil {
		c.src = nc
	}
	c.out.held = opts.HoldUntilOpen
}

// Start runs c: its reader, and its writer whenever it has frames to write, within
// one hold on g (goroutine.Group.Hold) that ends with c. When g refuses (its owner
// is shutting down) c is closed with CloseGoingAway, Closed runs, and Start
// answers false.
func (c *Conn) Start(g *goroutine.Group) bool {
	if !g.Hold() {
		c.exits.Store(1) // the writer never runs
		c.CloseWith(CloseGoingAway, "server shutting down", false)
		c.exit()
		return false
	}
	if c.opts.ParkIdle && c.nc != nil {
		c.park.fd, c.park.pollable = pollable(c.nc)
	}
	c.begin(g, 2)
	goroutine.Go(c.readFirst)
	return true
}

// StartWriter runs c's writer alone, for a connection whose peer's frames are not
// read (a benchmark of the fan-out); it answers false when g refuses.
func (c *Conn) StartWriter(g *goroutine.Group) bool {
	if !g.Hold() {
		return false
	}
	c.begin(g, 1)
	return true
}

// begin records the hold on g and the work (reader and writer, or writer alone)
// that must end before c does, and lets the writer go for what was queued before.
func (c *Conn) begin(g *goroutine.Group, work int32) {
	c.g = g
	c.exits.Store(work)
	c.writer.Store(writerIdle)
	if c.out.due() {
		c.kick()
	}
}

// Send queues frames, all or none, without blocking. A full outbox closes c with
// Options.Overflow and answers Full; once c is closing frames are dropped (Shut).
func (c *Conn) Send(frames ...[]byte) Result {
	r, wake := c.out.push(c.opts.QueueSize, frames)
	switch {
	case r == Full:
		c.CloseWith(c.opts.Overflow.Code, c.opts.Overflow.Reason, false)
	case wake:
		c.kick()
	}
	return r
}

// Queue is Send without the close: a full outbox answers Full and c goes on.
func (c *Conn) Queue(frames ...[]byte) Result {
	r, wake := c.out.push(c.opts.QueueSize, frames)
	if wake {
		c.kick()
	}
	return r
}

// Open lets the writer go, first frame first (Options.HoldUntilOpen).
func (c *Conn) Open(first []byte) {
	c.out.open(first)
	c.kick()
}

// QueueSize is the most frames c's outbox holds.
func (c *Conn) QueueSize() int { return c.opts.QueueSize }

// Pending takes the frames queued and not yet written (all of them, held or not):
// for a connection whose writer does not run, as in a protocol's unit tests.
func (c *Conn) Pending() [][]byte { return c.out.takeAll() }

// CloseWith starts closing c, once (later calls do nothing): the outbox refuses
// further frames and the writer, after the pending frames if drain, sends a close
// frame with code and reason. Without drain a writer stuck on a peer that does not
// read gives up within CloseGrace. Safe from any goroutine and never blocks.
func (c *Conn) CloseWith(code ws.StatusCode, reason string, drain bool) {
	if !c.out.close(code, reason, drain) {
		return
	}
	if !drain && c.nc != nil {
		_ = c.nc.SetWriteDeadline(time.Now().Add(CloseGrace))
	}
	c.kick()
}

// Closing reports whether CloseWith was called.
func (c *Conn) Closing() bool { return c.out.closing.Load() }

// CloseCode is the close code and reason CloseWith was first called with; zero
// values before.
func (c *Conn) CloseCode() (ws.StatusCode, string) {
	c.out.mu.Lock()
	defer c.out.mu.Unlock()
	return c.out.code, c.out.reason
}

// ExtendRead moves the read deadline to d from now, unless the goodbye deadline
// is set.
func (c *Conn) ExtendRead(d time.Duration) {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	if !c.final.Load() {
		c.setReadDeadline(time.Now().Add(d))
	}
}

// finalRead sets the goodbye read deadline, after which the reader gives up, and
// wakes a parked reader to read until then.
func (c *Conn) finalRead(d time.Duration) {
	c.dlMu.Lock()
	c.final.Store(true)
	c.setReadDeadline(time.Now().Add(d))
	c.dlMu.Unlock()
	c.wake()
}

// setReadDeadline moves the read deadline: the socket's, for a reader at work; a
// parked one's is left unset (the poller's sweep watches the connection's, and a
// woken reader sets the socket's again: unpark). Caller holds dlMu.
func (c *Conn) setReadDeadline(at time.Time) {
	c.park.deadline.Store(at.UnixNano())
	if !c.park.parked.Load() {
		_ = c.nc.SetReadDeadline(at)
	}
}

// kick starts the writer when it is idle; a busy writer sees the new frames
// before it stops (writeRun).
func (c *Conn) kick() {
	if c.writer.CompareAndSwap(writerIdle, writerBusy) {
		goroutine.Go(c.writeRun) // inside the hold Start took on the group
	}
}

// exit ends the reader's or the writer's work for good; the last one out closes
// nc, tells the handler and releases the group.
func (c *Conn) exit() {
	if c.exits.Add(-1) != 0 {
		return
	}
	if c.park.pollable {
		if p, err := thePoller(); err == nil {
			p.forget(c) // before the descriptor can be reused
		}
	}
	if c.nc != nil {
		_ = c.nc.Close()
	}
	if c.h != nil {
		c.h.Closed()
	}
	if c.g != nil {
		c.g.Release()
	}
}
