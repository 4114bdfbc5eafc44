package main

import (
	"context"
	"errors"

	"github.com/rs/zerolog"

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
	s := newStores(d, nil)
	return seed.Demo(ctx, s.seedDeps(log.With().Str("component", "seed").Logger()))
}
