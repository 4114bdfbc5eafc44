package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// BenchmarkIdleSocketRSS is B1 of BENCHMARKS.md measured where it counts: the
// resident memory the running server (a process of its own, PostgreSQL behind it)
// gains per idle attendant socket. ATENDE_B1_SOCKETS (default 15,000) attendants of
// the demo tenant connect, as the web app does (token at CONNECT, then the open
// tickets list and the notifications joined), answer the server's pings and
// otherwise stay silent. The figure is the growth of the server's VmRSS from before
// the first socket to 10 s after the last (ATENDE_B1_SETTLE seconds), divided by
// the sockets: everything the
// process holds for them (heap, stacks, the runtime's poll descriptors, the
// garbage between two collections), not only a micro-benchmark's live heap.
//
// The connections arrive as a reconnect storm would: 64 at once, as fast as the
// node admits them (SOCKET_HANDSHAKES_PER_SECOND, raised here from its default of
// 100 so the storm takes seconds, not minutes). Meanwhile a probe asks /readyz
// every 50 ms: probe-p99-ms says whether the node kept serving.
//
// The sockets' count is bounded by the open-file limit of this box (RLIMIT_NOFILE
// 20,000 for each process, which a process here may not raise), not by the server:
// each socket is a descriptor in the server and one in this process.
func BenchmarkIdleSocketRSS(b *testing.B) {
	n := envInt("ATENDE_B1_SOCKETS", 15000)
	dbURL := dbtest.URL(b, db.Postgres)
	private := freeAddr(b)
	p := startProcess(b, []string{"DATABASE_URL=" + dbURL, "METRICS_ADDR=" + private, "DATA_DIR=" + b.TempDir(),
		"JWT_SECRET=" + strings.Repeat("e2e-secret-", 4), "SEED_DEMO=1", "LOG_LEVEL=error",
		// One client address for every attendant: lift the per-address bounds.
		"SOCKET_MAX_CONNECTIONS=0", "SOCKET_MAX_CONNECTIONS_PER_ADDRESS=0", "SOCKET_HANDSHAKES_PER_MINUTE=0",
		"SOCKET_HANDSHAKES_PER_SECOND=2000"},
		freeAddr(b))
	defer func() { _ = p.cmd.Process.Kill(); _, _ = p.cmd.Process.Wait() }()
	admin := login(b, p.base, "carla@atende.local", "atende123")
	u := strings.Replace(p.base, "http://", "ws://", 1) + "/socket.io/?EIO=4&transport=websocket"

	var socks []net.Conn
	defer func() {
		for _, c := range socks {
			_ = c.Close()
		}
	}()
	// One socket first, closed again: the code paths and pools of a socket are
	// warm before the baseline.
	warm, err := idleAttendant(u, admin.token)
	if err != nil {
		b.Fatal(err)
	}
	_ = warm.Close()
	time.Sleep(3 * time.Second)
	rss0 := processRSS(b, p.cmd.Process.Pid)
	g0 := goroutines(b, private)

	probeStop := make(chan struct{})
	probes := make(chan []time.Duration, 1)
	go func() { probes <- probeReady(p.base, probeStop) }()
	start := time.Now()
	var mu sync.Mutex
	err = inParallel(64, n, func(int) error {
		c, err := idleAttendant(u, admin.token)
		if err != nil {
			return err
		}
		mu.Lock()
		socks = append(socks, c)
		mu.Unlock()
		return nil
	})
	storm := time.Since(start)
	close(probeStop)
	lat := <-probes
	if err != nil {
		b.Fatalf("after %d sockets: %v", len(socks), err)
	}
	time.Sleep(time.Duration(envInt("ATENDE_B1_SETTLE", 10)) * time.Second)
	rss1 := processRSS(b, p.cmd.Process.Pid)
	g1 := goroutines(b, private)
	// The server's heap with the sockets open, for go tool pprof.
	saveHeap(b, private, os.Getenv("ATENDE_B1_HEAP"))
	b.ReportMetric(float64(rss1-rss0)/float64(n), "rss-B/socket")
	b.ReportMetric(float64(g1-g0)/float64(n), "goroutines/socket")
	b.ReportMetric(float64(n), "sockets")
	b.ReportMetric(float64(rss0)/(1<<20), "rss-MiB-before")
	b.ReportMetric(float64(n)/storm.Seconds(), "connects/s")
	b.ReportMetric(pct(lat, 99), "probe-p99-ms")
}

// idleAttendant connects one attendant socket at u the way the web app does and
// leaves it idle: a goroutine of this process answers the server's pings and
// drops everything else. A refused handshake (503 while the node admits no more
// sockets this second) is tried again after a pause.
func idleAttendant(u, token string) (net.Conn, error) {
	var conn net.Conn
	var br *bufio.Reader
	for attempt := 0; ; attempt++ {
		var err error
		conn, br, _, err = ws.Dial(context.Background(), u)
		if err == nil {
			break
		}
		var status ws.StatusError
		if !errors.As(err, &status) || attempt == 50 {
			return nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	rw := readWriter(conn, br)
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	read := func() (string, error) { // the next packet that is not a ping (answered)
		for {
			b, err := wsutil.ReadServerText(rw)
			if err != nil || string(b) != "2" {
				return string(b), err
			}
			_ = wsutil.WriteClientText(conn, []byte("3"))
		}
	}
	if open, err := read(); err != nil || !strings.HasPrefix(open, "0{") {
		conn.Close()
		return nil, fmt.Errorf("open packet %q: %v", open, err)
	}
	auth, _ := json.Marshal(map[string]any{"token": token})
	for _, pkt := range []string{"40" + string(auth), `42["joinTickets","open"]`, `42["joinNotification"]`} {
		if err := wsutil.WriteClientText(conn, []byte(pkt)); err != nil {
			conn.Close()
			return nil, err
		}
		if pkt[1] == '0' {
			if got, err := read(); err != nil || !strings.HasPrefix(got, "40{") {
				conn.Close()
				return nil, fmt.Errorf("connect answered %q: %v", got, err)
			}
		}
	}
	_ = conn.SetDeadline(time.Time{})
	go func() {
		for {
			b, err := wsutil.ReadServerText(rw)
			if err != nil {
				return
			}
			if string(b) == "2" {
				_ = wsutil.WriteClientText(conn, []byte("3"))
			}
		}
	}()
	return conn, nil
}

// probeReady asks base's /readyz every 50 ms until stop and answers the latencies.
func probeReady(base string, stop <-chan struct{}) []time.Duration {
	client := &http.Client{Timeout: 10 * time.Second}
	var lat []time.Duration
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return lat
		case <-t.C:
		}
		at := time.Now()
		res, err := client.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
		}
		lat = append(lat, time.Since(at))
	}
}

// goroutines is the goroutine count of the server whose metrics listener is at addr.
func goroutines(t testing.TB, addr string) int {
	t.Helper()
	res, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	line, _ := bufio.NewReader(res.Body).ReadString('\n')
	var total int
	if _, err := fmt.Sscanf(line, "goroutine profile: total %d", &total); err != nil {
		t.Fatalf("goroutine profile %q: %v", line, err)
	}
	return total
}

// inParallel calls do with 1 to n from workers goroutines and returns the first
// error, after which the workers take no more.
func inParallel(workers, n int, do func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n) && failed.Load() == nil; i = next.Add(1) {
				if err := do(int(i)); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	err, _ := failed.Load().(error)
	return err
}

// saveHeap writes the heap profile of the server whose private listener is at
// metricsAddr to path, for go tool pprof; an empty path saves nothing.
func saveHeap(t testing.TB, metricsAddr, path string) {
	t.Helper()
	if path == "" {
		return
	}
	res, err := http.Get("http://" + metricsAddr + "/debug/pprof/heap")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	prof, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("heap profile: %d, %v", res.StatusCode, err)
	}
	if err := os.WriteFile(path, prof, 0o644); err != nil {
		t.Fatal(err)
	}
}

// processRSS is process pid's resident set, in bytes (VmRSS of /proc/<pid>/status).
func processRSS(t testing.TB, pid int) int64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("/proc/%d/status has no VmRSS", pid)
	return 0
}
