// Package ratelimit implements engine.RateLimiter: failure counters per key over a
// sliding window, used to slow down password guessing at login. Memory is the
// in-process implementation for one node; a Redis one shares the counts across a
// cluster (later).
//
// A *Memory is safe for concurrent use and starts no goroutines: expired keys are
// swept while recording failures.
package ratelimit
