package actors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// lockedBuffer is a log sink safe for the flood gate's timer and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.b.String()), "\n")
}

// duplicateKeys lists the keys that occur twice at the top level of a JSON object.
func duplicateKeys(t *testing.T, line string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %q", line)
	}
	seen := map[string]bool{}
	var dups []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		k := tok.(string)
		if seen[k] {
			dups = append(dups, k)
		}
		seen[k] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	return dups
}

func TestSlogLinesHaveUniqueKeys(t *testing.T) {
	var buf lockedBuffer
	base := zerolog.New(&buf).With().Timestamp().Str("service", "atende").Str("component", "protoactor").Logger()
	log := newSlog(base, slog.LevelInfo).With("component", "remote", "address", "a")
	log.Info("activated", "address", "b", "level", "x", "error", "boom", "pid", "p1", "pid", "p2")
	lines := buf.lines()
	if len(lines) != 1 {
		t.Fatalf("lines %q", lines)
	}
	if d := duplicateKeys(t, lines[0]); len(d) > 0 {
		t.Fatalf("duplicate keys %v in %s", d, lines[0])
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(lines[0]), &m)
	// Nothing is lost: the repeats are renamed.
	for k, v := range map[string]string{"component": "protoactor", "attr_component": "remote", "address": "a",
		"attr_address": "b", "attr_level": "x", "attr_error": "boom", "pid": "p1", "attr_pid": "p2", "level": "info"} {
		if m[k] != v {
			t.Fatalf("%s = %v, want %s in %s", k, m[k], v, lines[0])
		}
	}
}

func TestSlogErrorFloodIsSummarised(t *testing.T) {
	var buf lockedBuffer
	base := zerolog.New(&buf)
	h := &zerologHandler{log: base, minLevel: slog.LevelWarn, gate: newFloodGate(base, time.Hour)}
	log := slog.New(h)
	for i := range 1000 {
		log.Error("remote: endpoint terminated", "address", fmt.Sprint("10.0.0.", i%3))
	}
	for range 500 {
		log.Warn("cluster: member unreachable")
	}
	log.Error("another failure")
	log.Info("below the handler's level")
	if got := buf.lines(); len(got) != 3 {
		t.Fatalf("during the flood %d lines, want the first of each kind: %q", len(got), got)
	}
	h.gate.flush()
	lines := buf.lines()
	if len(lines) != 5 {
		t.Fatalf("after the window %d lines: %q", len(lines), lines)
	}
	want := map[string]float64{
		"999 similar errors in the last second: remote: endpoint terminated":   999,
		"499 similar warnings in the last second: cluster: member unreachable": 499,
	}

	got := map[string]float64{}
	for _, l := range lines[3:] {
		if d := duplicateKeys(t, l); len(d) > 0 {
			t.Fatalf("duplicate keys %v in %s", d, l)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(l), &m)
		got[strings.Replace(m["message"].(string), "1h0m0s", "second", 1)] = m["suppressed"].(float64)
	}
	for msg, n := range want {
		if got[msg] != n {
			t.Fatalf("summaries %v, want %v", got, want)
		}
	}
	// A new window lets the first of each kind through again, and a window with no
	// repeats writes no summary.
	log.Error("remote: endpoint terminated")
	h.gate.flush()
	if n := len(buf.lines()); n != 6 {
		t.Fatalf("%d lines after a quiet window: %q", n, buf.lines())
	}
}

func TestSlogFloodWindowEndsByItself(t *testing.T) {
	var buf lockedBuffer
	base := zerolog.New(&buf)
	gate := newFloodGate(base, 20*time.Millisecond)
	done := make(chan int, 4)
	gate.flushed = func(n int) { done <- n }
	log := slog.New(&zerologHandler{log: base, minLevel: slog.LevelWarn, gate: gate})
	for range 10 {
		log.Error("remote: endpoint terminated")
	}
	select {
	case n := <-done:
		if n != 1 {
			t.Fatalf("%d summaries", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the window never ended")
	}
	lines := buf.lines()
	if len(lines) != 2 || !strings.Contains(lines[1], `"suppressed":9`) {
		t.Fatalf("lines %q", lines)
	}
}
