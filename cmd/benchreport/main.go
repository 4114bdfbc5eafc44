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
// prefix, without the Benchmark word and the -N suffix; the longest prefix that
// matches wins). Peer, when set, is a peer's published figures for the same shapes,
// printed beside ours.
type figure struct {
	ID, What, Target string
	Prefixes         []string
	Peer             *peer
}

var figures = []figure{
	{"B1", "idle attendant sockets", "≤ 4 KiB per connection at 100k connections", []string{"IdleSocket", "IdleConnection"}, nil},
	{"B2", "realtime fan-out", "≥ 150k deliveries/s; p50 ≤ 5 ms, p99 ≤ 50 ms at half load", []string{"Fanout", "FanOut"}, nil},
	{"B3", "end-to-end ingest (web chat → journal → attendant socket)", "p99 ≤ 100 ms at 2k msgs/s, nothing lost or duplicated", []string{"Ingest"}, nil},
	{"B4", "journal append, durable, group commit", "≥ 20k events/s at p99 ≤ 10 ms on PostgreSQL", []string{"Append"}, nil},
	{"B5", "ticket actor activation from snapshot + events", "p99 ≤ 5 ms; 10k tickets re-activated ≤ 2 s", []string{"ReadStream", "Activation", "Activate"}, nil},
	{"B6", "ticket list API at scale", "p95 ≤ 30 ms any page; word search p95 ≤ 100 ms", []string{"B6", "TicketList", "ListTickets", "Search"}, nil},
	{"B7", "cluster failover", "failure seen ≤ 1.5 s; tickets serving ≤ 3 s; sockets ≤ 5 s; 0 acknowledged messages lost", []string{"Failover", "Cluster"}, nil},
	{"B8", "browser inbox", "list first render ≤ 16 ms; no frame > 50 ms; initial JS ≤ 300 KB gz", []string{"Browser", "Inbox"}, nil},
	{"B9", "cluster scale-out", "3 nodes' CPU per 1,000 messages ≤ 1.3× one node's; appends from 3 processes ≥ 1.5× the throughput with a global lock, p99 no worse; a 10 s freeze of one node leaves the others' p99 under 1 s", []string{"AppendThreePools", "ClusterFrozenNode", "ClusterCPUPerMessage"}, nil},
	{"B10", "footprint at volume (100k contacts, 100k tickets, 1M messages loaded through the product)", "server RSS ≤ 300 MB; database ≤ 2× whaticket's for the same data; loading ≤ 5 min", []string{"FootprintAtVolume"}, nil},
	{"B11", "durable timers and outbound jobs", "≥ 1,000 due schedules fired/s with lateness p99 ≤ 1 s (100,000 pending); ≥ 2,000 campaign sends/s (100,000 contacts, no pacing); exactly once across kill -9", []string{"ScheduleFire", "CampaignSend"}, nil},
	{"B12", "dashboard query at 1,000,000 tickets", "p95 ≤ 100 ms; a ten-year range as fast as a day", []string{"DashboardQuery"}, nil},
	{"S1", "side by side with whaticket-community (100k contacts, 100k tickets, 1M messages)", "none of its own (B6 and B2 hold the targets): Atende's figures of one run beside whaticket-community's published ones for the same shapes and volume", []string{"FootprintAtVolume/side-by-side"}, &whaticket},
}

// peer is another product's published figures for the shapes a benchmark measures.
type peer struct {
	Name, Source string
	Rows         []peerRow
}

// peerRow is one shape: the peer's figure as published, and the metrics of ours to
// print beside it: <Metric>-p50-ms and <Metric>-<Tail>-ms.
type peerRow struct {
	Shape, Figure string
	Metric, Tail  string // e.g. "open", "p95"
}

// whaticket is whaticket-community's figures, measured earlier on this 2-core box
// with the same shop; it cannot run here, so BenchmarkFootprintAtVolume's
// side-by-side phase measures Atende on the same shapes in one run.
var whaticket = peer{
	Name:   "whaticket-community",
	Source: "it cannot run here; they were measured earlier on this 2-core box with the same data",
	Rows: []peerRow{
		{"open ticket list, page 1", "p50 34.7 ms", "open", "p95"},
		{"open list filtered by queues (`status=open&queueIds=[1,2,3]`)", "42 ms", "open-queues", "p95"},
		{"closed ticket list, page 1", "–", "closed", "p95"},
		{"a later page (page 26, keyset cursor)", "–", "later-page", "p95"},
		{"search by a word", "1.3 s", "search", "p95"},
		{"messages of a ticket, page 1", "230 ms", "messages", "p95"},
		{"200 attendant sockets, 20 ticket updates/s: event latency", "p50 5.3 s, p99 7.8 s", "event", "p99"},
	},
}

type result struct {
	Pkg, Name string
	Metrics   []metric
}

type metric struct{ Value, Unit string }

func main() {
	out := flag.String("out", "docs/benchmarks.md", "markdown file to write; figures this run did not measure keep their section from it")
	extra := flag.String("extra", "", "markdown file appended verbatim (browser figures, notes)")
	flag.Parse()
	results, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	var b strings.Builder
	var body []byte
	if *extra != "" {
		body, _ = os.ReadFile(*extra)
	}
	old, _ := os.ReadFile(*out) // absent on a first run
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	r := run{When: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Commit: strings.TrimSpace(string(commit))}
	write(&b, r, results, figureHeadings(string(body)), previousSections(string(old)))
	if len(body) > 0 {
		b.WriteString("\n")
		b.Write(body)
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

// run is when and at which commit the benchmarks ran.
type run struct{ When, Commit string }

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

// figureOf is the id of the figure benchmark name measures: the one with the longest
// prefix of name (AppendThreePools is B9's, the other Append… B4's; ClusterFrozenNode
// and ClusterCPUPerMessage are B9's, the other Cluster… B7's), "" for none.
func figureOf(name string) string {
	id, longest := "", 0
	for _, fg := range figures {
		for _, p := range fg.Prefixes {
			if strings.HasPrefix(name, p) && len(p) > longest {
				id, longest = fg.ID, len(p)
			}
		}
	}
	return id
}

// figureHeadings finds the figures an extra report measures: its "## B8 — …" headings,
// by figure id.
func figureHeadings(md string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(md, "\n") {
		h, ok := strings.CutPrefix(line, "## ")
		if !ok {
			continue
		}
		id, _, _ := strings.Cut(h, " ")
		for _, fg := range figures {
			if fg.ID == id {
				out[id] = strings.TrimSpace(h)
			}
		}
	}
	return out
}

// write renders the report. elsewhere names the figures measured in the appended
// extra report (by id, its heading), which their sections point to; kept holds, by
// id, the sections of an earlier report for figures this run did not measure.
func write(b *strings.Builder, r run, results []result, elsewhere, kept map[string]string) {
	cpu := cpuModel()
	fmt.Fprintf(b, "# Benchmarks\n\nWritten by `make bench` (cmd/benchreport) on %s at commit %s.\n", r.When, r.Commit)
	fmt.Fprintf(b, "Machine: %d cores (%s), %s/%s, %s. Shared and noisy: each row is one run of a\n"+
		"bounded loop (`BENCH_COUNT=n` gives n rows); compare ratios measured in one run (ours beside a\n"+
		"baseline) before absolute values.\n"+
		"`BENCH_PKGS=regexp make bench` re-runs some packages only: the other figures keep the section of\n"+
		"their last run, with its date and commit.\n\n",
		runtime.NumCPU(), cpu, runtime.GOOS, runtime.GOARCH, runtime.Version())
	byFig := map[string][]result{}
	for _, res := range results {
		byFig[figureOf(res.Name)] = append(byFig[figureOf(res.Name)], res)
	}
	for _, fg := range figures {
		rs := byFig[fg.ID]
		fmt.Fprintf(b, "%s\n\nTarget: %s.\n\n", heading(fg), fg.Target)
		switch {
		case len(rs) > 0:
			fmt.Fprintf(b, "Measured on %s at commit %s.\n\n", r.When, r.Commit)
			if fg.Peer != nil {
				beside(b, *fg.Peer, rs)
			}
			table(b, rs)
		case elsewhere[fg.ID] != "":
			fmt.Fprintf(b, "See \"%s\" below (the browser benchmark's report, with its own date and commit).\n\n", elsewhere[fg.ID])
		case kept[fg.ID] != "":
			b.WriteString(kept[fg.ID])
			b.WriteString("\n\n")
		default:
			b.WriteString("Not measured yet.\n\n")
		}
	}
	if rs := byFig[""]; len(rs) > 0 {
		fmt.Fprintf(b, "%s\n\nMeasured on %s at commit %s.\n\n", otherHeading, r.When, r.Commit)
		table(b, rs)
	} else if kept[""] != "" {
		fmt.Fprintf(b, "%s\n\n%s\n", otherHeading, kept[""])
	}
}

// otherHeading is the section of benchmarks that measure no figure of BENCHMARKS.md.
const otherHeading = "## Other benchmarks"

func heading(fg figure) string { return "## " + fg.ID + " — " + fg.What }

const keptNote = " (kept: not re-run by the latest `make bench`)"

// previousSections reads an earlier report: for each figure it measured, the section
// below its target line, starting with when it was measured.
func previousSections(md string) map[string]string {
	out := map[string]string{}
	when := ""
	if _, rest, ok := strings.Cut(md, "Written by `make bench` (cmd/benchreport) on "); ok {
		if d, c, ok := strings.Cut(rest, " at commit "); ok {
			c, _, _ = strings.Cut(c, ".")
			when = d + " at commit " + c
		}
	}
	lines := strings.Split(md, "\n")
	sections := map[string]string{"": otherHeading} // id -> heading
	for _, fg := range figures {
		sections[fg.ID] = heading(fg)
	}
	for id, h := range sections {
		start := -1
		for i, l := range lines {
			if l == h {
				start = i + 1
				break
			}
		}
		if start < 0 {
			continue
		}
		var body []string
		for _, l := range lines[start:] {
			if strings.HasPrefix(l, "## ") {
				break
			}
			if strings.HasPrefix(l, "Target: ") { // written anew from figures
				continue
			}
			body = append(body, l)
		}
		text := strings.TrimSpace(strings.Join(body, "\n"))
		if text == "" || strings.HasPrefix(text, "Not measured") || strings.HasPrefix(text, "See \"") ||
			strings.HasPrefix(text, "Measured in this run: see") {
			continue
		}
		if rest, ok := strings.CutPrefix(text, "Measured on "); ok {
			first, others, _ := strings.Cut(rest, "\n")
			first = strings.TrimSuffix(strings.TrimSuffix(first, "."), keptNote)
			text = "Measured on " + first + keptNote + ".\n" + others
		} else if when != "" {
			text = "Measured on " + when + keptNote + ".\n\n" + text
		} else {
			continue // no date to vouch for it
		}
		out[id] = text
	}
	return out
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

// beside prints a table of p's figures and ours, a row per shape; several runs of
// the benchmark give several figures in a cell, in the order of the runs.
func beside(b *strings.Builder, p peer, rs []result) {
	fmt.Fprintf(b, "%s's figures are published ones, not of this run: %s.\n\n", p.Name, p.Source)
	fmt.Fprintf(b, "| shape | %s | Atende |\n|---|---|---|\n", p.Name)
	for _, row := range p.Rows {
		var ours []string
		for _, r := range rs {
			typical, tail := metricOf(r, row.Metric+"-p50-ms"), metricOf(r, row.Metric+"-"+row.Tail+"-ms")
			if typical == "" {
				continue
			}
			ours = append(ours, fmt.Sprintf("p50 %s ms, %s %s ms", typical, row.Tail, tail))
		}
		if len(ours) == 0 {
			ours = []string{"–"}
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", row.Shape, row.Figure, strings.Join(ours, "; "))
	}
	b.WriteString("\n")
}

// metricOf is the value of r's metric of unit, "" when r has none.
func metricOf(r result, unit string) string {
	for _, m := range r.Metrics {
		if m.Unit == unit {
			return m.Value
		}
	}
	return ""
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
