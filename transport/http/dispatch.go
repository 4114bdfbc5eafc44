package httpapi

import (
	"atende/engine"
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Ops endpoints, served without authentication.
const (
	pathHealth  = "/healthz"
	pathReady   = "/readyz"
	pathMetrics = "/metrics"
)

// codeMethodNotAllowed answers a known path asked with a method it does not serve.
// It is a protocol answer, not a catalogue code the web app translates.
const codeMethodNotAllowed engine.Code = "ERR_METHOD_NOT_ALLOWED"

// probeMethods are the methods tried to tell 405 from 404.
var probeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// dispatch sends page navigations to the web app (several app routes — /tickets,
// /users, /contacts — are also API paths; a browser asking for text/html wants the
// app) and everything else to the mux.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Web != nil && isPageNavigation(r) && !s.isOpsOrMounted(r.URL.Path) {
		s.serveWeb(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// opsRoutes registers /healthz, /readyz, /metrics and the fallback.
func (s *Server) opsRoutes() {
	s.mux.Handle("GET "+pathHealth, s.record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})))
	s.mux.Handle("GET "+pathReady, s.record(http.HandlerFunc(s.ready)))
	if !s.cfg.MetricsOff {
		s.mux.Handle("GET "+pathMetrics, s.record(s.MetricsHandler()))
	}
	s.mux.Handle("/", http.HandlerFunc(s.fallback))
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.deps.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ReadyTimeout)
		defer cancel()
		if err := s.deps.Ready(ctx); err != nil {
			s.reqLog(r).Warn().Err(err).Msg("not ready")
			writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: engine.ErrUnavailable, Message: string(engine.ErrUnavailable)})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// fallback answers what no route matched: the web app for GET outside the API, 405
// when the path exists with another method, else 404 ERR_NOT_FOUND.
func (s *Server) fallback(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Web != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		!s.apiPrefixes[firstSegment(r.URL.Path)] && !s.isOpsOrMounted(r.URL.Path) {
		s.serveWeb(w, r)
		return
	}
	if allow := s.allowedMethods(r); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: codeMethodNotAllowed, Message: string(codeMethodNotAllowed)})
		return
	}
	writeJSON(w, http.StatusNotFound, errorBody{Error: engine.ErrNotFound, Message: string(engine.ErrNotFound)})
}

// allowedMethods lists the methods some route serves at r's path.
func (s *Server) allowedMethods(r *http.Request) []string {
	var allow []string
	for _, m := range probeMethods {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

func (s *Server) isOpsOrMounted(p string) bool {
	switch p {
	case pathHealth, pathReady, pathMetrics:
		return true
	}
	for _, m := range s.mounted {
		if p == m || strings.HasSuffix(m, "/") && strings.HasPrefix(p, m) {
			return true
		}
	}
	return false
}

// isPageNavigation: a browser loading a page asks GET with text/html acceptable.
func isPageNavigation(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}

// Cache policies of the web app: Vite names files under assets/ by content hash.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheShort     = "public, max-age=3600"
	cacheRevalid   = "no-cache"
)

// serveWeb serves a file of the web app, or index.html for app routes.
func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) {
	infoOf(r).route = "web"
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || name == "index.html" {
		s.serveIndex(w, r)
		return
	}
	if st, err := fs.Stat(s.cfg.Web, name); err == nil && !st.IsDir() {
		if strings.HasPrefix(name, "assets/") {
			w.Header().Set("Cache-Control", cacheImmutable)
		} else {
			w.Header().Set("Cache-Control", cacheShort)
		}
		http.ServeFileFS(w, r, s.cfg.Web, name)
		return
	}
	if strings.HasPrefix(name, "assets/") {
		// A missing asset must not turn into index.html (the browser would parse
		// HTML as a script); it is a plain 404.
		writeJSON(w, http.StatusNotFound, errorBody{Error: engine.ErrNotFound, Message: string(engine.ErrNotFound)})
		return
	}
	s.serveIndex(w, r)
}

func (s *Server) serveIndex(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(s.cfg.Web, "index.html")
	if err != nil {
		writeJSON(w, http.StatusNotFound, errorBody{Error: engine.ErrNotFound, Message: string(engine.ErrNotFound)})
		return
	}
	w.Header().Set("Cache-Control", cacheRevalid)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	http.ServeContent(w, r, "index.html", time.Time{}, bytes.NewReader(b))
}
