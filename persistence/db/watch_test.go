package db

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// flakyPinger answers from a switch the test flips.
type flakyPinger struct {
	down  atomic.Bool
	pings atomic.Int64
}

func (f *flakyPinger) PingContext(ctx context.Context) error {
	f.pings.Add(1)
	if f.down.Load() {
		return errors.New("connection refused")
	}
	return nil
}

func TestWatchReportsADatabaseGoneForLong(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &flakyPinger{}
	lost := make(chan time.Duration, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		Watch(ctx, p, 10*time.Millisecond, 200*time.Millisecond, func(d time.Duration) { lost <- d })
	}()

	// Healthy: many probes, no report.
	for p.pings.Load() < 20 {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case d := <-lost:
		t.Fatalf("reported lost after %v while every probe succeeded", d)
	default:
	}
	down := time.Now()
	p.down.Store(true)
	select {
	case d := <-lost:
		if d < 200*time.Millisecond || time.Since(down) < 190*time.Millisecond { // the last success was at most one probe interval before
			t.Fatalf("reported after %v (%v since the failure began), before the 200 ms bound", d, time.Since(down))
		}
	case <-time.After(time.Minute):
		t.Fatal("a database down for a minute was never reported")
	}
	wg.Wait() // Watch returns after reporting
}

func TestWatchForgivesAShortOutage(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &flakyPinger{}
	lost := make(chan time.Duration, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, p, 10*time.Millisecond, time.Hour, func(d time.Duration) { lost <- d })
	}()
	p.down.Store(true)
	for n := p.pings.Load(); p.pings.Load() < n+10; {
		time.Sleep(5 * time.Millisecond)
	}
	p.down.Store(false)
	for n := p.pings.Load(); p.pings.Load() < n+10; {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	select {
	case d := <-lost:
		t.Fatalf("an outage shorter than the bound was reported (%v)", d)
	default:
	}
}
