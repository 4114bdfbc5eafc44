package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"atende/engine"
	httpapi "atende/transport/http"
)

// The front-end origin the cross-origin tests allow.
const appOrigin = "https://app.example.com"

func withCORS(o *envOpts) { o.cfg.CORSOrigins = []string{"https://APP.example.com:443/"} }

func wantHeader(t *testing.T, r resp, name, want string) {
	t.Helper()
	if got := r.Header.Get(name); got != want {
		t.Errorf("%s = %q, want %q", name, got, want)
	}
}

func TestCORSPreflight(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		preflight := func(origin, path string) resp {
			return e.do(req{method: "OPTIONS", path: path, header: map[string]string{
				"Origin": origin, "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": "authorization,content-type"}})
		}
		for _, path := range []string{"/auth/login", "/contacts", "/media/1/x.jpg", "/socket.io/"} {
			r := preflight(appOrigin, path)
			r.wantStatus(t, http.StatusNoContent)
			wantHeader(t, r, "Access-Control-Allow-Origin", appOrigin)
			wantHeader(t, r, "Access-Control-Allow-Credentials", "true")
			wantHeader(t, r, "Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id")
			wantHeader(t, r, "Access-Control-Max-Age", "7200")
			for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
				if !strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), m) {
					t.Errorf("%s: Allow-Methods %q lacks %s", path, r.Header.Get("Access-Control-Allow-Methods"), m)
				}
			}
			if v := strings.Join(r.Header.Values("Vary"), ","); !strings.Contains(v, "Origin") {
				t.Errorf("%s: Vary %q lacks Origin", path, v)
			}
		}
		// The web chat's paths serve every site: their handler answers, not the API's rule.
		if r := preflight("https://shop.example.org", "/webchat/widget.js"); r.Status == http.StatusForbidden {
			t.Errorf("web chat preflight refused: %d %s", r.Status, r.Body)
		}
		// Unlisted origins, look-alikes and the wildcard get no CORS answer.
		for _, origin := range []string{"https://evil.example.com", "http://app.example.com", "https://app.example.com.evil.io",
			"https://app.example.com:8443", "null", "*", "https://app.example.com/"} {
			r := preflight(origin, "/auth/login")
			r.wantErr(t, http.StatusForbidden, engine.ErrForbiddenOrigin)
			if got := r.Header.Get("Access-Control-Allow-Origin"); got != "" {
				t.Errorf("origin %q: Allow-Origin %q", origin, got)
			}
		}
	}, withCORS)
}

func TestCORSActualRequests(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tok := e.tok("admin")
		r := e.do(req{method: "GET", path: "/users", token: tok, header: map[string]string{"Origin": appOrigin}})
		r.wantStatus(t, http.StatusOK)
		wantHeader(t, r, "Access-Control-Allow-Origin", appOrigin)
		wantHeader(t, r, "Access-Control-Allow-Credentials", "true")
		if !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") {
			t.Errorf("Expose-Headers %q", r.Header.Get("Access-Control-Expose-Headers"))
		}
		// Another origin's page gets its answer without CORS headers: the browser
		// keeps it from the page.
		r = e.do(req{method: "GET", path: "/users", token: tok, header: map[string]string{"Origin": "https://evil.example.com"}})
		wantHeader(t, r, "Access-Control-Allow-Origin", "")
		wantHeader(t, r, "Access-Control-Allow-Credentials", "")

		// Login from the listed origin works and its refresh cookie can travel
		// cross-site: SameSite=None; Secure.
		_, c, lr := e.loginFrom(appOrigin, "ana@example.com")
		lr.wantStatus(t, http.StatusOK)
		if c == nil || c.SameSite != http.SameSiteNoneMode || !c.Secure {
			t.Fatalf("refresh cookie %+v, want SameSite=None; Secure", c)
		}
		wantHeader(t, lr, "Access-Control-Allow-Origin", appOrigin)
	}, withCORS)
}

// loginFrom posts a JSON login as a browser page on origin would.
func (e *env) loginFrom(origin, email string) (string, *http.Cookie, resp) {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/auth/login", header: map[string]string{"Origin": origin, "Sec-Fetch-Site": "cross-site"},
		body: map[string]string{"email": email, "password": testPassword}})
	return "", r.cookie(httpapi.RefreshCookie), r
}

func TestSameOriginOnlyWithoutCORSOrigins(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(req{method: "OPTIONS", path: "/auth/login", header: map[string]string{
			"Origin": appOrigin, "Access-Control-Request-Method": "POST"}})
		r.wantErr(t, http.StatusForbidden, engine.ErrForbiddenOrigin)
		r = e.do(req{method: "GET", path: "/users", token: e.tok("admin"), header: map[string]string{"Origin": appOrigin}})
		wantHeader(t, r, "Access-Control-Allow-Origin", "")
		if v := r.Header.Values("Vary"); len(v) != 0 {
			t.Errorf("Vary %q without CORS origins", v)
		}
		// The same-origin app logs in with a Strict cookie; httptest's Host is example.com.
		r = e.do(req{method: "POST", path: "/auth/login", header: map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"},
			body: map[string]string{"email": "ana@example.com", "password": testPassword}})
		r.wantStatus(t, http.StatusOK)
		if c := r.cookie(httpapi.RefreshCookie); c == nil || c.SameSite != http.SameSiteStrictMode {
			t.Fatalf("refresh cookie %+v, want SameSite=Strict", c)
		}
		// The listed-origin login of a cross-origin set-up is refused here.
		_, _, lr := e.loginFrom(appOrigin, "ana@example.com")
		lr.wantErr(t, http.StatusForbidden, engine.ErrForbiddenOrigin)
	})
}

// TestLoginCSRF: another site's page posts a form to /auth/login, as a login-CSRF
// attack does (no preflight: text/plain, form-urlencoded and multipart are "simple").
// It must not sign the browser in, whatever the body.
func TestLoginCSRF(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		jsonBody := `{"email":"ana@example.com","password":"` + testPassword + `"}`
		formBody := "email=ana%40example.com&password=" + testPassword
		attacks := []struct {
			name, ctype, body string
			header            map[string]string
		}{
			{"text/plain from another site", "text/plain", jsonBody, map[string]string{"Origin": "https://evil.example.net", "Sec-Fetch-Site": "cross-site"}},
			{"form-urlencoded from another site", "application/x-www-form-urlencoded", formBody, map[string]string{"Origin": "https://evil.example.net", "Sec-Fetch-Site": "cross-site"}},
			{"text/plain, Origin stripped", "text/plain", jsonBody, map[string]string{"Sec-Fetch-Site": "cross-site"}},
			{"form, Origin null (sandboxed frame)", "application/x-www-form-urlencoded", formBody, map[string]string{"Origin": "null"}},
			{"json from a sibling site", "application/json", jsonBody, map[string]string{"Origin": "https://other.example.com", "Sec-Fetch-Site": "same-site"}},
			{"json, Origin stripped, sibling site", "application/json", jsonBody, map[string]string{"Sec-Fetch-Site": "same-site"}},
		}
		for _, a := range attacks {
			t.Run(a.name, func(t *testing.T) {
				h := map[string]string{"Content-Type": a.ctype}
				for k, v := range a.header {
					h[k] = v
				}
				r := e.do(req{method: "POST", path: "/auth/login", body: a.body, header: h})
				r.wantErr(t, http.StatusForbidden, engine.ErrForbiddenOrigin)
				if c := r.cookie(httpapi.RefreshCookie); c != nil {
					t.Fatalf("refused login set a cookie: %+v", c)
				}
			})
		}
		// The refresh and logout routes are covered by the same rule.
		for _, path := range []string{"/auth/refresh_token", "/auth/logout"} {
			method := "POST"
			if path == "/auth/logout" {
				method = "DELETE"
			}
			e.do(req{method: method, path: path, header: map[string]string{"Origin": "https://evil.example.net"}}).
				wantErr(t, http.StatusForbidden, engine.ErrForbiddenOrigin)
		}
		// A same-origin or scripted client that posts a form still gets no session:
		// login reads JSON only.
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
			r := e.do(req{method: "POST", path: "/auth/login", body: jsonBody, header: map[string]string{"Content-Type": ct}})
			r.wantErr(t, http.StatusUnsupportedMediaType, engine.ErrUnsupportedMediaType)
		}
		// JSON without Origin (curl, scripts) and JSON from the own origin pass.
		e.do(req{method: "POST", path: "/auth/login", body: jsonBody}).wantStatus(t, http.StatusOK)
		e.do(req{method: "POST", path: "/auth/login", body: jsonBody, header: map[string]string{
			"Content-Type": "application/json; charset=utf-8", "Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}}).wantStatus(t, http.StatusOK)
	})
}

// TestJSONRoutesRequireJSON: every JSON route refuses other content types before
// reading the body, and nothing is written.
func TestJSONRoutesRequireJSON(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tok := e.tok("admin")
		r := e.do(req{method: "POST", path: "/users", token: tok, body: `{"name":"Novo","email":"novo@example.com","password":"secret1","profile":"user"}`,
			header: map[string]string{"Content-Type": "text/plain;charset=UTF-8"}})
		r.wantErr(t, http.StatusUnsupportedMediaType, engine.ErrUnsupportedMediaType)
		e.post(tok, "/auth/login", map[string]string{"email": "novo@example.com", "password": "secret1"}).
			wantErr(t, http.StatusUnauthorized, engine.ErrInvalidCredentials)
		r = e.do(req{method: "PUT", path: "/settings/userCreation", token: tok, body: `{"value":"disabled"}`,
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
		r.wantErr(t, http.StatusUnsupportedMediaType, engine.ErrUnsupportedMediaType)
		// A hostile type header cannot pass for JSON.
		for _, ct := range []string{"application/jsonx", "application/json+evil", "text/json", "application/json;;", "application/ json", "json"} {
			r := e.do(req{method: "POST", path: "/users", token: tok, body: `{}`, header: map[string]string{"Content-Type": ct}})
			r.wantErr(t, http.StatusUnsupportedMediaType, engine.ErrUnsupportedMediaType)
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	web := fstest.MapFS{
		"index.html":       {Data: []byte(`<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>`)},
		"assets/app.js":    {Data: []byte(`console.log(1)`)},
		"webchat-note.txt": {Data: []byte(`x`)},
	}
	eachEnv(t, func(t *testing.T, e *env) {
		common := func(t *testing.T, r resp) {
			t.Helper()
			wantHeader(t, r, "X-Content-Type-Options", "nosniff")
			wantHeader(t, r, "X-Frame-Options", "DENY")
			wantHeader(t, r, "Referrer-Policy", "strict-origin-when-cross-origin")
			wantHeader(t, r, "Strict-Transport-Security", "max-age=15552000")
			pp := r.Header.Get("Permissions-Policy")
			if !strings.Contains(pp, "microphone=(self)") || !strings.Contains(pp, "camera=(self)") {
				t.Errorf("Permissions-Policy %q", pp)
			}
			if !strings.Contains(r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
				t.Errorf("CSP %q lacks frame-ancestors 'none'", r.Header.Get("Content-Security-Policy"))
			}
		}
		t.Run("app page", func(t *testing.T) {
			for _, path := range []string{"/", "/tickets", "/login", "/assets/app.js"} {
				r := e.do(req{method: "GET", path: path, header: map[string]string{"Accept": "text/html"}})
				r.wantStatus(t, http.StatusOK)
				common(t, r)
				csp := r.Header.Get("Content-Security-Policy")
				script := directive(csp, "script-src")
				if !strings.HasPrefix(script, "script-src 'self'") || strings.Contains(script, "unsafe") {
					t.Errorf("%s: script-src %q", path, script)
				}
				for _, d := range []string{"object-src 'none'", "base-uri 'self'", "default-src 'self'", "https://atende.example.com"} {
					if !strings.Contains(csp, d) {
						t.Errorf("%s: CSP %q lacks %s", path, csp, d)
					}
				}
			}
		})
		t.Run("api", func(t *testing.T) {
			for _, path := range []string{"/healthz", "/users"} {
				r := e.get(e.tok("admin"), path)
				common(t, r)
				wantHeader(t, r, "Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
			}
			r := e.do(req{method: "POST", path: "/auth/login", body: map[string]string{"email": "x@example.com", "password": "bad-pass"}})
			common(t, r)
		})
		t.Run("web chat widget is embeddable", func(t *testing.T) {
			r := e.do(req{method: "GET", path: "/webchat/widget.js"})
			for _, h := range []string{"X-Frame-Options", "Content-Security-Policy", "Permissions-Policy"} {
				if v := r.Header.Get(h); v != "" {
					t.Errorf("widget path carries %s: %q", h, v)
				}
			}
		})
	}, func(o *envOpts) {
		o.cfg.Web, o.cfg.HSTS, o.cfg.PublicURL = web, true, "https://atende.example.com/"
	})
}

// directive is one directive of a policy ("" when absent).
func directive(csp, name string) string {
	for _, d := range strings.Split(csp, ";") {
		if d = strings.TrimSpace(d); strings.HasPrefix(d, name+" ") {
			return d
		}
	}
	return ""
}

func TestNoHSTSByDefault(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		wantHeader(t, e.get("", "/healthz"), "Strict-Transport-Security", "")
	})
}

func TestMetricsToken(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.get("", "/metrics").wantErr(t, http.StatusUnauthorized, engine.ErrInvalidToken)
		e.get("wrong-token", "/metrics").wantErr(t, http.StatusUnauthorized, engine.ErrInvalidToken)
		r := e.get("metrics-secret-0123456789", "/metrics")
		r.wantStatus(t, http.StatusOK)
		if !strings.Contains(string(r.Body), "atende_http_requests_total") {
			t.Fatalf("metrics body %.200s", r.Body)
		}
	}, func(o *envOpts) { o.cfg.MetricsToken = "metrics-secret-0123456789" })
}

func TestMetricsOff(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		e.get("", "/metrics").wantErr(t, http.StatusNotFound, engine.ErrNotFound)
		// The handler for a private listener still serves them.
		w := httptest.NewRecorder()
		e.srv.MetricsHandler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "atende_http_requests_total") {
			t.Fatalf("MetricsHandler: %d %.200s", w.Code, w.Body.String())
		}
	}, func(o *envOpts) { o.cfg.MetricsOff = true })
}

func TestNormalizeOrigin(t *testing.T) {
	good := map[string]string{
		"https://app.example.com":        "https://app.example.com",
		" HTTPS://App.Example.COM:443/ ": "https://app.example.com",
		"http://localhost:5173":          "http://localhost:5173",
		"http://127.0.0.1:80":            "http://127.0.0.1",
		"http://[::1]:8080":              "http://[::1]:8080",
	}
	for in, want := range good {
		if got, err := httpapi.NormalizeOrigin(in); err != nil || got != want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "*", "null", "app.example.com", "ftp://app.example.com", "https://", "https://app.example.com/path",
		"https://app.example.com?x=1", "https://app.example.com#f", "https://user:pw@app.example.com", "https://*.example.com",
		"https://app.example.com:0", "https://app.example.com:99999", "https://app.example.com:x", "javascript:alert(1)", "https://app.example.com\x00"} {
		if got, err := httpapi.NormalizeOrigin(in); err == nil {
			t.Errorf("NormalizeOrigin(%q) = %q, want an error", in, got)
		}
	}
}

// TestOriginPolicyHandshake is the socket gateway's handshake rule: no Origin (not a
// browser page), the own origin and the listed ones pass; every other page is refused.
func TestOriginPolicyHandshake(t *testing.T) {
	p, err := httpapi.NewOriginPolicy([]string{appOrigin}, "https://atende.example.com")
	if err != nil {
		t.Fatal(err)
	}
	try := func(host, origin string) bool {
		r := httptest.NewRequest("GET", "/socket.io/?EIO=4&transport=websocket", nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		return p.Allowed(r)
	}
	cases := []struct {
		host, origin string
		want         bool
	}{
		{"atende.example.com", "", true},
		{"atende.example.com", "https://atende.example.com", true},
		{"10.0.0.5:8080", "https://atende.example.com", true}, // behind a proxy that rewrites Host
		{"10.0.0.5:8080", "http://10.0.0.5:8080", true},
		{"atende.example.com:443", "https://atende.example.com", true},
		{"atende.example.com", appOrigin, true},
		{"atende.example.com", "https://evil.example.com", false},
		{"atende.example.com", "https://atende.example.com.evil.io", false},
		{"atende.example.com", "null", false},
		{"atende.example.com", "HTTPS://APP.EXAMPLE.COM", false}, // browsers send origins in lower case
		{"atende.example.com", "https://app.example.com:444", false},
	}
	for _, c := range cases {
		if got := try(c.host, c.origin); got != c.want {
			t.Errorf("host %q origin %q: allowed %v, want %v", c.host, c.origin, got, c.want)
		}
	}
	// Without listed origins only the own one passes.
	own, _ := httpapi.NewOriginPolicy(nil, "")
	if own.CrossOrigin() {
		t.Error("CrossOrigin without origins")
	}
	r := httptest.NewRequest("GET", "/socket.io/", nil)
	r.Header.Set("Origin", appOrigin)
	if own.Allowed(r) {
		t.Error("a foreign origin passed a same-origin policy")
	}
	if _, err := httpapi.NewOriginPolicy([]string{"*"}, ""); err == nil {
		t.Error("wildcard origin accepted")
	}
}

// FuzzNormalizeOrigin: whatever CORS_ORIGINS holds, an accepted origin is in the form
// browsers send (normalizing it again changes nothing) and names nothing but a scheme,
// a host and a port.
func FuzzNormalizeOrigin(f *testing.F) {
	for _, s := range []string{"https://app.example.com", "HTTP://Localhost:5173/", "https://[::1]:443", "https://a.b:0", "*", "null", "https://x/../y", "https://%41.example", "http://a@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := httpapi.NormalizeOrigin(raw)
		if err != nil {
			return
		}
		again, err := httpapi.NormalizeOrigin(got)
		if err != nil || again != got {
			t.Fatalf("%q → %q → %q, %v", raw, got, again, err)
		}
		rest, ok := strings.CutPrefix(got, "https://")
		if !ok {
			rest, ok = strings.CutPrefix(got, "http://")
		}
		if !ok || rest == "" || strings.ContainsAny(rest, "/?#@* \t\r\n") {
			t.Fatalf("%q → %q", raw, got)
		}
	})
}
