package goroutine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestGroupWaitsForRunningAndRefusesAfterStop(t *testing.T) {
	var g Group
	release := make(chan struct{})
	var finished atomic.Int32
	for range 3 {
		if !g.Go(func() { <-release; finished.Add(1) }) {
			t.Fatal("a fresh group refused a goroutine")
		}
	}
	if n := g.Running(); n != 3 {
		t.Fatalf("running %d, want 3", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.Wait(ctx); err == nil {
		t.Fatal("Wait returned while goroutines were blocked")
	}
	if g.Go(func() {}) {
		t.Fatal("a stopped group started a goroutine")
	}
	close(release)
	g.Close()
	if finished.Load() != 3 || g.Running() != 0 {
		t.Fatalf("after Close: finished %d, running %d", finished.Load(), g.Running())
	}
	g.Stop() // idempotent
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestGroupStopWithNothingRunning(t *testing.T) {
	var g Group
	g.Stop()
	if err := g.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestGroupWaitsForHolds(t *testing.T) {
	var g Group
	if !g.Hold() {
		t.Fatal("a fresh group refused a hold")
	}
	if n := g.Running(); n != 1 {
		t.Fatalf("running %d, want 1", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.Wait(ctx); err == nil {
		t.Fatal("Wait returned while a hold was not released")
	}
	if g.Hold() {
		t.Fatal("a stopped group took a hold")
	}
	g.Release()
	if err := g.Wait(context.Background()); err != nil || g.Running() != 0 {
		t.Fatalf("after Release: %v, running %d", err, g.Running())
	}
}
