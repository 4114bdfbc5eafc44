package node

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

// MetricsOffPublicPort reports whether /metrics stays off the public port: when it has
// a listener of its own (METRICS_ADDR), and in production when no METRICS_TOKEN
// protects it (metrics name routes, tenants' load and the build; they are for the
// operator, not the internet).
func (c Config) MetricsOffPublicPort() bool {
	return c.MetricsAddr != "" || (c.Production() && c.MetricsToken == "")
}

// startMetrics serves /metrics (behind METRICS_TOKEN when set) on METRICS_ADDR, and
// registers its shutdown. Without METRICS_ADDR it does nothing.
func (n *Node) startMetrics() error {
	if n.cfg.MetricsAddr == "" {
		if n.cfg.Production() && n.cfg.MetricsToken == "" {
			n.log.Info().Msg("/metrics is not served: set METRICS_ADDR (a private address) or METRICS_TOKEN")
		}
		return nil
	}
	ln, err := net.Listen("tcp", n.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", n.api.MetricsHandler())
	mux.Handle("GET /debug/pprof/{name}", n.api.ProfileHandler()) // this private listener only
	n.metricsHTTP = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	srv := n.metricsHTTP
	goroutine.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error().Err(err).Msg("metrics listener stopped")
		}
	})
	n.onClose(func(ctx context.Context) error { return srv.Shutdown(ctx) })
	n.log.Info().Str("addr", ln.Addr().String()).Msg("serving /metrics")
	return nil
}

// MediaBaseURL is where media URLs point: the public URL's /media when front-ends on
// other origins are allowed (they must be able to load the files), else the relative
// "/media" of a same-origin app.
func (c Config) MediaBaseURL() string {
	if len(c.CORSOrigins) == 0 || c.PublicURL == "" {
		return ""
	}
	return strings.TrimRight(c.PublicURL, "/") + "/media"
}
