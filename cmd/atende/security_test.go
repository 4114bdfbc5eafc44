package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/node"
)

// strongSecret is what `openssl rand -base64 48` gives.
const strongSecret = "q3Vd8Zr0Jf6mK1xPn4TgY7hLw2sAe9Bc5UoRiHjNkMvXz+Ft/QyGp0WbSlEaDuC1"

func prodEnv(extra map[string]string) map[string]string {
	m := map[string]string{"ATENDE_ENV": "production", "JWT_SECRET": strongSecret}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// TestProductionRefusesWeakSecrets: a secret of the right length that cannot be random
// is refused in production; random ones of every usual shape pass.
func TestProductionRefusesWeakSecrets(t *testing.T) {
	weak := map[string]string{
		"32 identical characters": strings.Repeat("k", 32),
		"two characters":          strings.Repeat("ab", 20),
		"a repeated word":         strings.Repeat("secret-key", 4),
		"a repeated block":        strings.Repeat("0123456789abcdef", 2),
		"the alphabet":            "abcdefghijklmnopqrstuvwxyz0123456789",
		"a counting run":          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef",
		"mostly one character":    strings.Repeat("x", 62) + "Q7m#2Lp9!zR",
	}
	for name, secret := range weak {
		t.Run(name, func(t *testing.T) {
			_, err := parseConfig(nil, envOf(prodEnv(map[string]string{"JWT_SECRET": secret})))
			if err == nil || !strings.Contains(err.Error(), "JWT_SECRET") {
				t.Fatalf("secret %q: err = %v, want a JWT_SECRET refusal", secret, err)
			}
			// Development does not check (it generates its own secret when none is set).
			if _, err := parseConfig(nil, envOf(map[string]string{"JWT_SECRET": secret})); err != nil {
				t.Fatalf("development refused %q: %v", secret, err)
			}
		})
	}
	strong := []string{
		strongSecret,
		"9f86d081884c7d659a2feaa0c55ad015", // openssl rand -hex 16
		"2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", // -hex 32
		"Xk3_pQ9-vLm2Rt8sWy5zB1nC4dF7gH0j",                                 // base64url, 32 characters
	}
	for _, secret := range strong {
		if _, err := parseConfig(nil, envOf(prodEnv(map[string]string{"JWT_SECRET": secret}))); err != nil {
			t.Errorf("secret %q refused: %v", secret, err)
		}
	}
}

func TestProductionRefusesDemoSeed(t *testing.T) {
	for _, how := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"--seed-demo"}, nil},
		{nil, map[string]string{"SEED_DEMO": "true"}},
		{nil, map[string]string{"SEED_DEMO": "1"}},
	} {
		_, err := parseConfig(how.args, envOf(prodEnv(how.env)))
		if err == nil || !strings.Contains(err.Error(), "seed-demo") {
			t.Fatalf("%v %v: err = %v, want a refusal of the demo seed", how.args, how.env, err)
		}
		if _, err := parseConfig(how.args, envOf(how.env)); err != nil {
			t.Fatalf("development refused the demo seed: %v", err)
		}
	}
	// `atende seed` refuses too.
	c, err := parseConfig(nil, envOf(prodEnv(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Seed(context.Background(), c, zerolog.Nop()); err == nil || !strings.Contains(err.Error(), "production") {
		t.Fatalf("atende seed in production: %v", err)
	}
}

func TestCORSConfig(t *testing.T) {
	c, err := parseConfig([]string{"--cors-origins", " https://App.example.com , http://localhost:5173 ,"},
		envOf(map[string]string{"PUBLIC_URL": "https://atende.example.com/"}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.CORSOrigins, ",") != "https://app.example.com,http://localhost:5173" {
		t.Fatalf("origins %q", c.CORSOrigins)
	}
	if got := c.MediaBaseURL(); got != "https://atende.example.com/media" {
		t.Fatalf("media base %q, want the public URL's", got)
	}
	if got := (node.Config{PublicURL: "https://atende.example.com"}).MediaBaseURL(); got != "" {
		t.Fatalf("same-origin media base %q, want the relative default", got)
	}
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"wildcard":                {[]string{"--cors-origins", "*"}, map[string]string{"PUBLIC_URL": "https://a.example.com"}, "CORS_ORIGINS"},
		"a path":                  {nil, map[string]string{"CORS_ORIGINS": "https://app.example.com/app", "PUBLIC_URL": "https://a.example.com"}, "CORS_ORIGINS"},
		"no public URL":           {nil, map[string]string{"CORS_ORIGINS": "https://app.example.com"}, "PUBLIC_URL"},
		"relative public URL":     {nil, map[string]string{"PUBLIC_URL": "/atende"}, "PUBLIC_URL"},
		"http origin, production": {nil, prodEnv(map[string]string{"CORS_ORIGINS": "http://app.example.com", "PUBLIC_URL": "https://a.example.com"}), "https in production"},
	} {
		if _, err := parseConfig(tc.args, envOf(tc.env)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestMetricsConfig(t *testing.T) {
	cases := []struct {
		env     map[string]string
		offPort bool
	}{
		{nil, false}, // development: on the public port, as before
		{map[string]string{"METRICS_ADDR": "127.0.0.1:9090"}, true},
		{prodEnv(nil), true}, // production without either: not served
		{prodEnv(map[string]string{"METRICS_TOKEN": "Zq8-Rw3_kP5sLx2Vn7Tb9Hc4Mj6Dg1Fy"}), false},
		{prodEnv(map[string]string{"METRICS_ADDR": "127.0.0.1:9090"}), true},
	}
	for _, tc := range cases {
		c, err := parseConfig(nil, envOf(tc.env))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.MetricsOffPublicPort(); got != tc.offPort {
			t.Errorf("%v: off the public port %v, want %v", tc.env, got, tc.offPort)
		}
	}
	for _, tok := range []string{"short-token", strings.Repeat("t", 40)} {
		if _, err := parseConfig(nil, envOf(prodEnv(map[string]string{"METRICS_TOKEN": tok}))); err == nil || !strings.Contains(err.Error(), "METRICS_TOKEN") {
			t.Errorf("METRICS_TOKEN %q: err = %v", tok, err)
		}
	}
}

// startNode runs `atende serve` with args (plus a temporary data dir and a free port)
// until the test ends, and returns its address once /healthz answers.
func startNode(t *testing.T, args ...string) string {
	t.Helper()
	public := freeAddr(t)
	cfg, err := parseConfig(append([]string{"--data-dir", t.TempDir(), "--http-addr", public}, args...), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, zerolog.Nop()) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Error("server did not stop")
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, _ := httpGet(t, "http://"+public+"/healthz", nil); st == 200 {
			return public
		}
		if time.Now().After(deadline) {
			t.Fatal("server not up")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// httpGet answers the status and body of a GET with headers (0 when unreachable).
func httpGet(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestMetricsOnTheirOwnAddress runs a node with METRICS_ADDR: /metrics answers there
// (behind its token) and not on the public port.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	const tok = "Zq8-Rw3_kP5sLx2Vn7Tb9Hc4Mj6Dg1Fy"
	private := freeAddr(t)
	public := startNode(t, "--metrics-addr", private, "--metrics-token", tok)
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	if st, body := httpGet(t, "http://"+public+"/metrics", bearer); st != http.StatusNotFound {
		t.Fatalf("public /metrics: %d %.100s, want 404", st, body)
	}
	if st, _ := httpGet(t, "http://"+private+"/metrics", nil); st != http.StatusUnauthorized {
		t.Fatalf("private /metrics without token: %d, want 401", st)
	}
	if st, body := httpGet(t, "http://"+private+"/metrics", bearer); st != 200 || !strings.Contains(body, "atende_http_requests_total") {
		t.Fatalf("private /metrics: %d %.200s", st, body)
	}
	// The runtime's profiles: on the private listener, behind the same token. The
	// public port has no such route: it answers 404 or, once the web app is built,
	// the app's index.html (an app route), never a profile.
	const heapMark = "heap profile:" // the first words of the text heap profile
	if st, body := httpGet(t, "http://"+private+"/debug/pprof/heap?debug=1", bearer); st != 200 || !strings.Contains(body, heapMark) {
		t.Fatalf("private heap profile: %d %.200s", st, body)
	}
	if _, body := httpGet(t, "http://"+public+"/debug/pprof/heap?debug=1", bearer); strings.Contains(body, heapMark) {
		t.Fatal("public /debug/pprof/heap answered with the profile")
	}
	if st, _ := httpGet(t, "http://"+private+"/debug/pprof/heap", nil); st != http.StatusUnauthorized {
		t.Fatalf("private /debug/pprof/heap without token: %d, want 401", st)
	}
	if st, body := httpGet(t, "http://"+private+"/debug/pprof/goroutine?debug=1", bearer); st != 200 || !strings.Contains(body, "goroutine profile: total") {
		t.Fatalf("private goroutine profile: %d %.200s", st, body)
	}
	if st, _ := httpGet(t, "http://"+private+"/debug/pprof/nosuch", bearer); st != http.StatusNotFound {
		t.Fatalf("unknown profile: %d, want 404", st)
	}
}

// TestSocketHandshakeOrigins: the socket gateway of a node with CORS_ORIGINS upgrades
// for its own origin, the listed one and non-browser clients, and refuses other pages.
func TestSocketHandshakeOrigins(t *testing.T) {
	addr := startNode(t, "--cors-origins", "http://front.example.com:5173", "--public-url", "https://atende.example.com")
	handshake := func(origin string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/socket.io/?EIO=4&transport=websocket", nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return res.StatusCode
	}
	for origin, want := range map[string]int{
		"http://front.example.com:5173": http.StatusSwitchingProtocols,
		"https://atende.example.com":    http.StatusSwitchingProtocols,
		"http://" + addr:                http.StatusSwitchingProtocols,
		"":                              http.StatusSwitchingProtocols,
		"https://evil.example.com":      http.StatusForbidden,
		"http://front.example.com":      http.StatusForbidden,
		"null":                          http.StatusForbidden,
	} {
		if got := handshake(origin); got != want {
			t.Errorf("origin %q: status %d, want %d", origin, got, want)
		}
	}
}
