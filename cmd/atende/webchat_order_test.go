package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"atende/persistence/db/dbtest"
)

// TestWebChatResendAfterStallKeepsTypedOrder is issue 19's stall on a whole node
// with a real database: a visitor typed 30 messages while offline (numbered 1 to
// 30); back online, its client says where its numbers resume and sends them all,
// shuffled, as fast as the server's rates allow (a burst, then 8 a second),
// resending each refused one when told. The node records them in the order typed,
// none lost, none twice — resends of acknowledged ones included — and never closes
// the socket.
func TestWebChatResendAfterStallKeepsTypedOrder(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			connID := ta.webChatID(t)
			waitFor(t, "the web chat connection to start", func() bool { return ta.app.WebchatStats().Connections > 0 })
			c := dialCustomer(t, ta.base, connID, "")
			number := "webchat:" + c.token[:22]

			const n = 30
			id := func(seq int) string { return fmt.Sprintf("s%02d", seq) }
			body := func(seq int) string { return fmt.Sprintf("typed %02d", seq) }
			send := func(seq int) {
				c.send(map[string]any{"type": "message", "id": id(seq), "seq": seq, "body": body(seq)})
			}
			c.send(map[string]any{"type": "resume", "seq": 1})

			queue := rand.New(rand.NewPCG(19, 6)).Perm(n) // 0-based, shuffled
			for i := range queue {
				queue[i]++
			}
			acked := map[int]bool{}
			retryAt := map[int]time.Time{}
			outOfOrder, overRate, read := 0, 0, 0
			tokens, refilled := 16.0, time.Now() // server: 10 a second, burst 20
			deadline := time.Now().Add(2 * time.Minute)
			for len(acked) < n {
				if time.Now().After(deadline) {
					t.Fatalf("after 2 minutes %d of %d acknowledged", len(acked), n)
				}
				c.mu.Lock()
				frames := slices.Clone(c.frames[read:])
				read = len(c.frames)
				c.mu.Unlock()
				for _, f := range frames {
					s, _ := f["id"].(string)
					var seq int
					if _, err := fmt.Sscanf(s, "s%d", &seq); err != nil || !strings.HasPrefix(s, "s") {
						continue
					}
					switch {
					case f["type"] == "ack":
						acked[seq] = true
					case f["type"] == "error" && (f["code"] == "ERR_OUT_OF_ORDER" || f["code"] == "ERR_TOO_MANY_ATTEMPTS" || f["code"] == "ERR_UNAVAILABLE"):
						// Retried as the widget does; ERR_UNAVAILABLE is a sink slower than
						// its timeout on a loaded machine.
						switch f["code"] {
						case "ERR_OUT_OF_ORDER":
							outOfOrder++
						case "ERR_TOO_MANY_ATTEMPTS":
							overRate++
						}
						after, _ := f["retryAfter"].(float64)
						if f["code"] == "ERR_UNAVAILABLE" {
							after = 3
						}
						retryAt[seq] = time.Now().Add(time.Duration(max(after, 1) * float64(time.Second)))
					default:
						t.Fatalf("answer to %s: %v", s, f)
					}
				}
				var due []int
				for seq, at := range retryAt {
					if time.Now().After(at) {
						due = append(due, seq)
						delete(retryAt, seq)
					}
				}
				slices.Sort(due) // refused ones go again lowest first
				queue = append(queue, due...)
				now := time.Now()
				tokens = min(16, tokens+now.Sub(refilled).Seconds()*8)
				refilled = now
				for tokens >= 1 && len(queue) > 0 {
					seq := queue[0]
					queue = queue[1:]
					if acked[seq] {
						continue
					}
					send(seq)
					tokens--
				}
				time.Sleep(20 * time.Millisecond)
			}
			// A sink slower than its timeout (SQLite on a loaded machine) leaves frames
			// waiting in the socket; handled in a rush once it answers, a few may go
			// over the rate: retried as told, they never add up to a close (the pong
			// below).
			if outOfOrder == 0 {
				t.Fatalf("no message refused out of order: they came shuffled")
			}
			// Acknowledgements that were lost: the client sends three again.
			for _, seq := range []int{1, 15, 30} {
				send(seq)
			}
			// The socket is open and served: no 1008 (nor any) close.
			c.send(map[string]string{"type": "ping"})
			c.wait("a pong", func(f map[string]any) bool { return f["type"] == "pong" })

			var want []string
			for seq := 1; seq <= n; seq++ {
				want = append(want, body(seq))
			}
			recorded := func() []string { return recordedBodies(t, ta, number) }
			waitFor(t, "30 messages recorded", func() bool { return len(recorded()) >= n })
			c.send(map[string]string{"type": "ping"}) // the resends were answered before this pong
			waitFor(t, "acks of the resends and a second pong", func() bool {
				c.mu.Lock()
				defer c.mu.Unlock()
				acks, pongs := 0, 0
				for _, f := range c.frames {
					switch {
					case f["type"] == "pong":
						pongs++
					case f["type"] == "ack" && (f["id"] == id(1) || f["id"] == id(15) || f["id"] == id(30)):
						acks++
					}
				}
				return pongs >= 2 && acks >= 6
			})
			got := recorded()
			if !slices.Equal(got, want) {
				t.Fatalf("recorded in this order (%d):\n%q\nwant the typed order:\n%q", len(got), got, want)
			}
			t.Logf("%s: 30 shuffled messages recorded in typed order; %d refusals out of order, %d over the rate", dialect, outOfOrder, overRate)
		})
	}
}
