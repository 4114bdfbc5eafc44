package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/node"
)

// A development server logs for a person reading a terminal; production logs JSON for
// a collector; LOG_FORMAT (or --log-format) wins over both defaults.
func TestLogFormatFollowsTheEnvironment(t *testing.T) {
	secret := "Vq3x9LmZ2pR7tK1wYc8NbH5sJd4FgA6e" // passes the production checks of a secret
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"development", nil, nil, "console"},
		{"production", nil, map[string]string{"ATENDE_ENV": "production", "JWT_SECRET": secret}, "json"},
		{"development asks json", nil, map[string]string{"LOG_FORMAT": "json"}, "json"},
		{"production asks console", nil, map[string]string{"ATENDE_ENV": "production", "JWT_SECRET": secret, "LOG_FORMAT": "console"}, "console"},
		{"production by flag", []string{"--env", "production"}, map[string]string{"JWT_SECRET": secret}, "json"},
		{"flag wins", []string{"--log-format", "json"}, map[string]string{"LOG_FORMAT": "console"}, "json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, envOf(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.LogFormat != tc.want {
				t.Fatalf("log format %q, want %q", c.LogFormat, tc.want)
			}
			var buf bytes.Buffer
			log := newLogger(c, &buf)
			log.Info().Str("k", "v").Msg("hello")
			line := buf.String()
			isJSON := strings.HasPrefix(line, "{")
			if isJSON != (tc.want == "json") || !strings.Contains(line, "hello") {
				t.Fatalf("%s log line %q", tc.want, line)
			}
			if tc.want == "console" && (!strings.Contains(line, "INF") || strings.Contains(line, "\x1b[")) {
				t.Fatalf("console line to a buffer should be plain text with its level: %q", line)
			}
		})
	}
}

// syncBuffer is a log destination the server's goroutines write while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The first minutes of `make run`, on SQLite: the console log names each step and
// ends with the URL and the demo login; that login works, and the inbox it opens
// holds the sample conversations (the README's curl: the token of the login answer
// as a Bearer header on /tickets).
func TestMakeRunFirstMinutes(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.DatabaseURL = "sqlite:" + cfg.DataDir + "/atende.db"
	cfg.LogFormat, cfg.LogLevel, cfg.SeedConversations = "console", "info", true
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	a, err := node.New(ctx, cfg, newLogger(cfg, &logs))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.ServeOn(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + ln.Addr().String()

	want := fmt.Sprintf("serving %s (demo login admin@atende.local / admin123)", base)
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no line %q in the log:\n%s", want, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	out := logs.String()
	last := -1
	for _, step := range []string{"migrating the database", "database ready", "seeding the demo tenant", "seed: demo conversations created", want} {
		i := strings.Index(out, step)
		if i < 0 || i < last {
			t.Fatalf("step %q missing or out of order in the log:\n%s", step, out)
		}
		last = i
	}
	if strings.Contains(out, `{"level"`) {
		t.Fatalf("development log is JSON:\n%s", out)
	}

	admin := login(t, base, "admin@atende.local", "admin123")
	for _, status := range []string{engine.StatusPending, engine.StatusOpen, engine.StatusClosed} {
		var page engine.TicketPage
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			admin.call("GET", "/tickets?status="+status+"&showAll=true", nil, http.StatusOK, &page)
			if len(page.Tickets) > 0 || time.Now().After(end) {
				break
			}
		}
		if len(page.Tickets) == 0 {
			t.Fatalf("the demo inbox has no %s ticket", status)
		}
	}
}
