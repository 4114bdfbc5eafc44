package main

import (
	"context"
	"errors"

	"github.com/rs/zerolog"

	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/journal"
	"atende/persistence/seed"
)

func serve(ctx context.Context, cfg Config, log zerolog.Logger) error {
	if err := cfg.ensureDevSecret(); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	return a.run(ctx)
}

func seedOnly(ctx context.Context, cfg Config, log zerolog.Logger) error {
	if cfg.Production() {
		return errors.New("seed: the demo tenant's well-known logins (admin@atende.local / admin123) are refused in production")
	}
	d, err := openDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()
	return seedDemo(ctx, cfg, d, newStores(d, nil), log)
}

// seedDemo creates the demo tenant and, with cfg.SeedConversations, its sample
// conversations. Those are ticket streams: they are written through a journal of
// their own, closed again before the server opens its journal and starts the
// projections that fold them. It runs under the migration lock: seeding is
// idempotent one node after another, and nodes started together take turns.
func seedDemo(ctx context.Context, cfg Config, d *db.DB, s stores, log zerolog.Logger) error {
	return d.WithMigrationLock(ctx, func() error { return seedDemoLocked(ctx, cfg, d, s, log) })
}

func seedDemoLocked(ctx context.Context, cfg Config, d *db.DB, s stores, log zerolog.Logger) error {
	log = log.With().Str("component", "seed").Logger()
	log.Info().Bool("conversations", cfg.SeedConversations).Msg("seeding the demo tenant")
	deps := s.seedDeps(log)
	if cfg.SeedConversations {
		j, err := journal.New(d, journal.Config{Logger: log})
		if err != nil {
			return err
		}
		defer j.Close()
		deps.Conversations = seed.ConversationDeps{Journal: j, IDs: db.NewIDs(d, 100), Guard: connection.NewGuard(d)}
	}
	return seed.Demo(ctx, deps)
}
