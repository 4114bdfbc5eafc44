package httpapi

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"atende/engine"
	"atende/transport/jsonapi"
)

// This file holds the browser-facing defences of the API: which other origins may call
// it (CORS), the login-CSRF checks of /auth/*, the JSON content-type rule and the
// hardening headers of every answer. docs/security.md explains the threats.

// NormalizeOrigin reads a browser origin ("https://app.example.com", optionally with a
// port) into the form browsers send in the Origin header: lower-case scheme and host,
// no default port, no path. Anything else — "*", a path, a query, another scheme — is
// an error, so a typo in CORS_ORIGINS cannot silently allow more than meant.
func NormalizeOrigin(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		return "", fmt.Errorf("origin %q is not a URL", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("origin %q: scheme must be http or https", raw)
	}
	if u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("origin %q must be scheme://host[:port] only", raw)
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || strings.ContainsAny(host, "*") {
		return "", fmt.Errorf("origin %q has no usable host (wildcards are not allowed)", raw)
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("origin %q has an invalid port", raw)
		}
	}
	if port == defaultPort(scheme) {
		port = ""
	}
	if strings.Contains(host, ":") { // IPv6 literal
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// OriginPolicy decides which browser origins may use the server: its own origin (the
// request's Host, or the public URL's origin) and the listed front-end origins
// (CORS_ORIGINS). The zero value allows only the own origin. It is shared by the API
// and the socket gateway's handshake check.
type OriginPolicy struct {
	public string          // normalized origin of the public URL, "" if none
	listed map[string]bool // normalized CORS origins
}

// NewOriginPolicy builds a policy from the allowed front-end origins and the public
// URL (either may be empty). Every origin must pass NormalizeOrigin.
func NewOriginPolicy(corsOrigins []string, publicURL string) (*OriginPolicy, error) {
	p := &OriginPolicy{listed: map[string]bool{}}
	for _, o := range corsOrigins {
		n, err := NormalizeOrigin(o)
		if err != nil {
			return nil, err
		}
		p.listed[n] = true
	}
	if publicURL = strings.TrimSpace(publicURL); publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("public URL %q is not an absolute URL", publicURL)
		}
		n, err := NormalizeOrigin(u.Scheme + "://" + u.Host)
		if err != nil {
			return nil, fmt.Errorf("public URL: %w", err)
		}
		p.public = n
	}
	return p, nil
}

// CrossOrigin reports whether any front-end origin besides the own one is allowed.
func (p *OriginPolicy) CrossOrigin() bool { return p != nil && len(p.listed) > 0 }

// Listed reports whether origin (as sent in an Origin header) is an allowed front-end
// origin of another host.
func (p *OriginPolicy) Listed(origin string) bool {
	if p == nil || len(p.listed) == 0 {
		return false
	}
	n, err := NormalizeOrigin(origin)
	return err == nil && n == origin && p.listed[n]
}

// Own reports whether origin is the server's own: the public URL's origin, or the
// host the request was sent to. The scheme of the request is not known behind a
// TLS-terminating proxy, so a request-host match ignores it (whoever controls that
// host controls both schemes).
func (p *OriginPolicy) Own(r *http.Request, origin string) bool {
	n, err := NormalizeOrigin(origin)
	if err != nil || n != origin {
		return false
	}
	if p != nil && p.public != "" && n == p.public {
		return true
	}
	u, _ := url.Parse(n) // valid: NormalizeOrigin accepted it
	return sameHost(u.Scheme, u.Host, r.Host)
}

// sameHost compares an origin's host[:port] with a Host header, default ports dropped.
func sameHost(scheme, originHost, reqHost string) bool {
	reqHost = strings.ToLower(reqHost)
	if h, p, ok := strings.Cut(reqHost, ":"); ok && !strings.HasPrefix(reqHost, "[") && p == defaultPort(scheme) {
		reqHost = h
	} else if strings.HasPrefix(reqHost, "[") && strings.HasSuffix(reqHost, "]:"+defaultPort(scheme)) {
		reqHost = strings.TrimSuffix(reqHost, ":"+defaultPort(scheme))
	}
	return reqHost != "" && originHost == reqHost
}

// Allowed is the handshake rule of the socket gateway: a request without an Origin
// header (not from a browser page) passes; a browser page passes from the own origin
// or a listed one.
func (p *OriginPolicy) Allowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	return p.Own(r, origin) || p.Listed(origin)
}

// CORS answers of the API.
const (
	corsMethods = "GET, POST, PUT, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, X-Request-Id"
	// corsExpose are the answer headers a cross-origin client may read besides the
	// CORS-safelisted ones: the request id (support), Retry-After (limits) and
	// Content-Disposition (media download names).
	corsExpose = "X-Request-Id, Retry-After, Content-Disposition"
	// corsMaxAge is how long a browser may cache a preflight answer, in seconds
	// (Chromium caps it at 7200).
	corsMaxAge = "7200"
)

// codeForbiddenOrigin is the answer to a browser request from an origin that may not
// make it (a foreign page posting to /auth/*, a preflight from an unlisted origin).
const codeForbiddenOrigin = engine.ErrForbiddenOrigin

// cors applies the cross-origin rules to r. It answers preflights itself and reports
// whether the request is done.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) (done bool) {
	if s.isWidgetPath(r.URL.Path) {
		// The web chat serves customers' sites, whatever their origin: its handler
		// decides alone.
		return false
	}
	origin := r.Header.Get("Origin")
	h := w.Header()
	if s.origins.CrossOrigin() {
		// The answer depends on Origin: shared caches must keep one copy per origin.
		h.Add("Vary", "Origin")
	}
	preflight := r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != ""
	listed := origin != "" && s.origins.Listed(origin)
	if listed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	if !preflight {
		if listed {
			h.Set("Access-Control-Expose-Headers", corsExpose)
		}
		return false
	}
	infoOf(r).route = "preflight"
	if !listed {
		// A same-origin page never sends a preflight; anyone else is not allowed.
		writeJSON(w, http.StatusForbidden, errorBody{Error: codeForbiddenOrigin, Message: string(codeForbiddenOrigin)})
		return true
	}
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
	return true
}

// authOriginOK is the login-CSRF rule of /auth/*: a browser request must come from the
// own origin or a listed one. Origin is checked when sent; without it, Sec-Fetch-Site
// (sent by current browsers on every request) must not say another site made it.
// Requests with neither header do not come from a browser page (curl, scripts) and
// pass: they carry no victim's cookies.
func (s *Server) authOriginOK(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" {
		return s.origins.Own(r, origin) || s.origins.Listed(origin)
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return false
	}
	return true
}

// requireJSON is jsonapi.RequireJSON: JSON routes refuse other bodies.
func requireJSON(r *http.Request) error { return jsonapi.RequireJSON(r) }

// Hardening headers. The app is a single-page app whose scripts are all files under
// /assets (Vite emits no inline script); styled-components injects <style> elements and
// React writes style attributes, neither of which a nonce can cover (attributes never
// carry one, and index.html is a static file), hence 'unsafe-inline' for styles only.
// The Meta SDK (connect.facebook.net) runs the WhatsApp embedded signup; its dialogs
// live in facebook.com frames. Images may come from providers (profile pictures from
// WhatsApp and Meta CDNs), so img-src allows any https source: an image cannot run code.
const (
	cspApp = "default-src 'self'; " +
		"script-src 'self' https://connect.facebook.net; " +
		"style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data: blob: https:%s; " +
		"media-src 'self' blob:%s; " +
		"font-src 'self' data:; " +
		"connect-src 'self' https://*.facebook.com https://*.facebook.net%s; " +
		"frame-src https://*.facebook.com; " +
		"worker-src 'self' blob:; " +
		"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
	// cspAPI is for JSON and other non-page answers: nothing may load or frame them.
	cspAPI = "default-src 'none'; frame-ancestors 'none'"
	// permissionsPolicy: the app records voice notes and holds video calls
	// (microphone and camera, own origin only); the rest stays off.
	permissionsPolicy = "microphone=(self), camera=(self), geolocation=(), payment=(), usb=(), serial=(), bluetooth=(), midi=(), display-capture=()"
	// hstsValue: HTTPS only for 180 days, this host only (subdomains are the
	// operator's business).
	hstsValue = "max-age=15552000"
)

// cspFor builds the app's policy, with the public URL's origin (absolute media URLs)
// added where 'self' may not cover it, and the map tile server's origin (tiles, when
// Config.MapTileURL is set) added to img-src: https tile servers are already covered
// by "https:", a plain-http one (a tile server on the operator's network) is not.
func cspFor(public, tiles string) string {
	extra, img := "", ""
	if public != "" {
		extra = " " + public
	}
	img = extra
	if tiles != "" && tiles != public {
		img += " " + tiles
	}
	return fmt.Sprintf(cspApp, img, extra, extra)
}

// securityHeaders sets the hardening headers every answer starts with; a handler may
// replace them (the web chat's demo page, media files set their own policy).
func (s *Server) securityHeaders(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if s.cfg.HSTS {
		h.Set("Strict-Transport-Security", hstsValue)
	}
	if s.isWidgetPath(r.URL.Path) {
		// The web chat widget and its files are embedded in customers' sites: no
		// framing or page policy of ours applies to them.
		return
	}
	h.Set("X-Frame-Options", "DENY")
	h.Set("Permissions-Policy", permissionsPolicy)
	if s.cfg.Web != nil && s.servesPage(r) {
		h.Set("Content-Security-Policy", s.cspApp)
	} else {
		h.Set("Content-Security-Policy", cspAPI)
	}
}

// isWidgetPath: the web chat's mounted paths.
func (s *Server) isWidgetPath(p string) bool { return strings.HasPrefix(p, "/webchat/") }

// servesPage reports whether r may be answered with the web app (index.html or one of
// its files), so that the app's policy, not the API's, applies.
func (s *Server) servesPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if s.isOpsOrMounted(r.URL.Path) {
		return false
	}
	return isPageNavigation(r) || !s.apiPrefixes[firstSegment(r.URL.Path)]
}

// metricsAuthorized checks the bearer token of /metrics when one is configured.
func (s *Server) metricsAuthorized(r *http.Request) bool {
	if s.cfg.MetricsToken == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.MetricsToken)) == 1
}

// cookieSameSite is the refresh cookie's SameSite: Strict for a same-origin app; None
// when front-ends on other sites are allowed (Config.CORSOrigins), as a Strict or Lax
// cookie would never reach the API from them. Login CSRF is then stopped by the
// Origin check of /auth/* and the JSON content type, not by the cookie.
func (s *Server) cookieSameSite() http.SameSite {
	if s.origins.CrossOrigin() {
		return http.SameSiteNoneMode
	}
	return http.SameSiteStrictMode
}

// cookieSecure: browsers refuse SameSite=None without Secure, so cross-origin set-ups
// always mark the cookie Secure.
func (s *Server) cookieSecure() bool { return s.cfg.CookieSecure || s.origins.CrossOrigin() }
