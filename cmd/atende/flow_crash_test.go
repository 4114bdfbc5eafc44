package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// A Bizflow run whose node is killed with SIGKILL while an HTTP node waits for its
// endpoint resumes after a restart where its journal says: the endpoint is called
// again with the same idempotency key, and every message of the flow reaches the
// customer's ticket exactly once (docs/flows.md).
func TestFlowSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			var mu sync.Mutex
			var keys []string
			hold := make(chan struct{}) // closed: the endpoint answers
			called := make(chan struct{}, 8)
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				keys = append(keys, r.Header.Get("Idempotency-Key"))
				mu.Unlock()
				called <- struct{}{}
				select {
				case <-hold:
					w.WriteHeader(http.StatusOK)
				case <-r.Context().Done():
				}
			}))
			defer endpoint.Close()
			defer func() {
				select {
				case <-hold:
				default:
					close(hold)
				}
			}()

			dbURL := dbtest.URL(t, dialect)
			env := []string{"DATABASE_URL=" + dbURL, "DATA_DIR=" + t.TempDir(), "JWT_SECRET=" + strings.Repeat("flows-", 8),
				"SEED_DEMO=1", "LOG_LEVEL=warn"}
			addr := freeAddr(t)
			p := startProcess(t, env, addr)
			var connID engine.ID
			{
				d, err := db.Open(context.Background(), dbURL)
				if err != nil {
					t.Fatal(err)
				}
				if err := d.SQL.QueryRow(`SELECT id FROM connections WHERE channel = 'socket'`).Scan(&connID); err != nil {
					t.Fatal(err)
				}
				d.Close()
			}
			admin := login(t, p.base, "admin@atende.local", "admin123")
			doc := fmt.Sprintf(`{"nodes":[
				{"id":"s","type":"start"},
				{"id":"a","type":"message","data":{"text":"flow-A"}},
				{"id":"w","type":"wait","data":{"timeoutSeconds":3600}},
				{"id":"b","type":"message","data":{"text":"flow-B"}},
				{"id":"h","type":"http","data":{"method":"POST","url":%q,"timeoutSeconds":30}},
				{"id":"c","type":"end","data":{"text":"flow-C"}},
				{"id":"x","type":"end","data":{"text":"flow-X"}}],
				"edges":[{"source":"s","target":"a"},{"source":"a","target":"w"},
				{"source":"w","sourceHandle":"reply","target":"b"},{"source":"w","sourceHandle":"timeout","target":"x"},
				{"source":"b","target":"h"},{"source":"h","sourceHandle":"ok","target":"c"},
				{"source":"h","sourceHandle":"fail","target":"x"},{"source":"h","sourceHandle":"error","target":"x"}]}`, endpoint.URL)
			admin.call("POST", "/flows", map[string]any{"name": "Crash", "isActive": true, "dataJson": json.RawMessage(doc),
				"connectionIds": []engine.ID{connID}}, http.StatusCreated, nil)

			c, err := rawCustomer(p.base, connID, "flow-crash-"+string(dialect))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.say("m1", "oi"); err != nil {
				t.Fatal(err)
			}
			// The flow sent A and waits; the reply takes it through B into the HTTP node.
			waitFor(t, "flow-A", func() bool { return sentBodies(t, dbURL)["flow-A"] == 1 })
			if err := c.say("m2", "sim"); err != nil {
				t.Fatal(err)
			}
			<-called
			waitFor(t, "flow-B", func() bool { return sentBodies(t, dbURL)["flow-B"] == 1 })
			c.Close()
			p.kill9(t)

			// The restarted node's sweep wakes the run: the HTTP node is called again.
			close(hold)
			p = startProcess(t, env, addr)
			// The sweep wakes runs quiet for 10 s, every 30 s: within about 45 s.
			deadline := time.Now().Add(120 * time.Second)
			for sentBodies(t, dbURL)["flow-C"] == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("no flow-C within 120 s of the restart: %v", sentBodies(t, dbURL))
				}
				time.Sleep(200 * time.Millisecond)
			}
			got := sentBodies(t, dbURL)
			for _, body := range []string{"flow-A", "flow-B", "flow-C"} {
				if got[body] != 1 {
					t.Errorf("%s recorded %d times", body, got[body])
				}
			}
			if got["flow-X"] != 0 {
				t.Errorf("the error branch ran: %v", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
				t.Errorf("idempotency keys of the calls: %q", keys)
			}
		})
	}
}

// sentBodies counts our messages on every ticket of the journal at dbURL by body.
func sentBodies(t testing.TB, dbURL string) map[string]int {
	out := map[string]int{}
	replayTickets(t, dbURL, func(_ int64, ev engine.TicketEvent) {
		if m, ok := ev.(engine.TicketMessageSent); ok {
			out[m.Body]++
		}
	})
	return out
}
