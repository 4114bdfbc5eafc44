package main

import "testing"

// BenchmarkClusterFrozenNode is B7's frozen node: one of three nodes frozen with
// SIGSTOP for 10 s under web chat load (several connections whose actors are spread
// over the nodes, customers of each on every node, one message every 250 ms
// after each ack). It reports the acknowledgement latency of the customers with
// nothing on the frozen node (socket, inbound partition and ticket actor elsewhere)
// for the messages in flight during the freeze — target p99 < 1 s —, the worst
// latency of the customers whose ticket actor was on it (it moves), when the
// customers of its connections were served again, when the others dropped it, and
// what the run got wrong (lost or doubled messages, customers held up: must be 0).
// Run with -benchtime=1x.
func BenchmarkClusterFrozenNode(b *testing.B) {
	for range b.N {
		s := runStall(b)
		problems := s.problems()
		for _, p := range problems {
			b.Log(p)
		}
		others, moved := s.report(b)
		b.ReportMetric(pct(others, 50), "others-p50-ms")
		b.ReportMetric(pct(others, 99), "others-p99-ms")
		b.ReportMetric(pct(others, 100), "others-max-ms")
		b.ReportMetric(float64(len(others)), "others-acks")
		b.ReportMetric(pct(moved, 100), "ticket-moved-max-ms")
		b.ReportMetric(s.servedAgain(stallConnFrozen).Seconds(), "conn-moved-served-s")
		b.ReportMetric(s.failureSeen.Seconds(), "failure-seen-s")
		b.ReportMetric(float64(len(problems)), "problems")
	}
}
