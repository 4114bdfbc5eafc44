// Package ratelimit holds the in-process limiters of one node; persistence/redisstate
// has the Redis ones a cluster shares, checked by the same conformance suite.
//
//   - Attempts implements engine.AttemptLimiter: attempts per key under an
//     engine.AttemptPolicy (a ceiling per window, progressive delays), each checked
//     and counted in one step. Login counts its attempts with it.
//   - Memory implements engine.RateLimiter: failure counters per key over a sliding
//     window, checked (Allow) and counted (Fail) in separate steps.
//
// Both are safe for concurrent use and start no goroutines: expired keys are swept
// while counting, and the number of keys is bounded.
package ratelimit
