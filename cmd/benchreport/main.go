// Command benchreport turns `go test -bench` output into docs/benchmarks.md: one table
// row per benchmark with its custom metrics (events/s, p99-ms, …), under the heading of
// the figure of ../shared/BENCHMARKS.md it measures, with date, commit and machine.
//
//	go test -run '^$' -bench . ./... | benchreport -out docs/benchmarks.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"time"
)

// figure names a target of BENCHMARKS.md and the benchmarks that measure it (by name
// prefix, without the Benchmark word and the -N suffix).
type figure struct {
	ID, What, Target string
	Prefixes         []string
}

var figures = []figure{
	{"B1", "idle attendant sockets", "≤ 4 KiB per connection at 100k connections", []string{"IdleSocket", "IdleConnection"}},
	{"B2", "realtime fan-out", "≥ 150k deliveries/s; p50 ≤ 5 ms, p99 ≤ 50 ms at half load", []string{"Fanout", "FanOut"}},
	{"B3", "end-to-end ingest (web chat → journal → attendant socket)", "p99 ≤ 100 ms at 2k msgs/s, nothing lost or duplicated", []string{"Ingest"}},
	{"B4", "journal append, durable, group commit", "≥ 20k events/s at p99 ≤ 10 ms on PostgreSQL", []string{"Append"}},
	{"B5", "ticket actor activation from snapshot + events", "p99 ≤ 5 ms; 10k tickets re-activated ≤ 2 s", []string{"ReadStream", "Activation", "Activate"}},
	{"B6", "ticket list API at scale", "p95 ≤ 30 ms any page; word search p95 ≤ 100 ms", []string{"TicketList", "ListTickets", "Search"}},
	{"B7", "cluster failover", "failure seen ≤ 1.5 s; tickets serving ≤ 3 s; sockets ≤ 5 s", []string{"Failover", "Cluster"}},
	{"B8", "browser inbox", "list first render ≤ 16 ms; no frame > 50 ms; initial JS ≤ 300 KB gz", []string{"Browser", "Inbox"}},
}

type result struct {
	Pkg, Name string
	Metrics   []metric
}

type metric struct{ Value, Unit string }

func main() {
	out := flag.String("out", "docs/benchmarks.md", "markdown file to write")
	extra := flag.String("extra", "", "markdown file appended verbatim (browser figures, notes)")
	flag.Parse()
	results, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	var b strings.Builder
	write(&b, results)
	if *extra != "" {
		if body, err := os.ReadFile(*extra); err == nil {
			b.WriteString("\n")
			b.Write(body)
		}
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func parse(r io.Reader) ([]result, error) {
	var out []result
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "pkg: ") {
			pkg = strings.TrimPrefix(line, "pkg: ")
			continue
		}
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i]
		}
		res := result{Pkg: pkg, Name: name}
		for i := 2; i+1 < len(f); i += 2 {
			res.Metrics = append(res.Metrics, metric{Value: f[i], Unit: f[i+1]})
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

func figureOf(name string) string {
	for _, fg := range figures {
		for _, p := range fg.Prefixes {
			if strings.HasPrefix(name, p) {
				return fg.ID
			}
		}
	}
	return ""
}

func write(b *strings.Builder, results []result) {
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	cpu := cpuModel()
	fmt.Fprintf(b, "# Benchmarks\n\nWritten by `make bench` (cmd/benchreport) on %s at commit %s.\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.TrimSpace(string(commit)))
	fmt.Fprintf(b, "Machine: %d cores (%s), %s/%s, %s. Shared and noisy: figures are single runs of\n"+
		"bounded loops; compare ratios measured in one run (ours beside a baseline) before absolute values.\n\n",
		runtime.NumCPU(), cpu, runtime.GOOS, runtime.GOARCH, runtime.Version())
	byFig := map[string][]result{}
	for _, r := range results {
		byFig[figureOf(r.Name)] = append(byFig[figureOf(r.Name)], r)
	}
	for _, fg := range figures {
		rs := byFig[fg.ID]
		fmt.Fprintf(b, "## %s — %s\n\nTarget: %s.\n\n", fg.ID, fg.What, fg.Target)
		if len(rs) == 0 {
			b.WriteString("Not measured by this run.\n\n")
			continue
		}
		table(b, rs)
	}
	if rs := byFig[""]; len(rs) > 0 {
		b.WriteString("## Other benchmarks\n\n")
		table(b, rs)
	}
}

func table(b *strings.Builder, rs []result) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Name < rs[j].Name })
	b.WriteString("| benchmark | package | figures |\n|---|---|---|\n")
	for _, r := range rs {
		var parts []string
		for _, m := range r.Metrics {
			parts = append(parts, m.Value+" "+m.Unit)
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", r.Name, strings.TrimPrefix(r.Pkg, "atende/"), strings.Join(parts, ", "))
	}
	b.WriteString("\n")
}

func cpuModel() string {
	body, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "model name") {
			if _, v, ok := strings.Cut(line, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return "unknown CPU"
}
