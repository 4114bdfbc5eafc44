package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/transport/http/token"
	"atende/transport/jsonapi"
)

// Publisher sends a realtime event to the sockets of a tenant (jsonapi.Publisher).
type Publisher = jsonapi.Publisher

// Deps are the collaborators of the API. Required: Users, Settings, RefreshTokens,
// Tokens, PairLimiter, AddressLimiter. The rest have defaults.
type Deps struct {
	Users         engine.UserStore
	Settings      engine.SettingStore
	RefreshTokens engine.RefreshTokenStore

	// RefDeps are the reference-data stores (contacts, queues, tags, quick answers).
	RefDeps
	// TicketDeps are the collaborators of the ticket and message routes.
	TicketDeps
	// ConnectionDeps are the collaborators of the connection routes (whatsapp.go).
	ConnectionDeps
	// TenantDeps are the collaborators of the tenant and cluster routes (tenants.go).
	TenantDeps
	// ChatDeps are the collaborators of the internal chat routes (chats.go).
	ChatDeps
	// MessagingDeps are the collaborators of the messaging API (apitokens.go).
	MessagingDeps
	// AIDeps are the collaborators of the AI routes (ai.go).
	AIDeps

	// Tokens issues and checks access tokens; the socket gateway shares it so that its
	// principal cache sees the same invalidations.
	Tokens *token.Service

	// PairLimiter counts login attempts per (client address, e-mail) pair,
	// AddressLimiter per client address (see Config.TrustForwardedFor); auth.go's
	// LoginPairPolicy and LoginAddressPolicy are the policies they should apply.
	PairLimiter    engine.AttemptLimiter
	AddressLimiter engine.AttemptLimiter

	// Publisher receives realtime events; nil drops them.
	Publisher Publisher
	// Logger is the API's logger; the zero value logs nothing.
	Logger zerolog.Logger
	// Clock is the time source; nil is the system clock.
	Clock engine.Clock
	// Metrics receives the HTTP metrics and is served at /metrics; nil creates a
	// private registry (still served at /metrics).
	Metrics *prometheus.Registry
	// Ready reports whether the node can serve (a database ping); /readyz answers 503
	// while it fails. Nil means always ready.
	Ready func(ctx context.Context) error
}

// Config tunes the API. Zero values are documented per field.
type Config struct {
	// MaxBodyBytes caps JSON request bodies; 0 means 1 MiB.
	MaxBodyBytes int64
	// CookieSecure marks the refresh cookie Secure (HTTPS only). false suits plain
	// HTTP on localhost; production behind TLS sets it.
	CookieSecure bool
	// RefreshTTL is how long a refresh token lives after it is issued; 0 means 7 days.
	// (The access-token lifetime is token.Config.TTL.)
	RefreshTTL time.Duration
	// BcryptCost hashes new passwords; 0 means 10. Tests use bcrypt.MinCost.
	BcryptCost int
	// TrustForwardedFor takes the client address (for login rate limits and logs)
	// from the last entry of X-Forwarded-For, as appended by a trusted reverse proxy.
	// false uses the connection's remote address.
	TrustForwardedFor bool
	// Web is the built web app. When set it is served at / with a SPA fallback:
	// page navigations (GET accepting text/html) and unknown GET paths outside the
	// API get index.html; /assets/* is cached for a year. nil serves no app.
	Web fs.FS
	// ReadyTimeout bounds one readiness check; 0 means 2 s.
	ReadyTimeout time.Duration
	// CORSOrigins are the front-end origins ("https://app.example.com") of other hosts
	// allowed to call the API with credentials (docs/security.md, "Cross-origin and
	// CSRF"). Empty: same-origin only. When set, the refresh cookie is sent
	// SameSite=None; Secure so that it reaches the API from those origins.
	CORSOrigins []string
	// PublicURL is how browsers reach this server (PUBLIC_URL); its origin counts as
	// the own origin and may serve media in the app's Content-Security-Policy.
	PublicURL string
	// HSTS adds Strict-Transport-Security to every answer (production behind TLS).
	HSTS bool
	// MetricsToken, when set, makes /metrics answer only requests with
	// "Authorization: Bearer <MetricsToken>".
	MetricsToken string
	// MetricsOff leaves /metrics out of Handler (it is served elsewhere through
	// MetricsHandler, e.g. on a private address).
	MetricsOff bool
	// SignupCompany is the tenant POST /auth/signup adds users to (whaticket's public
	// sign-up page), while its setting userCreation is "enabled". 0 turns sign-up off.
	SignupCompany engine.ID
	// RefuseCommonPasswords refuses new passwords found in the embedded list of
	// common passwords (engine.IsCommonPassword); production mode sets it.
	RefuseCommonPasswords bool
	// MapTileURL is the client maps' tile server, as a Leaflet URL template
	// ("https://tile.openstreetmap.org/{z}/{x}/{y}.png"); its origin is added to the
	// app's img-src. Empty: the maps draw their markers on a blank background.
	MapTileURL string
	// MapTileAttribution is the credit the tile server asks for (shown on the map).
	MapTileAttribution string
	// APISendsPerMinute is how many messages one messaging-API token may send per
	// minute, as many at once; 0 means DefaultAPISendsPerMinute.
	APISendsPerMinute int
}

// Default values of Config.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultRefreshTTL   = 7 * 24 * time.Hour
	DefaultBcryptCost   = 10
	DefaultReadyTimeout = 2 * time.Second
)

// Server is the REST API. Build it with New; it is safe for concurrent use.
type Server struct {
	// static after New
	cfg     Config
	deps    Deps
	log     zerolog.Logger
	clock   engine.Clock
	mux     *http.ServeMux
	metrics *httpMetrics
	handler http.Handler
	// dummyHash is compared against when a login names no user, so that unknown
	// e-mails cost the same time as wrong passwords.
	dummyHash []byte

	// mounted and apiPrefixes are filled by New and Mount before Handler is served.
	mounted     []string // path prefixes of Mount-ed handlers
	apiPrefixes map[string]bool

	origins *OriginPolicy // own and allowed front-end origins
	cspApp  string        // the web app's Content-Security-Policy
	// apiLimiter counts each messaging-API token's sends (Deps.APILimiter or an
	// in-process one).
	apiLimiter APILimiter
}

// New validates cfg and deps, fills defaults and registers every route.
func New(cfg Config, deps Deps) (*Server, error) {
	if cfg.MaxBodyBytes < 0 || cfg.RefreshTTL < 0 || cfg.ReadyTimeout < 0 {
		return nil, errors.New("httpapi: negative limit in Config")
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.RefreshTTL == 0 {
		cfg.RefreshTTL = DefaultRefreshTTL
	}
	if cfg.BcryptCost == 0 {
		cfg.BcryptCost = DefaultBcryptCost
	}
	if cfg.BcryptCost < bcrypt.MinCost || cfg.BcryptCost > bcrypt.MaxCost {
		return nil, fmt.Errorf("httpapi: bcrypt cost %d out of range", cfg.BcryptCost)
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = DefaultReadyTimeout
	}
	if cfg.APISendsPerMinute < 0 {
		return nil, errors.New("httpapi: negative APISendsPerMinute")
	}
	if cfg.APISendsPerMinute == 0 {
		cfg.APISendsPerMinute = DefaultAPISendsPerMinute
	}
	if err := checkTileURL(cfg.MapTileURL); err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	origins, err := NewOriginPolicy(cfg.CORSOrigins, cfg.PublicURL)
	if err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	var missing []string
	for name, ok := range map[string]bool{
		"Users":          deps.Users != nil,
		"Settings":       deps.Settings != nil,
		"RefreshTokens":  deps.RefreshTokens != nil,
		"Tokens":         deps.Tokens != nil,
		"PairLimiter":    deps.PairLimiter != nil,
		"AddressLimiter": deps.AddressLimiter != nil,
	} {
		if !ok {
			missing = append(missing, name)
		}
	}
	missing = append(missing, deps.checkRefDeps()...)
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("httpapi: missing Deps %s", strings.Join(missing, ", "))
	}
	if deps.Clock == nil {
		deps.Clock = engine.SystemClock{}
	}
	if deps.Metrics == nil {
		deps.Metrics = prometheus.NewRegistry()
	}
	var dummy []byte
	dummy, err = bcrypt.GenerateFromPassword([]byte("atende-dummy-password"), cfg.BcryptCost)
	if err != nil {
		return nil, fmt.Errorf("httpapi: dummy hash: %w", err)
	}
	m, err := newHTTPMetrics(deps.Metrics)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:         cfg,
		deps:        deps,
		log:         deps.Logger,
		clock:       deps.Clock,
		mux:         http.NewServeMux(),
		metrics:     m,
		dummyHash:   dummy,
		apiPrefixes: map[string]bool{},
		origins:     origins,
		cspApp:      cspFor(origins.public, tileOrigin(cfg.MapTileURL)),
		apiLimiter:  deps.APILimiter,
	}
	if s.apiLimiter == nil {
		s.apiLimiter = localAPILimiter(cfg.APISendsPerMinute, deps.Clock)
	}
	s.routes()
	s.handler = s.middleware(http.HandlerFunc(s.dispatch))
	return s, nil
}

// Handler is the API with its middleware (request id, recovery, access log, metrics),
// the ops endpoints, Mount-ed handlers and the web app.
func (s *Server) Handler() http.Handler { return s.handler }

// Origins is the origin policy of the server (own origin and Config.CORSOrigins), for
// the socket gateway's handshake check.
func (s *Server) Origins() *OriginPolicy { return s.origins }

// MetricsHandler serves the Prometheus metrics (Deps.Metrics), behind
// Config.MetricsToken when one is set: at /metrics of Handler, or on a listener of its
// own (Config.MetricsOff).
func (s *Server) MetricsHandler() http.Handler {
	metrics := promhttp.HandlerFor(s.deps.Metrics, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.metricsAuthorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			writeJSON(w, http.StatusUnauthorized, errorBody{Error: engine.ErrInvalidToken, Message: string(engine.ErrInvalidToken)})
			return
		}
		metrics.ServeHTTP(w, r)
	})
}

// ProfileHandler serves the runtime's profiles, authorized as /metrics is: GET
// /debug/pprof/{name} writes the named profile of runtime/pprof (heap, allocs,
// goroutine, block, mutex, threadcreate; ?debug=1 for text), and
// /debug/pprof/profile?seconds=N (1–120, default 30) a CPU profile. It belongs on
// the private metrics listener (METRICS_ADDR) only, never on the public port.
// (net/http/pprof is not imported: it registers itself on http.DefaultServeMux,
// which a dependency could serve.)
func (s *Server) ProfileHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.metricsAuthorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			writeJSON(w, http.StatusUnauthorized, errorBody{Error: engine.ErrInvalidToken, Message: string(engine.ErrInvalidToken)})
			return
		}
		name := r.PathValue("name")
		w.Header().Set("Content-Type", "application/octet-stream")
		if name == "profile" {
			secs, err := strconv.Atoi(r.URL.Query().Get("seconds"))
			if err != nil || secs < 1 || secs > 120 {
				secs = 30
			}
			if err := pprof.StartCPUProfile(w); err != nil {
				writeJSON(w, http.StatusConflict, errorBody{Error: engine.ErrValidation, Message: err.Error()})
				return
			}
			select {
			case <-time.After(time.Duration(secs) * time.Second):
			case <-r.Context().Done():
			}
			pprof.StopCPUProfile()
			return
		}
		p := pprof.Lookup(name)
		if p == nil {
			writeJSON(w, http.StatusNotFound, errorBody{Error: engine.ErrNotFound, Message: "no profile " + name})
			return
		}
		debug, _ := strconv.Atoi(r.URL.Query().Get("debug"))
		if debug > 0 {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		_ = p.WriteTo(w, debug)
	})
}

// Mount serves h at pattern (a ServeMux pattern such as "/socket.io/"), inside the
// request-id, recovery, log and metrics middleware but without authentication. Call it
// before serving.
func (s *Server) Mount(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.record(h))
	p := pattern
	if i := strings.IndexByte(p, ' '); i >= 0 {
		p = p[i+1:]
	}
	if i := strings.IndexByte(p, '{'); i >= 0 {
		p = p[:i]
	}
	s.mounted = append(s.mounted, p)
}

// route registers an API handler at pattern ("METHOD /path") and records its first
// path segment as an API prefix (for the web app's fallback rules).
func (s *Server) route(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.record(h))
	p := pattern
	if i := strings.IndexByte(p, ' '); i >= 0 {
		p = p[i+1:]
	}
	s.apiPrefixes[firstSegment(p)] = true
}

// publish sends a realtime event when a Publisher is wired.
func (s *Server) publish(companyID engine.ID, event string, payload any) {
	if s.deps.Publisher != nil {
		s.deps.Publisher.Publish(companyID, event, payload)
	}
}

func firstSegment(path string) string {
	path = strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(path, '/'); i >= 0 {
		path = path[:i]
	}
	return "/" + path
}
