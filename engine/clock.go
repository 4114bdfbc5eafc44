package engine

import "time"

// Clock tells the time. Decide functions never call it: callers read the clock once
// and pass `now`, so decisions replay identically.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// ClockFunc adapts a function to Clock; tests use it for a fixed or stepping clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// FixedClock is a Clock that always answers t.
func FixedClock(t time.Time) Clock { return ClockFunc(func() time.Time { return t }) }
