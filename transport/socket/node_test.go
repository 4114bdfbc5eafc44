package socket

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSocketIOClients runs test/socketio/conformance.test.js: unmodified
// socket.io-client v4 (4.8) and v3 (3.1) against a real server. It is skipped only
// when node is not on PATH; node_modules is installed from the lock file if absent.
func TestSocketIOClients(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "test", "socketio"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "socket.io-client-v3")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatalf("node_modules missing in %s and npm not on PATH", dir)
		}
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}

	f := newFixture(t, HubConfig{AppendOffset: true, Backlog: mustMemoryBacklog(t, MemoryBacklogConfig{MaxEvents: 1000})}, nil)
	fast := newFixture(t, HubConfig{}, func(c *Config) {
		c.PingInterval = 50 * time.Millisecond
		c.PingTimeout = 200 * time.Millisecond
	})
	ctl := httptest.NewServer(controlHandler(t, f))
	defer ctl.Close()

	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "conformance.test.js")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ATENDE_URL="+f.ts.URL, "ATENDE_CONTROL_URL="+ctl.URL,
		"ATENDE_FAST_PING_URL="+fast.ts.URL, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test conformance.test.js:\n%s", out)
	if err != nil {
		t.Fatalf("socket.io-client conformance failed: %v", err)
	}
}

// controlHandler lets the Node test publish events and drop sockets.
func controlHandler(t *testing.T, f *fixture) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /publish", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tenant  int64           `json:"tenant"`
			Rooms   []string        `json:"rooms"`
			Name    string          `json:"name"`
			Payload json.RawMessage `json:"payload"`
			Queue   int64           `json:"queue"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ev := Event{Tenant: req.Tenant, Name: req.Name, Payload: req.Payload}
		for _, s := range req.Rooms {
			room, err := parseRoom(s)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			ev.Rooms = append(ev.Rooms, room)
		}
		if q := req.Queue; q != 0 {
			ev.Filter = FilterFunc(func(p Principal) bool { return p.InQueue(q) })
		}
		seq, err := f.hub.Publish(ev)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"seq":%d}`, seq)
	})
	mux.HandleFunc("POST /drop", func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Tenant, User int64 }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		// A transport failure, not a server DISCONNECT: the client reconnects.
		t := f.hub.tenant(req.Tenant)
		t.mu.Lock()
		for c := range t.rooms[UserRoom(req.User)] {
			c.closeWith(CloseGoingAway, "dropped by the test", false)
		}
		t.mu.Unlock()
	})
	return mux
}

// parseRoom reads "chatBox:42", "tickets:open", "user:1", "company", "notification".
func parseRoom(s string) (Room, error) {
	kind, id, _ := strings.Cut(s, ":")
	var r Room
	switch kind {
	case "company":
		r = CompanyRoom()
	case "notification":
		r = NotificationRoom()
	case "tickets":
		r = TicketsRoom(id)
	case "chatBox", "user":
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return r, fmt.Errorf("room %q: %w", s, err)
		}
		r = ChatBoxRoom(n)
		if kind == "user" {
			r = UserRoom(n)
		}
	}
	if !r.Valid() {
		return r, fmt.Errorf("room %q is not valid", s)
	}
	return r, nil
}
