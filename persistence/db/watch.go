package db

import (
	"context"
	"time"
)

// Pinger is what Watch probes: *sql.DB and a *DB's SQL pool are both one.
type Pinger interface {
	PingContext(ctx context.Context) error
}

// Watch probes p every interval, each probe bounded by interval, until ctx ends. It
// calls lost once when no probe has succeeded for after — counted from the last
// success, so a database that answers slowly (each probe timing out) is lost as
// surely as one that refuses — and does not probe again afterwards. Run it on its
// own goroutine.
func Watch(ctx context.Context, p Pinger, every, after time.Duration, lost func(down time.Duration)) {
	last := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, every)
		err := p.PingContext(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			last = time.Now()
			continue
		}
		if down := time.Since(last); down >= after {
			lost(down)
			return
		}
	}
}
