package httpapi

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/netlimit"
)

// reqInfo travels in the request context from the outer middleware to the handler and
// back: the handler side fills in what only it knows (route pattern, user, tenant) so
// the access log and metrics can report it.
type reqInfo struct {
	id string // request id, set by the middleware

	// set by record / authed on the handler's goroutine, read by the middleware after
	// the handler returned (same goroutine: net/http serves a request on one).
	route     string
	userID    engine.ID
	companyID engine.ID
}

type ctxKey int

const infoKey ctxKey = iota

func infoOf(r *http.Request) *reqInfo {
	if ri, ok := r.Context().Value(infoKey).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// RequestID is the id of the request ctx belongs to ("" outside a request).
func RequestID(ctx context.Context) string {
	if ri, ok := ctx.Value(infoKey).(*reqInfo); ok {
		return ri.id
	}
	return ""
}

// reqLog is the logger of one request: request id, and user and tenant once known.
func (s *Server) reqLog(r *http.Request) *zerolog.Logger {
	ri := infoOf(r)
	l := s.log.With().Str("request_id", ri.id).Logger()
	if ri.userID != 0 {
		l = l.With().Int64("user_id", ri.userID).Int64("tenant", ri.companyID).Logger()
	}
	return &l
}

// statusWriter remembers the status and size written. It passes Flush and Hijack
// through (via Unwrap and http.ResponseController) for mounted socket handlers.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets streaming handlers flush through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack lets the socket gateway take over the connection; the request then counts
// as 101 Switching Protocols.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

// maxRequestIDLen bounds a client-supplied X-Request-Id; longer or odd ones are replaced.
const maxRequestIDLen = 64

func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= maxRequestIDLen && isToken(id) {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isToken: letters, digits and -_.: only, so a request id is safe in logs and headers.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// middleware wraps next with request id, panic recovery, access log and metrics.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{id: requestID(r)}
		w.Header().Set("X-Request-Id", ri.id)
		// nosniff (no answer of ours is meant to be sniffed into another type), CSP,
		// framing, referrer and permissions policies, HSTS (security.go).
		s.securityHeaders(w, r)
		r = r.WithContext(context.WithValue(r.Context(), infoKey, ri))
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.reqLog(r).Error().Str("panic", fmt.Sprint(p)).Bytes("stack", debug.Stack()).Msg("handler panicked")
				if sw.status == 0 {
					writeJSON(sw, http.StatusInternalServerError, errorBody{Error: engine.ErrInternal, Message: string(engine.ErrInternal)})
				}
			}
			if sw.status == 0 {
				sw.status = http.StatusOK
			}
			elapsed := time.Since(start)
			route := ri.route
			if route == "" {
				route = "unmatched"
			}
			s.metrics.observe(route, sw.status, elapsed)
			ev := s.log.Info()
			if sw.status >= 500 {
				ev = s.log.Error()
			}
			ev = ev.Str("request_id", ri.id).
				Str("method", r.Method).
				Str("path", r.URL.Path).
				Str("route", route).
				Int("status", sw.status).
				Int64("bytes", sw.bytes).
				Dur("duration", elapsed).
				Str("remote", s.clientAddr(r))
			if ri.userID != 0 {
				ev = ev.Int64("user_id", ri.userID).Int64("tenant", ri.companyID)
			}
			ev.Msg("http request")
		}()
		if s.cors(sw, r) {
			return
		}
		if strings.HasPrefix(r.URL.Path, "/auth/") && !safeMethod(r.Method) && !s.authOriginOK(r) {
			// Login CSRF: another site's page must not sign the browser in (or out).
			ri.route = "auth-origin"
			s.reqLog(r).Info().Str("origin", r.Header.Get("Origin")).Str("sec_fetch_site", r.Header.Get("Sec-Fetch-Site")).Msg("auth request from a foreign origin refused")
			writeJSON(sw, http.StatusForbidden, errorBody{Error: codeForbiddenOrigin, Message: string(codeForbiddenOrigin)})
			return
		}
		next.ServeHTTP(sw, r)
	})
}

// safeMethod: methods that change nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// record notes the matched route pattern for logs and metrics.
func (s *Server) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		infoOf(r).route = r.Pattern
		h.ServeHTTP(w, r)
	})
}

// clientAddr is the client's IP address: the connection's, or with
// Config.TrustForwardedFor the last X-Forwarded-For entry (the one our own proxy added).
func (s *Server) clientAddr(r *http.Request) string {
	return netlimit.ClientAddr(r, s.cfg.TrustForwardedFor)
}

// httpMetrics are the Prometheus series of the API.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newHTTPMetrics(reg *prometheus.Registry) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "atende",
			Subsystem: "http",
			Name:      "requests_total",
			Help:      "HTTP requests by route pattern and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "atende",
			Subsystem: "http",
			Name:      "request_duration_seconds",
			Help:      "HTTP request latency by route pattern.",
			Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("httpapi: register metrics: %w", err)
		}
	}
	return m, nil
}

func (m *httpMetrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}
