package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// tcpProxy forwards connections to a TCP address until cut: then it closes every
// connection it carries and refuses new ones, as a database host lost to one node
// would look to that node (its sessions reset, new ones refused).
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
}

func newTCPProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target}
	t.Cleanup(p.cutOff)
	go p.serve()
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			in.Close()
			out.Close()
			return
		}
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); out.Close() }()
		go func() { _, _ = io.Copy(in, out); in.Close() }()
	}
}

// cutOff closes the listener and every carried connection.
func (p *tcpProxy) cutOff() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// viaProxy is dbURL with its host:port replaced by addr.
func viaProxy(dbURL, addr string) string {
	return strings.Replace(dbURL, hostOf(dbURL), addr, 1)
}

// TestClusterNodeThatLosesTheDatabaseLeaves: three nodes under web chat traffic; the
// node hosting the web chat connection's actor loses PostgreSQL (its sessions reset,
// new ones refused). It leaves the cluster and exits 1 (DATABASE_LOST_AFTER), the two
// others serve every customer again, and no acknowledged message is lost.
func TestClusterNodeThatLosesTheDatabaseLeaves(t *testing.T) {
	c := newCluster(t)
	if !strings.Contains(c.dbURL, hostOf(c.dbURL)) {
		t.Fatalf("cannot find the database host in %s", c.dbURL)
	}
	proxies := map[*cnode]*tcpProxy{}
	for _, ip := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		p := newTCPProxy(t, hostOf(c.dbURL))
		n := c.start(ip, "DATABASE_URL="+viaProxy(c.dbURL, p.addr()))
		proxies[n] = p
	}
	const customers = 9
	tr := c.customers(customers, 120*time.Millisecond)
	waitLong(t, 30*time.Second, "traffic", func() bool { return tr.ackCount() >= 10*customers })
	victim := c.connectionHost()
	if victim == nil {
		t.Fatal("no node hosts the web chat connection's actor")
	}
	var survivors []*cnode
	for _, n := range c.all() {
		if n != victim {
			survivors = append(survivors, n)
		}
	}
	t.Logf("cutting %s (hosts the web chat connection's actor) off PostgreSQL; %d messages acknowledged so far",
		victim.name, tr.ackCount())
	exited := make(chan error, 1)
	go func() { exited <- victim.cmd.Wait() }()
	cutAt := tr.setMark()
	proxies[victim].cutOff()

	// A load balancer stops sending new customers once /readyz fails.
	waitLong(t, 30*time.Second, "the cut-off node's /readyz to fail", func() bool {
		res, err := http.Get(victim.base + "/readyz")
		if err != nil {
			return true
		}
		res.Body.Close()
		return res.StatusCode != http.StatusOK
	})
	victim.mu.Lock()
	victim.down = true
	victim.mu.Unlock()
	waitLong(t, 30*time.Second, "the survivors to drop the cut-off node", func() bool {
		for _, n := range survivors {
			if metrics(n.base)["atende_cluster_members"] != 2 {
				return false
			}
		}
		return true
	})
	left := time.Since(cutAt)
	waitLong(t, 60*time.Second, "every customer acknowledged again", func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return len(tr.firstAck) == customers
	})
	var serving time.Duration
	tr.mu.Lock()
	for _, at := range tr.firstAck {
		serving = max(serving, at.Sub(cutAt))
	}
	tr.mu.Unlock()
	select {
	case err := <-exited:
		var ee interface{ ExitCode() int }
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("the cut-off node exited with %v, want status 1", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("the cut-off node did not exit")
	}
	exitedAfter := time.Since(cutAt)
	time.Sleep(500 * time.Millisecond) // more traffic on the survivors
	tr.end()

	stored := c.verifyJournal(tr, customers, survivors[0])
	tr.mu.Lock()
	lost := 0
	for pid := range tr.acked {
		if stored[pid] != 1 {
			lost++
		}
	}
	acked := len(tr.acked)
	tr.mu.Unlock()
	if lost > 0 {
		t.Errorf("%d of %d acknowledged messages lost", lost, acked)
	}
	t.Logf("database lost on one node: left the cluster after %v, every customer served again after %v, exited after %v; %d acknowledged, %d lost",
		left, serving, exitedAfter, acked, lost)
}
