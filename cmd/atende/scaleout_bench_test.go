package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// BenchmarkClusterCPUPerMessage is B9's scale-out cost: the same web chat load —
// ATENDE_B9_MESSAGES (default 6000) messages from ATENDE_B9_CUSTOMERS (120) new
// customers at ATENDE_B9_RATE (300) messages/s, watched by three supervisors'
// sockets on the pending tab — offered to one node (not in cluster mode) and to a
// cluster of three nodes (customers and supervisors spread over them), each server a
// process of its own on the same PostgreSQL. It reports the servers' total CPU
// seconds per 1,000 messages of each (user + system time of every node process, read
// from /proc, from the first send until 2 s after the last acknowledgement), their
// ratio (target ≤ 1.3) and the acknowledgement latencies. The load generator runs in
// this process, pinned to the last core unless ATENDE_B3_PIN=0. With
// ATENDE_B9_PROFILE set to a folder, each server's CPU profile of the send phase is
// written there (b9-<nodes>-<node>.pprof), read from its metrics listener.
func BenchmarkClusterCPUPerMessage(b *testing.B) {
	total := envInt("ATENDE_B9_MESSAGES", 6000)
	customers := envInt("ATENDE_B9_CUSTOMERS", 120)
	rate := envInt("ATENDE_B9_RATE", 300)
	for range b.N {
		one := runScaleOut(b, 1, total, customers, rate)
		three := runScaleOut(b, 3, total, customers, rate)
		b.ReportMetric(one.cpuPer1k, "one-node-cpu-s/1k")
		b.ReportMetric(three.cpuPer1k, "three-nodes-cpu-s/1k")
		b.ReportMetric(three.cpuPer1k/one.cpuPer1k, "cpu-ratio")
		b.ReportMetric(one.dbPer1k, "one-node-db-cpu-s/1k")
		b.ReportMetric(three.dbPer1k, "three-nodes-db-cpu-s/1k")
		b.ReportMetric(ms(one.p50), "one-node-ack-p50-ms")
		b.ReportMetric(ms(one.p99), "one-node-ack-p99-ms")
		b.ReportMetric(ms(three.p50), "three-nodes-ack-p50-ms")
		b.ReportMetric(ms(three.p99), "three-nodes-ack-p99-ms")
		b.ReportMetric(float64(one.rate), "one-node-msgs/s")
		b.ReportMetric(float64(three.rate), "three-nodes-msgs/s")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// scaleOut is what one run of runScaleOut measured.
type scaleOut struct {
	cpuPer1k float64
	// dbPer1k is PostgreSQL's CPU seconds per 1,000 messages (the whole server's:
	// nothing else runs during a benchmark).
	dbPer1k  float64
	p50, p99 time.Duration
	rate     int // messages acknowledged per second of the send phase
}

// runScaleOut offers the load to nodes server processes (1: a plain node; more: a
// cluster) and measures it.
func runScaleOut(b *testing.B, nodes, total, customers, rate int) scaleOut {
	var bases, metrics []string
	var pids []int
	var connID engine.ID
	profiles := os.Getenv("ATENDE_B9_PROFILE")
	metricsEnv := func(ip string) []string {
		if profiles == "" {
			return nil
		}
		addr := freeAddrOn(b, ip)
		metrics = append(metrics, "http://"+addr)
		return []string{"METRICS_ADDR=" + addr}
	}
	if nodes == 1 {
		dbURL := dbtest.URL(b, db.Postgres)
		env := append([]string{"DATABASE_URL=" + dbURL, "DATA_DIR=" + b.TempDir(),
			"JWT_SECRET=" + strings.Repeat("e2e-secret-", 4), "SEED_DEMO=1", "LOG_LEVEL=error"}, loadLimitsOff...)
		p := startProcess(b, append(env, metricsEnv("127.0.0.1")...), freeAddr(b))
		defer func() { _ = p.cmd.Process.Kill(); _, _ = p.cmd.Process.Wait() }()
		bases, pids, connID = []string{p.base}, []int{p.cmd.Process.Pid}, webChatOf(b, dbURL)
	} else {
		c := newCluster(b)
		c.env = append(c.env, loadLimitsOff...)
		c.env = append(c.env, "LOG_LEVEL=error")
		for i := range nodes {
			ip := fmt.Sprintf("127.0.0.%d", i+1)
			n := c.start(ip, metricsEnv(ip)...)
			bases, pids = append(bases, n.base), append(pids, n.cmd.Process.Pid)
		}
		connID = c.connID
	}
	if os.Getenv("ATENDE_B3_PIN") != "0" {
		_, unpin := pinToLastCore()
		defer unpin()
	}
	for i := range 3 {
		base := bases[i%len(bases)]
		s := dialSocket(b, base, login(b, base, "carla@atende.local", "atende123").token, 0)
		s.emit("joinTickets", "pending")
	}
	custs := make([]*plainCustomer, customers)
	for i := range custs {
		c, err := rawCustomer(bases[i%len(bases)], connID, fmt.Sprintf("b9-%d-%d-%d", nodes, time.Now().UnixNano(), i))
		if err != nil {
			b.Fatal(err)
		}
		custs[i] = c
	}
	cpu := func() (sum time.Duration) {
		for _, pid := range pids {
			sum += processCPU(b, pid)
		}
		return sum
	}
	cpu0, db0 := cpu(), postgresCPU()
	perCustomer := total / customers
	profiled := profileCPU(b, profiles, metrics, fmt.Sprintf("b9-%d", nodes), max(1, total/rate-2))
	defer profiled()
	acks, elapsed := offerLoad(b, custs, perCustomer, rate, "b9", nil)
	time.Sleep(2 * time.Second) // the read models and the sockets finish the last messages
	used, dbUsed := cpu()-cpu0, postgresCPU()-db0
	if b.Failed() {
		b.FailNow()
	}
	sent := perCustomer * customers
	if len(acks) != sent {
		b.Fatalf("%d of %d messages acknowledged", len(acks), sent)
	}
	slices.Sort(acks)
	out := scaleOut{cpuPer1k: used.Seconds() * 1000 / float64(sent), dbPer1k: dbUsed.Seconds() * 1000 / float64(sent), p50: acks[len(acks)/2],
		p99: acks[len(acks)*99/100], rate: int(float64(sent) / elapsed.Seconds())}
	b.Logf("%d node(s): %d messages in %v, server CPU %v (%.3f s per 1,000), PostgreSQL CPU %v, ack p50 %v p99 %v",
		nodes, sent, elapsed.Round(time.Millisecond), used, out.cpuPer1k, dbUsed, out.p50, out.p99)
	return out
}

// profileCPU starts a CPU profile of secs seconds on each metrics listener and
// returns a function that waits for them and writes dir/<name>-<i>.pprof. With no
// dir it does nothing.
func profileCPU(b *testing.B, dir string, metrics []string, name string, secs int) (wait func()) {
	if dir == "" {
		return func() {}
	}
	var wg sync.WaitGroup
	for i, base := range metrics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, secs))
			if err != nil {
				b.Errorf("profile %s: %v", base, err)
				return
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err == nil && res.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d: %s", res.StatusCode, body)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, i)), body, 0o644)
			}
			if err != nil {
				b.Errorf("profile %s: %v", base, err)
			}
		}()
	}
	return wg.Wait
}
