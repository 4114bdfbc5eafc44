//go:build linux

package wsconn

import (
	"errors"
	"sync"
	"syscall"

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
		goroutine.Go(thePoll.run) // for the process's life
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
func pollable(nc any) (syscall.RawConn, int32, bool) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, 0, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, 0, false
	}
	var fd int32 = -1
	if err := rc.Control(func(f uintptr) { fd = int32(f) }); err != nil || fd < 0 {
		return nil, 0, false
	}
	return rc, fd, true
}

// readable reports whether rc's socket holds a byte to read, or its end, now,
// without waiting. An error other than "nothing yet" counts as readable: the
// reader then reads it.
func readable(rc syscall.RawConn) bool {
	var b [1]byte
	ready := true
	err := rc.Read(func(fd uintptr) bool {
		_, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		if errors.Is(err, unix.EAGAIN) {
			ready = false
		}
		return true // never wait here
	})
	return ready || err != nil
}
