package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"atende/goroutine"
)

// metricsOffPublicPort reports whether /metrics stays off the public port: when it has
// a listener of its own (METRICS_ADDR), and in production when no METRICS_TOKEN
// protects it (metrics name routes, tenants' load and the build; they are for the
// operator, not the internet).
func (c Config) metricsOffPublicPort() bool {
	return c.MetricsAddr != "" || (c.Production() && c.MetricsToken == "")
}

// startMetrics serves /metrics (behind METRICS_TOKEN when set) on METRICS_ADDR, and
// registers its shutdown. Without METRICS_ADDR it does nothing.
func (a *app) startMetrics() error {
	if a.cfg.MetricsAddr == "" {
		if a.cfg.Production() && a.cfg.MetricsToken == "" {
			a.log.Info().Msg("/metrics is not served: set METRICS_ADDR (a private address) or METRICS_TOKEN")
		}
		return nil
	}
	ln, err := net.Listen("tcp", a.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.api.MetricsHandler())
	a.metricsHTTP = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	srv := a.metricsHTTP
	goroutine.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error().Err(err).Msg("metrics listener stopped")
		}
	})
	a.onClose(func(ctx context.Context) error { return srv.Shutdown(ctx) })
	a.log.Info().Str("addr", ln.Addr().String()).Msg("serving /metrics")
	return nil
}

// mediaBaseURL is where media URLs point: the public URL's /media when front-ends on
// other origins are allowed (they must be able to load the files), else the relative
// "/media" of a same-origin app.
func (c Config) mediaBaseURL() string {
	if len(c.CORSOrigins) == 0 || c.PublicURL == "" {
		return ""
	}
	return strings.TrimRight(c.PublicURL, "/") + "/media"
}
