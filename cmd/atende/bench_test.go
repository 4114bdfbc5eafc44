package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// BenchmarkIngestWebChat is B3 of BENCHMARKS.md: web chat customers write at a target
// rate; each message goes through the connection and ticket actors into the durable
// journal (PostgreSQL, fsync on), the read models and the realtime publisher, to the
// sockets of supervisors watching the pending tab. It reports the latency from the
// customer's send to the event's arrival on a watching socket, and checks that every
// acknowledged message arrived exactly once.
//
// The load is bounded: ATENDE_B3_MESSAGES (default 4000) messages from
// ATENDE_B3_CUSTOMERS (400 new customers, each under the web chat's 10 messages/s per
// visitor) at ATENDE_B3_RATE (2000, the target) messages/s, watched by
// ATENDE_B3_WATCHERS (5) sockets. Customers, watchers and server share the box's
// cores; every customer opens a ticket with its first message. The server is a
// process of its own; this one (customers and watchers) is pinned to the last core
// unless ATENDE_B3_PIN=0. Latency is stamped on arrival at the first watcher, so a
// saturated generator core shows in it: server-cpu-s/1k tells the server's share.
func BenchmarkIngestWebChat(b *testing.B) {
	total := envInt("ATENDE_B3_MESSAGES", 4000)
	customers := envInt("ATENDE_B3_CUSTOMERS", 400)
	rate := envInt("ATENDE_B3_RATE", 2000) // BENCHMARKS.md: 2k inbound msgs/s
	watchers := envInt("ATENDE_B3_WATCHERS", 5)
	for i := 0; i < b.N; i++ {
		runIngest(b, total, customers, rate, watchers)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func runIngest(b *testing.B, total, customers, rate, watchers int) {
	// The server runs as its own process, unpinned; this process — the customers and
	// the watchers — is pinned to one core (BENCHMARKS.md).
	dbURL := dbtest.DurableURL(b, db.Postgres)
	p := startProcess(b, append([]string{"DATABASE_URL=" + dbURL, "DATA_DIR=" + b.TempDir(),
		"JWT_SECRET=" + strings.Repeat("e2e-secret-", 4), "SEED_DEMO=1", "LOG_LEVEL=error"}, loadLimitsOff...),
		freeAddr(b))
	defer func() { _ = p.cmd.Process.Kill(); _, _ = p.cmd.Process.Wait() }()
	connID := webChatOf(b, dbURL)
	pinned, unpin := 0.0, func() {}
	if os.Getenv("ATENDE_B3_PIN") != "0" {
		pinned, unpin = pinToLastCore()
	}
	defer unpin()
	admin := login(b, p.base, "carla@atende.local", "atende123")
	var socks []*sioClient
	for range watchers {
		s := dialSocket(b, p.base, admin.token, 0)
		s.emit("joinTickets", "pending")
		socks = append(socks, s)
	}
	custs := make([]*plainCustomer, customers)
	for i := range custs {
		c, err := rawCustomer(p.base, connID, fmt.Sprintf("b3-%d-%d", time.Now().UnixNano(), i))
		if err != nil {
			b.Fatal(err)
		}
		custs[i] = c
	}
	cpu0 := processCPU(b, p.cmd.Process.Pid)
	var mu sync.Mutex
	sentAt := make(map[string]time.Time, total)
	perCustomer := total / customers
	// acks: send to the widget's ack, the message durable in its ticket.
	acks, elapsed := offerLoad(b, custs, perCustomer, rate, "b3", func(body string) {
		mu.Lock()
		sentAt[body] = time.Now()
		mu.Unlock()
	})
	sent := perCustomer * customers
	var lat []time.Duration
	dups, missing := 0, 0
	deadline := time.Now().Add(30 * time.Second)
	for _, s := range socks {
		var got map[string]int
		for {
			got = map[string]int{}
			for _, ev := range s.receivedAt() {
				m, _ := ev.Body["message"].(map[string]any)
				body, _ := m["body"].(string)
				if ev.Name != "appMessage" || !strings.HasPrefix(body, "b3 ") {
					continue
				}
				got[body]++
				if got[body] == 1 && s == socks[0] {
					mu.Lock()
					lat = append(lat, ev.At.Sub(sentAt[body]))
					mu.Unlock()
				}
			}
			if len(got) >= sent || time.Now().After(deadline) {
				break
			}
			if s == socks[0] {
				lat = lat[:0] // counted again on the next pass
			}
			time.Sleep(50 * time.Millisecond)
		}
		select {
		case <-s.closed:
			s.mu.Lock()
			b.Logf("a watcher's socket closed after %d of %d messages: %v", len(got), sent, s.closeErr)
			s.mu.Unlock()
		default:
		}
		for body := range sentAt {
			switch got[body] {
			case 0:
				missing++
			case 1:
			default:
				dups++
			}
		}
	}
	if missing > 0 || dups > 0 {
		b.Errorf("B3: %d deliveries missing, %d duplicated", missing, dups)
	}
	b.ReportMetric(float64(sent)/elapsed.Seconds(), "msgs/s")
	b.ReportMetric(pct(lat, 50), "p50-ms")
	b.ReportMetric(pct(lat, 99), "p99-ms")
	b.ReportMetric(pct(acks, 50), "ack-p50-ms")
	b.ReportMetric(pct(acks, 99), "ack-p99-ms")
	b.ReportMetric(float64(watchers), "watchers")
	b.ReportMetric(float64(missing+dups), "lost+dup")
	b.ReportMetric((processCPU(b, p.cmd.Process.Pid)-cpu0).Seconds()*1000/float64(sent), "server-cpu-s/1k")
	b.ReportMetric(pinned, "loadgen-pinned")
}

// loadLimitsOff lifts the limits a load generator would hit. Every visitor of it
// comes from 127.0.0.1: the web chat's per-address and per-connection limits would
// refuse all but the first few. And the benchmarks measure the path at the offered
// rate: the admission control's places (64 per connection) would refuse whatever
// exceeds rate × latency instead, and the refusals are the overload test's to count
// (docs/channels.md).
var loadLimitsOff = []string{"WEBCHAT_NEW_VISITORS_PER_MINUTE=0", "WEBCHAT_MAX_CONNECTIONS_PER_ADDRESS=0",
	"WEBCHAT_HANDSHAKES_PER_MINUTE=0", "WEBCHAT_HANDSHAKES_PER_SECOND=0", "WEBCHAT_NEW_VISITORS_PER_CONNECTION=0",
	"INBOUND_MAX_IN_FLIGHT=0", "INBOUND_MAX_IN_FLIGHT_PER_CONNECTION=0"}

// offerLoad has each customer send perCustomer messages, "<tag> <customer>-<k>",
// taking turns so that the whole load keeps rate messages/s; sending is called with
// each body just before it goes. It answers every message's time from send to ack
// (the message durable in its ticket) and how long the sending took.
func offerLoad(b *testing.B, custs []*plainCustomer, perCustomer, rate int, tag string, sending func(body string)) ([]time.Duration, time.Duration) {
	var mu sync.Mutex
	var acks []time.Duration
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range custs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range perCustomer {
				due := start.Add(time.Duration(k*len(custs)+i) * interval)
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				body := fmt.Sprintf("%s %d-%d", tag, i, k)
				if sending != nil {
					sending(body)
				}
				at := time.Now()
				if err := c.say(fmt.Sprintf("m%d", k), body); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				acks = append(acks, time.Since(at))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acks, time.Since(start)
}

// webChatOf is the demo tenant's web chat connection in the database at dbURL.
func webChatOf(t testing.TB, dbURL string) engine.ID {
	t.Helper()
	d, err := db.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var id engine.ID
	if err := d.SQL.QueryRow(`SELECT id FROM connections WHERE channel = 'socket'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// pinToLastCore pins every thread of this process to the last CPU (threads started
// later inherit it from the thread that starts them) and returns 1, and a function
// that restores the affinity it found; 0 on a one-CPU box or where the kernel
// refuses.
func pinToLastCore() (float64, func()) {
	var was unix.CPUSet
	if runtime.NumCPU() < 2 || unix.SchedGetaffinity(0, &was) != nil {
		return 0, func() {}
	}
	var one unix.CPUSet
	one.Set(runtime.NumCPU() - 1)
	set := func(cpus *unix.CPUSet) bool {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return false
		}
		ok := true
		for _, task := range tasks {
			if tid, err := strconv.Atoi(task.Name()); err == nil {
				ok = unix.SchedSetaffinity(tid, cpus) == nil && ok
			}
		}
		return ok
	}
	if !set(&one) {
		set(&was)
		return 0, func() {}
	}
	return 1, func() { set(&was) }
}

// processCPU is the CPU time (user + system) process pid has used so far, from
// /proc/<pid>/stat (clock ticks of 1/100 s, Linux's USER_HZ).
func processCPU(t testing.TB, pid int) time.Duration {
	t.Helper()
	ticks, err := cpuTicks(fmt.Sprintf("/proc/%d/stat", pid), false)
	if err != nil {
		t.Fatal(err)
	}
	return ticks
}

// cpuTicks reads a /proc/<pid>/stat file: the process's user + system time, and
// with children also the time of the children it reaped (cutime, cstime).
func cpuTicks(path string, children bool) (time.Duration, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(fields) < 15 {
		return 0, fmt.Errorf("%s: %q", path, raw)
	}
	n := 13 // fields 14 and 15 of the whole line: utime, stime
	if children {
		n = 15 // and cutime, cstime
	}
	var sum int64
	for _, f := range fields[11:n] {
		v, _ := strconv.ParseInt(f, 10, 64)
		sum += v
	}
	return time.Duration(sum) * 10 * time.Millisecond, nil
}

// postgresCPU is the CPU time of this machine's PostgreSQL so far: user + system
// time of every postgres process, and of the exited ones the postmaster reaped
// (its children's time), so a backend that ended between two readings still counts.
func postgresCPU() time.Duration {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var sum time.Duration
	for _, dir := range dirs {
		if comm, err := os.ReadFile(dir + "/comm"); err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		if ticks, err := cpuTicks(dir+"/stat", true); err == nil {
			sum += ticks
		}
	}
	return sum
}
