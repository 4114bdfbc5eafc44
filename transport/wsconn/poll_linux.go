//go:build linux

package wsconn

import (
	"errors"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"atende/goroutine"
)

// poller tells parked connections that their socket has something to read: one
// epoll instance for the process and one goroutine blocked in epoll_wait, so that
// an idle connection holds no goroutine of its own. Each parked socket is armed
// level-triggered and one-shot (EPOLLONESHOT): arming a socket that already holds
// data reports it at once, so no byte that arrived before the arming is missed,
// and a report disarms it until the reader parks again.
//
// The socket stays the Go runtime's too (its netpoller has it in an epoll of its
// own, edge-triggered): the resumed reader reads through the net.Conn as usual.
type poller struct {
	epfd int

	mu    sync.Mutex      // guards conns
	conns map[int32]*Conn // by file descriptor: the connection registered on it
}

var (
	pollOnce sync.Once
	thePoll  *poller
	pollErr  error
)

// thePoller is the process's poller, started on first use.
func thePoller() (*poller, error) {
	pollOnce.Do(func() {
		fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			pollErr = err
			return
		}
		thePoll = &poller{epfd: fd, conns: make(map[int32]*Conn)}
		goroutine.Go(thePoll.run)   // for the process's life
		goroutine.Go(thePoll.sweep) // likewise
	})
	return thePoll, pollErr
}

// run waits for readiness and wakes the connection that is parked on it. A report
// whose generation is not the connection's current one (it was armed by an
// earlier park, or the descriptor now belongs to another connection) is dropped:
// a wake the connection did not ask for would at worst make its reader look,
// find nothing and park again.
func (p *poller) run() {
	events := make([]unix.EpollEvent, 256)
	for {
		n, err := unix.EpollWait(p.epfd, events, -1)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return // the descriptor is gone: nothing to wait on
		}
		for i := range events[:n] {
			ev := &events[i]
			p.mu.Lock()
			c := p.conns[ev.Fd]
			p.mu.Unlock()
			if c != nil && uint32(ev.Pad) == c.park.gen.Load() {
				c.wake()
			}
		}
	}
}

// sweepEvery is how often the poller looks for parked connections past their read
// deadline: a timeout is reported up to this late. One pass over the registered
// connections (atomic loads only) instead of a timer per connection.
const sweepEvery = 100 * time.Millisecond

// sweep wakes the parked connections whose read deadline passed; their reader
// reports the timeout.
func (p *poller) sweep() {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	var due []*Conn
	for range t.C {
		now := time.Now().UnixNano()
		p.mu.Lock()
		for _, c := range p.conns {
			if c.overdue(now) {
				due = append(due, c)
			}
		}
		p.mu.Unlock()
		for _, c := range due {
			c.wake()
		}
		clear(due)
		due = due[:0]
	}
}

// arm asks for one report when c's socket is readable (or its peer hung up).
func (p *poller) arm(c *Conn) error {
	gen := c.park.gen.Add(1)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: c.park.fd, Pad: int32(gen)}
	p.mu.Lock()
	defer p.mu.Unlock()
	op := unix.EPOLL_CTL_MOD
	if !c.park.registered {
		op = unix.EPOLL_CTL_ADD
		p.conns[c.park.fd] = c
	}
	if err := unix.EpollCtl(p.epfd, op, int(c.park.fd), &ev); err != nil {
		if !c.park.registered {
			delete(p.conns, c.park.fd)
		}
		return err
	}
	c.park.registered = true
	return nil
}

// forget removes c before its socket is closed, so that its descriptor, once
// reused, is not taken for c.
func (p *poller) forget(c *Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !c.park.registered {
		return
	}
	_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, int(c.park.fd), nil)
	if p.conns[c.park.fd] == c {
		delete(p.conns, c.park.fd)
	}
	c.park.registered = false
}

// pollable answers nc's descriptor, when the connection can park on it: a plain
// socket (a TLS connection, or a pipe in tests, buffers what the descriptor does
// not show).
func pollable(nc any) (int32, bool) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var fd int32 = -1
	if err := rc.Control(func(f uintptr) { fd = int32(f) }); err != nil || fd < 0 {
		return 0, false
	}
	return fd, true
}

// readable reports whether socket fd holds a byte to read, or its end, now,
// without waiting. An error other than "nothing yet" counts as readable: the
// reader then reads it. The descriptor is used directly, outside the net.Conn:
// only the connection's reader calls this, and the descriptor is closed only
// after the reader ended (Conn.exit).
func readable(fd int32) bool {
	var b [1]byte
	_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return !errors.Is(err, unix.EAGAIN)
}
