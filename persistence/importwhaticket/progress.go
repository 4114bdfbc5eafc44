package importwhaticket

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress draws the tickets phase's progress: on a terminal one line redrawn with
// \r (a bar, counts, rate, time left); elsewhere a plain line at most every 5 s.
// Only the importing goroutine calls it.
type progress struct {
	w        io.Writer
	terminal bool
	total    int64 // messages in the source
	tickets  int64 // tickets in the source

	start            time.Time
	last             time.Time
	doneT, doneM     int64
	drewSomething    bool
	minPlainInterval time.Duration
}

func newProgress(w io.Writer, terminal bool, tickets, messages int64) *progress {
	now := time.Now()
	return &progress{w: w, terminal: terminal, total: messages, tickets: tickets, start: now, last: now,
		minPlainInterval: 5 * time.Second}
}

func (p *progress) add(tickets, messages int64) {
	if p == nil || p.w == nil {
		return
	}
	p.doneT += tickets
	p.doneM += messages
	now := time.Now()
	if !p.terminal && now.Sub(p.last) < p.minPlainInterval {
		return
	}
	p.last = now
	p.draw(now)
}

func (p *progress) draw(now time.Time) {
	line := p.line(now)
	if p.terminal {
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.drewSomething = true
}

// line is the progress as text: the share of messages done, counts, rate and the
// time left at that rate.
func (p *progress) line(now time.Time) string {
	frac := 1.0
	if p.total > 0 {
		frac = min(float64(p.doneM)/float64(p.total), 1)
	} else if p.tickets > 0 {
		frac = min(float64(p.doneT)/float64(p.tickets), 1)
	}
	const width = 30
	n := int(frac * width)
	bar := strings.Repeat("#", n) + strings.Repeat(".", width-n)
	el := now.Sub(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(p.doneM) / el
	}
	left := "?"
	if rate > 0 && p.total >= p.doneM {
		left = time.Duration(float64(p.total-p.doneM) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("[%s] %3.0f%% tickets %d/%d messages %d/%d %.0f msg/s, %s left",
		bar, frac*100, p.doneT, p.tickets, p.doneM, p.total, rate, left)
}

func (p *progress) finish() {
	if p == nil || p.w == nil {
		return
	}
	p.draw(time.Now())
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}
