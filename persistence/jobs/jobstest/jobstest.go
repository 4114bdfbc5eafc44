// Package jobstest starts a node's River client in tests, as cmd/atende does.
package jobstest

import (
	"context"
	"testing"
	"time"

	"atende/persistence/db"
	"atende/persistence/jobs"
)

// Start builds and starts the client of cfg on d, stopped when the test ends. A zero
// PollInterval is 50 ms here, so tests do not wait on the production default.
func Start(tb testing.TB, d *db.DB, cfg jobs.Config) *jobs.Client {
	tb.Helper()
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 50 * time.Millisecond
	}
	c, err := jobs.New(d, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Stop(ctx)
	})
	return c
}
