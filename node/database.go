package node

import (
	"context"
	"errors"

	"github.com/rs/zerolog"

	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/journal"
	"atende/persistence/projection"
	"atende/persistence/schedule"
	"atende/persistence/seed"
	"atende/persistence/store"
)

// OpenDB opens cfg's database and applies every migration: the schema's and River's
// (the durable timers of persistence/schedule), under the same lock.
func OpenDB(ctx context.Context, cfg Config, log zerolog.Logger) (*db.DB, error) {
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	log.Info().Str("db", d.Desc).Msg("migrating the database")
	applied, err := d.Migrate(ctx)
	if err != nil {
		d.Close()
		return nil, err
	}
	if err := schedule.Migrate(ctx, d); err != nil {
		d.Close()
		return nil, err
	}
	log.Info().Str("db", d.Desc).Ints("migrations_applied", applied).Msg("database ready")
	return d, nil
}

// Migrate is `atende migrate`: OpenDB, then close it again.
func Migrate(ctx context.Context, cfg Config, log zerolog.Logger) error {
	d, err := OpenDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	return d.Close()
}

// Seed is `atende seed`: the demo tenant (and, with cfg.SeedConversations, its
// sample conversations) without serving. Refused in production: the demo's logins
// are well known.
func Seed(ctx context.Context, cfg Config, log zerolog.Logger) error {
	if cfg.Production() {
		return errors.New("seed: the demo tenant's well-known logins (admin@atende.local / admin123) are refused in production")
	}
	d, err := OpenDB(ctx, cfg, log)
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

// CatchUpReadModels runs every projection a node runs until it has applied the
// whole of j: what `atende import` does once it wrote its tickets.
func CatchUpReadModels(ctx context.Context, d *db.DB, j *journal.Store, log zerolog.Logger) error {
	ps, _, err := readModels(store.NewSettings(d, nil), log)
	if err != nil {
		return err
	}
	// The projections share one read of the journal (journal.Tail), which reads
	// ahead of the fastest of them only.
	tail := journal.NewTail(j, journal.TailConfig{Logger: log})
	defer tail.Close()
	r, err := projection.New(d, tail, projection.Config{Logger: log}, ps...)
	if err != nil {
		return err
	}
	if err := r.Start(ctx); err != nil {
		return err
	}
	defer r.Close()
	head, err := j.Head(ctx)
	if err != nil {
		return err
	}
	return r.WaitFor(ctx, head)
}
