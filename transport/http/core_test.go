package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"atende/engine"
)

func TestRoutingErrors(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tests := []struct {
			name, method, path string
			status             int
			code               engine.Code
			allow              string
		}{
			{"unknown path", "GET", "/nope", 404, engine.ErrNotFound, ""},
			{"unknown nested path", "GET", "/users/1/extra", 404, engine.ErrNotFound, ""},
			{"unknown method on known path", "PATCH", "/users/1", 405, "ERR_METHOD_NOT_ALLOWED", "GET, PUT, DELETE"},
			{"POST on a GET route", "POST", "/settings", 405, "ERR_METHOD_NOT_ALLOWED", "GET"},
			{"GET on login", "GET", "/auth/login", 405, "ERR_METHOD_NOT_ALLOWED", "POST"},
			{"unknown without web app", "GET", "/tickets/12", 404, engine.ErrNotFound, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(req{method: tc.method, path: tc.path, token: e.tok("admin")})
				r.wantErr(t, tc.status, tc.code)
				if got := r.Header.Get("Allow"); got != tc.allow {
					t.Fatalf("Allow %q, want %q", got, tc.allow)
				}
				if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Fatalf("content type %q", ct)
				}
			})
		}
	})
}

func TestOpsEndpoints(t *testing.T) {
	var failing bool
	ready := func(ctx context.Context) error {
		if failing {
			return errors.New("database down")
		}
		return nil
	}
	eachEnv(t, func(t *testing.T, e *env) {
		failing = false
		e.get("", "/healthz").wantStatus(t, 200)
		e.get("", "/readyz").wantStatus(t, 200)
		failing = true
		e.get("", "/readyz").wantErr(t, 503, engine.ErrUnavailable)
		e.get("", "/healthz").wantStatus(t, 200) // liveness does not depend on the database
		failing = false

		e.get(e.tok("ana"), "/users/"+id(e.ids["bruno"])).wantStatus(t, 200)
		e.get("", "/nowhere").wantStatus(t, 404)
		r := e.get("", "/metrics")
		r.wantStatus(t, 200)
		body := string(r.Body)
		for _, want := range []string{
			`atende_http_requests_total{route="GET /users/{id}",status="200"} 1`,
			`atende_http_requests_total{route="unmatched",status="404"} 1`,
			`atende_http_requests_total{route="GET /readyz",status="503"} 1`,
			`atende_http_request_duration_seconds_bucket{route="GET /users/{id}",le="+Inf"} 1`,
		} {
			if !strings.Contains(body, want) {
				t.Fatalf("metrics lack %s:\n%s", want, body)
			}
		}
	}, func(o *envOpts) { o.ready = ready })
}

func TestRequestIDAndAccessLog(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(req{method: "GET", path: "/users/list", token: e.tok("ana"), header: map[string]string{"X-Request-Id": "abc-123"}})
		r.wantStatus(t, 200)
		if r.Header.Get("X-Request-Id") != "abc-123" {
			t.Fatalf("request id %q", r.Header.Get("X-Request-Id"))
		}
		logs := e.logs.String()
		for _, want := range []string{`"request_id":"abc-123"`, `"method":"GET"`, `"path":"/users/list"`, `"status":200`,
			`"user_id":` + id(e.ids["ana"]), `"tenant":1`, `"duration":`, `"route":"GET /users/list"`} {
			if !strings.Contains(logs, want) {
				t.Fatalf("access log lacks %s:\n%s", want, logs)
			}
		}
		// A hostile id is replaced by a generated one.
		r = e.do(req{method: "GET", path: "/healthz", header: map[string]string{"X-Request-Id": "bad id\"\n{"}})
		if got := r.Header.Get("X-Request-Id"); got == "" || strings.ContainsAny(got, " \"\n{") {
			t.Fatalf("request id %q", got)
		}
		if len(e.do(req{method: "GET", path: "/healthz"}).Header.Get("X-Request-Id")) != 24 {
			t.Fatal("no generated request id")
		}
	})
}

// failingUsers makes List fail, to exercise the 500 path.
type failingUsers struct{ engine.UserStore }

func (failingUsers) List(context.Context, engine.ID, engine.UserFilter) ([]engine.User, int, error) {
	return nil, 0, errors.New("disk on fire")
}

func TestInternalErrorsAndPanics(t *testing.T) {
	dbtestEnv := func(t *testing.T, e *env) {
		r := e.do(req{method: "GET", path: "/users/", token: e.tok("ana"), header: map[string]string{"X-Request-Id": "req-500"}})
		b := r.wantErr(t, 500, engine.ErrInternal)
		if b.Message != "ERR_INTERNAL" || strings.Contains(string(r.Body), "disk") {
			t.Fatalf("500 body leaks: %s", r.Body)
		}
		logs := e.logs.String()
		if !strings.Contains(logs, `"request_id":"req-500"`) || !strings.Contains(logs, "disk on fire") {
			t.Fatalf("500 not logged with request id:\n%s", logs)
		}

		e.srv.Mount("/boom", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("kaboom") }))
		e.srv.Mount("/socket.io/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTeapot)
		}))
		r = e.do(req{method: "GET", path: "/boom", header: map[string]string{"X-Request-Id": "req-panic"}})
		r.wantErr(t, 500, engine.ErrInternal)
		if logs := e.logs.String(); !strings.Contains(logs, "kaboom") || !strings.Contains(logs, `"request_id":"req-panic"`) {
			t.Fatalf("panic not logged:\n%s", logs)
		}
		// The server still serves after a panic; mounted handlers run without auth.
		e.do(req{method: "GET", path: "/socket.io/?EIO=4&transport=websocket"}).wantStatus(t, http.StatusTeapot)
		e.get("", "/healthz").wantStatus(t, 200)
	}
	eachEnv(t, dbtestEnv, func(o *envOpts) { o.users = failingUsers{} })
}

func TestWebApp(t *testing.T) {
	web := fstest.MapFS{
		"index.html":        {Data: []byte("<!doctype html><div id=root></div>")},
		"assets/app-12.js":  {Data: []byte("console.log(1)")},
		"favicon.ico":       {Data: []byte("ico")},
		"assets/sub/x.css":  {Data: []byte("body{}")},
		"locales/en/a.json": {Data: []byte("{}")},
	}
	eachEnv(t, func(t *testing.T, e *env) {
		html := map[string]string{"Accept": "text/html,application/xhtml+xml"}
		tests := []struct {
			name    string
			method  string
			path    string
			header  map[string]string
			status  int
			body    string
			cache   string
			apiCode engine.Code
		}{
			{"root", "GET", "/", nil, 200, "<!doctype html>", "no-cache", ""},
			{"index.html", "GET", "/index.html", nil, 200, "<!doctype html>", "no-cache", ""},
			{"hashed asset", "GET", "/assets/app-12.js", nil, 200, "console.log(1)", "public, max-age=31536000, immutable", ""},
			{"nested asset", "GET", "/assets/sub/x.css", nil, 200, "body{}", "public, max-age=31536000, immutable", ""},
			{"other file", "GET", "/favicon.ico", nil, 200, "ico", "public, max-age=3600", ""},
			{"missing asset is a 404", "GET", "/assets/gone.js", nil, 404, "", "", engine.ErrNotFound},
			{"app route", "GET", "/tickets/42", nil, 200, "<!doctype html>", "no-cache", ""},
			{"app route with query", "GET", "/Settings?tab=1", nil, 200, "<!doctype html>", "no-cache", ""},
			{"app route that is also an API path, navigated", "GET", "/users", html, 200, "<!doctype html>", "no-cache", ""},
			{"API path fetched", "GET", "/users", nil, 401, "", "", engine.ErrSessionExpired},
			{"unknown API subpath fetched", "GET", "/users/1/x", nil, 404, "", "", engine.ErrNotFound},
			{"dot segments are cleaned by redirect", "GET", "/../../etc/passwd", nil, 307, "/etc/passwd", "", ""},
			{"no file outside the app", "GET", "/etc/passwd", nil, 200, "<!doctype html>", "no-cache", ""},
			{"POST to an app route", "POST", "/tickets-page", nil, 404, "", "", engine.ErrNotFound},
			{"ops endpoint navigated", "GET", "/healthz", html, 200, `"ok"`, "", ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(req{method: tc.method, path: tc.path, header: tc.header})
				if tc.apiCode != "" {
					r.wantErr(t, tc.status, tc.apiCode)
					return
				}
				r.wantStatus(t, tc.status)
				if !strings.Contains(string(r.Body), tc.body) {
					t.Fatalf("body %q, want %q", r.Body, tc.body)
				}
				if tc.cache != "" && r.Header.Get("Cache-Control") != tc.cache {
					t.Fatalf("Cache-Control %q, want %q", r.Header.Get("Cache-Control"), tc.cache)
				}
			})
		}
	}, func(o *envOpts) { o.cfg.Web = web })
}
