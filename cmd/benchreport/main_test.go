package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
pkg: atende/persistence/journal
BenchmarkAppendGroupCommit/postgres-2     1   2345678 ns/op   21000 events/s   3.2 p50-ms   8.9 p99-ms
BenchmarkAppendOneInsertPerEvent/postgres-2  1  99 ns/op  4800 events/s
pkg: atende/transport/socket
BenchmarkFanout-2   1  1000 ns/op  160000 deliveries/s
BenchmarkSomethingElse-2 10 5 ns/op
PASS
`

func TestParseAndWrite(t *testing.T) {
	rs, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("parsed %d results, want 4: %+v", len(rs), rs)
	}
	if rs[0].Name != "AppendGroupCommit/postgres" || rs[0].Pkg != "atende/persistence/journal" {
		t.Fatalf("first result %+v", rs[0])
	}
	if got := rs[0].Metrics[1]; got.Value != "21000" || got.Unit != "events/s" {
		t.Fatalf("metric %+v", got)
	}
	var b strings.Builder
	write(&b, rs)
	md := b.String()
	for _, want := range []string{"## B4", "AppendGroupCommit/postgres | persistence/journal | 2345678 ns/op, 21000 events/s", "## B2", "160000 deliveries/s", "## Other benchmarks", "SomethingElse"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "## B8 — browser inbox\n\nTarget: ") || !strings.Contains(md, "Not measured by this run.") {
		t.Errorf("unmeasured figures must say so:\n%s", md)
	}
}
