package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
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
// this process, pinned to the last core unless ATENDE_B3_PIN=0.
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
	p50, p99 time.Duration
	rate     int // messages acknowledged per second of the send phase
}

// runScaleOut offers the load to nodes server processes (1: a plain node; more: a
// cluster) and measures it.
func runScaleOut(b *testing.B, nodes, total, customers, rate int) scaleOut {
	var bases []string
	var pids []int
	var connID engine.ID
	if nodes == 1 {
		dbURL := dbtest.URL(b, db.Postgres)
		p := startProcess(b, append([]string{"DATABASE_URL=" + dbURL, "DATA_DIR=" + b.TempDir(),
			"JWT_SECRET=" + strings.Repeat("e2e-secret-", 4), "SEED_DEMO=1", "LOG_LEVEL=error"}, loadLimitsOff...), freeAddr(b))
		defer func() { _ = p.cmd.Process.Kill(); _, _ = p.cmd.Process.Wait() }()
		bases, pids, connID = []string{p.base}, []int{p.cmd.Process.Pid}, webChatOf(b, dbURL)
	} else {
		c := newCluster(b)
		c.env = append(c.env, loadLimitsOff...)
		c.env = append(c.env, "LOG_LEVEL=error")
		for i := range nodes {
			n := c.start(fmt.Sprintf("127.0.0.%d", i+1))
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
	cpu0 := cpu()
	perCustomer := total / customers
	acks, elapsed := offerLoad(b, custs, perCustomer, rate, "b9", nil)
	time.Sleep(2 * time.Second) // the read models and the sockets finish the last messages
	used := cpu() - cpu0
	if b.Failed() {
		b.FailNow()
	}
	sent := perCustomer * customers
	if len(acks) != sent {
		b.Fatalf("%d of %d messages acknowledged", len(acks), sent)
	}
	slices.Sort(acks)
	out := scaleOut{cpuPer1k: used.Seconds() * 1000 / float64(sent), p50: acks[len(acks)/2],
		p99: acks[len(acks)*99/100], rate: int(float64(sent) / elapsed.Seconds())}
	b.Logf("%d node(s): %d messages in %v, server CPU %v (%.3f s per 1,000), ack p50 %v p99 %v",
		nodes, sent, elapsed.Round(time.Millisecond), used, out.cpuPer1k, out.p50, out.p99)
	return out
}
