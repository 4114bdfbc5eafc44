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

var now = run{When: "2026-11-24 03:00 UTC", Commit: "abc1234"}

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
	write(&b, now, rs, nil, nil)
	md := b.String()
	for _, want := range []string{"## B4", "AppendGroupCommit/postgres | persistence/journal | 2345678 ns/op, 21000 events/s", "## B2", "160000 deliveries/s", "## Other benchmarks", "SomethingElse"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(md, "## B8 — browser inbox\n\nTarget: ") || !strings.Contains(md, "Not measured yet.") {
		t.Errorf("unmeasured figures must say so:\n%s", md)
	}
}

func TestBrowserFigureFromExtra(t *testing.T) {
	extra := "## B8 — browser: inbox with 100,020 open tickets and 100 updates/s\n\nMeasured by ...\n\n## Notes\n"
	got := figureHeadings(extra)
	if len(got) != 1 || got["B8"] != "B8 — browser: inbox with 100,020 open tickets and 100 updates/s" {
		t.Fatalf("figureHeadings = %v", got)
	}
	var b strings.Builder
	write(&b, now, nil, got, nil)
	md := b.String()
	b8 := md[strings.Index(md, "## B8"):]
	if !strings.Contains(b8, `See "B8 — browser: inbox with 100,020 open tickets and 100 updates/s" below`) {
		t.Errorf("B8 section does not point to the browser report:\n%s", b8)
	}
	if !strings.Contains(md, "## B7 — cluster failover\n\nTarget: ") || strings.Count(md, "Not measured yet.") != len(figures)-1 {
		t.Errorf("the other figures must still say they were not measured:\n%s", md)
	}
	if len(figureHeadings("no headings\n## Other\n## B99 x\n")) != 0 {
		t.Error("only known figure ids count")
	}
}

// A run of some packages only keeps the other figures' sections from the earlier
// report, dated by the run that measured them; a kept section stays dated by its
// own run however many partial runs follow.
func TestPartialRunKeepsEarlierFigures(t *testing.T) {
	first, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	write(&b, run{When: "2026-11-20 10:00 UTC", Commit: "1111111"}, first, nil, nil)
	earlier := b.String() + "\n## B8 — browser: inbox with 5 tickets\n\nappended report\n"

	cluster := "pkg: atende/cmd/atende\nBenchmarkFailoverKillOneOfThree-2 1 9 ns/op 0.7 failure-seen-s\n"
	second, _ := parse(strings.NewReader(cluster))
	b.Reset()
	write(&b, run{When: "2026-11-21 10:00 UTC", Commit: "2222222"}, second, nil, previousSections(earlier))
	md := b.String()
	section := func(md, id string) string {
		s := md[strings.Index(md, "## "+id+" "):]
		if i := strings.Index(s[3:], "\n## "); i >= 0 {
			s = s[:i+3]
		}
		return s
	}
	b4 := section(md, "B4")
	if !strings.Contains(b4, "Measured on 2026-11-20 10:00 UTC at commit 1111111"+keptNote+".") ||
		!strings.Contains(b4, "21000 events/s") {
		t.Errorf("B4 must be kept with its own date:\n%s", b4)
	}
	if b7 := section(md, "B7"); !strings.Contains(b7, "Measured on 2026-11-21 10:00 UTC at commit 2222222.") ||
		!strings.Contains(b7, "0.7 failure-seen-s") || strings.Contains(b7, "kept") {
		t.Errorf("B7 was measured by this run:\n%s", b7)
	}
	if _, other, ok := strings.Cut(md, otherHeading); !ok || !strings.Contains(other, "SomethingElse") ||
		!strings.Contains(other, "Measured on 2026-11-20 10:00 UTC at commit 1111111"+keptNote+".") {
		t.Errorf("the other benchmarks must be kept with their own date:\n%s", md)
	}
	if b8 := section(md, "B8"); !strings.Contains(b8, "Not measured yet.") {
		t.Errorf("an appended browser report is not a section to keep:\n%s", b8)
	}

	third, _ := parse(strings.NewReader("pkg: atende/transport/socket\nBenchmarkFanout-2 1 5 ns/op 1 deliveries/s\n"))
	b.Reset()
	write(&b, run{When: "2026-11-22 10:00 UTC", Commit: "3333333"}, third, nil, previousSections(md))
	md = b.String()
	if b4 := section(md, "B4"); strings.Count(b4, keptNote) != 1 || !strings.Contains(b4, "2026-11-20 10:00 UTC at commit 1111111") {
		t.Errorf("a kept section keeps its first date, noted once:\n%s", b4)
	}
	if b7 := section(md, "B7"); !strings.Contains(b7, "Measured on 2026-11-21 10:00 UTC at commit 2222222"+keptNote+".") {
		t.Errorf("B7 is now kept from the second run:\n%s", b7)
	}
	if len(previousSections("")) != 0 || len(previousSections("# Benchmarks\n## B4 — journal append, durable, group commit\n\nTarget: x.\n\n| a |\n")) != 0 {
		t.Error("a section without a date to vouch for it is not kept")
	}
}

// Every figure's benchmarks land under its heading, whatever their naming style.
func TestFigureOf(t *testing.T) {
	for name, want := range map[string]string{
		"B6TicketList/first-page":       "B6",
		"IdleSocketMemory":              "B1",
		"FailoverKillOneOfThree":        "B7",
		"ClusterCrossNodeRequest":       "B7",
		"ReadStreamWithSnapshot/sqlite": "B5",
		"FootprintAtVolume":             "B10",
		"FootprintAtVolume/footprint":   "B10",
		"DashboardQuery/postgres":       "B12",
		"SendAttemptRecord":             "",
		// BENCHMARKS.md's B9 is cluster scale-out, B11 durable timers and outbound
		// jobs; the longest prefix wins over B4's Append and B7's Cluster.
		"AppendGroupCommit/postgres-unnest":  "B4",
		"AppendThreePools/parallel":          "B9",
		"ClusterFrozenNode":                  "B9",
		"ClusterCPUPerMessage":               "B9",
		"ScheduleFire/burst-10k":             "B11",
		"ScheduleFireRealSend/steady-1000ps": "B11",
		"CampaignSend":                       "B11",
		"FootprintAtVolume/side-by-side":     "S1",
	} {
		if got := figureOf(name); got != want {
			t.Errorf("figureOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// The side-by-side figure prints the peer's published figures beside ours, a row per
// shape, above the usual table of the run's metrics.
func TestSideBySideWithThePeer(t *testing.T) {
	out := "pkg: atende/cmd/atende\n" +
		"BenchmarkFootprintAtVolume/footprint-2 1 9 ns/op 1142 db-MB 65.2 rss-MiB-idle\n" +
		"BenchmarkFootprintAtVolume/side-by-side-2 1 9 ns/op 2.4 open-p50-ms 3.1 open-p95-ms 12 event-p50-ms 26 event-p99-ms\n"
	rs, err := parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	write(&b, now, rs, nil, nil)
	md := b.String()
	s1 := md[strings.Index(md, "## S1 — side by side with whaticket-community"):]
	for _, want := range []string{
		"| open ticket list, page 1 | p50 34.7 ms | p50 2.4 ms, p95 3.1 ms |",
		"| 200 attendant sockets, 20 ticket updates/s: event latency | p50 5.3 s, p99 7.8 s | p50 12 ms, p99 26 ms |",
		"| search by a word | 1.3 s | – |", // not in this run
		"| FootprintAtVolume/side-by-side | cmd/atende |",
	} {
		if !strings.Contains(s1, want) {
			t.Errorf("the S1 section lacks %q:\n%s", want, s1)
		}
	}
	if strings.Contains(s1, "db-MB") {
		t.Errorf("the footprint phase belongs to B10, not S1:\n%s", s1)
	}
	b10 := md[strings.Index(md, "## B10 "):strings.Index(md, "## B11 ")]
	if !strings.Contains(b10, "FootprintAtVolume/footprint | cmd/atende | 9 ns/op, 1142 db-MB") || strings.Contains(b10, "whaticket-community") {
		t.Errorf("B10 section:\n%s", b10)
	}
}
