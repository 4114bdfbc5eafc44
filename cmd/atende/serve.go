package main

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/rs/zerolog"
)

func serve(ctx context.Context, cfg Config, log zerolog.Logger) error {
	if err := cfg.ensureDevSecret(); err != nil {
		return err
	}
	d, err := openDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer d.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := &http.Server{Addr: cfg.HTTPAddr, Handler: mux}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return err
	}
	log.Info().Str("addr", ln.Addr().String()).Str("version", version).Msg("serving")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func seedOnly(ctx context.Context, cfg Config, log zerolog.Logger) error {
	d, err := openDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	return d.Close()
}
