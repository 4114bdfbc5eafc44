package actors

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// zerologHandler forwards protoactor-go's slog records to our zerolog logger. Records
// below minLevel are dropped: protoactor logs every activation at info.
//
// Each line has unique JSON keys: an attribute whose key the line already has (ours,
// like level or component, or an earlier attribute) is written as "attr_<key>".
// Warnings and errors pass a flood gate: during a failover protoactor logs the same
// error for every call to the departed member, thousands a second; the first of a
// kind (level and message) in each second is written, the rest are counted and
// summarised in one line when the second ends ("N similar errors in the last second").
type zerologHandler struct {
	log      zerolog.Logger // static
	minLevel slog.Level     // static
	attrs    []slog.Attr    // static (WithAttrs makes a copy)
	gate     *floodGate     // shared by the handlers WithAttrs derives
}

// reservedKeys are the keys our loggers write on every line (the root logger's and
// the protoactor child's context, zerolog's own): an attribute never repeats them.
var reservedKeys = []string{zerolog.LevelFieldName, zerolog.TimestampFieldName, zerolog.MessageFieldName,
	zerolog.ErrorFieldName, "service", "component", "node", "suppressed", "window"}

// floodWindow is the flood gate's window.
const floodWindow = time.Second

func newSlog(log zerolog.Logger, min slog.Level) *slog.Logger {
	return slog.New(&zerologHandler{log: log, minLevel: min, gate: newFloodGate(log, floodWindow)})
}

func (h *zerologHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.minLevel }

func (h *zerologHandler) Handle(_ context.Context, r slog.Record) error {
	var level zerolog.Level
	switch {
	case r.Level >= slog.LevelError:
		level = zerolog.ErrorLevel
	case r.Level >= slog.LevelWarn:
		level = zerolog.WarnLevel
	case r.Level >= slog.LevelInfo:
		level = zerolog.InfoLevel
	default:
		level = zerolog.DebugLevel
	}
	if level >= zerolog.WarnLevel && !h.gate.pass(level, r.Message) {
		return nil
	}
	ev := h.log.WithLevel(level)
	seen := make(map[string]bool, len(reservedKeys)+len(h.attrs)+r.NumAttrs())
	for _, k := range reservedKeys {
		seen[k] = true
	}
	add := func(a slog.Attr) {
		key := a.Key
		for seen[key] {
			key = "attr_" + key
		}
		seen[key] = true
		ev = ev.Str(key, a.Value.String())
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool {
		add(a)
		return true
	})
	ev.Msg(r.Message)
	return nil
}

func (h *zerologHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	return &n
}

func (h *zerologHandler) WithGroup(string) slog.Handler { return h }

// floodGate lets through the first record of each kind per window and counts the
// others; at the end of the window it writes one summary per kind that had more.
type floodGate struct {
	log    zerolog.Logger // static
	window time.Duration  // static

	mu      sync.Mutex          // guards the fields below
	counts  map[floodKey]int    // records suppressed in the current window, per kind
	timer   *time.Timer         // ends the current window; nil between windows
	flushed func(summaries int) // test hook, called after each flush; nil in production
}

type floodKey struct {
	level zerolog.Level
	msg   string
}

func newFloodGate(log zerolog.Logger, window time.Duration) *floodGate {
	return &floodGate{log: log, window: window, counts: map[floodKey]int{}}
}

// pass reports whether a record of this kind is the first in the window (written)
// or a repeat (counted for the summary).
func (g *floodGate) pass(level zerolog.Level, msg string) bool {
	k := floodKey{level, msg}
	g.mu.Lock()
	defer g.mu.Unlock()
	if n, ok := g.counts[k]; ok {
		g.counts[k] = n + 1
		return false
	}
	g.counts[k] = 0
	if g.timer == nil {
		// A runtime timer, not a goroutine of ours: it runs flush once, later.
		g.timer = time.AfterFunc(g.window, g.flush)
	}
	return true
}

// flush ends the window: it writes a summary of each kind repeated in it.
func (g *floodGate) flush() {
	g.mu.Lock()
	counts := g.counts
	g.counts = map[floodKey]int{}
	g.timer = nil
	hook := g.flushed
	g.mu.Unlock()
	n := 0
	for k, suppressed := range counts {
		if suppressed == 0 {
			continue
		}
		n++
		noun := "errors"
		if k.level < zerolog.ErrorLevel {
			noun = "warnings"
		}
		g.log.WithLevel(k.level).Int("suppressed", suppressed).Str("window", g.window.String()).
			Msg(fmt.Sprintf("%d similar %s in the last %s: %s", suppressed, noun, windowWords(g.window), k.msg))
	}
	if hook != nil {
		hook(n)
	}
}

func windowWords(d time.Duration) string {
	if d == time.Second {
		return "second"
	}
	return d.String()
}
