package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/journal"
)

// freeAddr is a free TCP port on 127.0.0.1, for a child process to listen on.
func freeAddr(t testing.TB) string {
	t.Helper()
	return freePortOn(t, "127.0.0.1", false)
}

// freePortOn answers ip:port with a TCP port (and with udp, the same UDP port) free
// now, for a child process to bind later. It is chosen below the kernel's ephemeral
// range: a port asked for with ":0" comes from that range, and between the pick and
// the child's bind any outgoing connection on the box (the tests' PostgreSQL and
// HTTP clients, other tests' processes) may be given it ("address already in use").
// Outgoing connections never take a port below the range.
func freePortOn(t testing.TB, ip string, udp bool) string {
	t.Helper()
	const lowest = 10000
	top := ephemeralLow()
	for range 500 {
		addr := net.JoinHostPort(ip, strconv.Itoa(lowest+rand.IntN(top-lowest)))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue // taken: a service of the box, or another test's pick
		}
		ln.Close()
		if udp {
			pc, err := net.ListenPacket("udp", addr)
			if err != nil {
				continue
			}
			pc.Close()
		}
		return addr
	}
	t.Fatalf("no free port on %s below %d", ip, top)
	return ""
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// ip_local_port_range), 32768 where it cannot be read or leaves no room below.
func ephemeralLow() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(raw))
	if len(f) < 1 {
		return 32768
	}
	low, err := strconv.Atoi(f[0])
	if err != nil || low < 12000 {
		return 32768
	}
	return low
}

// process is an atende serve child process.
type process struct {
	cmd     *exec.Cmd
	base    string
	logPath string // the process's stdout and stderr
}

func startProcess(t testing.TB, env []string, addr string) *process {
	t.Helper()
	return startProcessArgs(t, env, addr)
}

// startProcessArgs is startProcess with more flags after "serve" (the test-only
// flags have no environment variable).
func startProcessArgs(t testing.TB, env []string, addr string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(clusterBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), append(env, "HTTP_ADDR="+addr)...)
	logPath := filepath.Join(t.TempDir(), "atende.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchRaces(t, "atende serve", logPath) // runs after the cleanup below
	p := &process{cmd: cmd, base: "http://" + addr, logPath: logPath}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _, _ = p.cmd.Process.Wait() })
	// A bound against a hang, not a speed check: a race-built node on a loaded
	// 2-core machine has taken more than 15 s to be ready.
	pollUntil(t, "atende to serve", 2*time.Minute, func() bool {
		res, err := http.Get(p.base + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	return p
}

func (p *process) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = p.cmd.Process.Wait()
}

// A node killed with SIGKILL in the middle of traffic loses nothing it acknowledged:
// after a restart every acknowledged web chat message is in the journal exactly once,
// and every ticket the read model shows equals the replay of its journal stream.
func TestCrashLosesNoAcknowledgedMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			dbURL := dbtest.URL(t, dialect)
			dir := t.TempDir()
			env := []string{"DATABASE_URL=" + dbURL, "DATA_DIR=" + dir, "JWT_SECRET=" + strings.Repeat("crash-", 8),
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

			const customers = 10
			var mu sync.Mutex
			acked := map[string]bool{} // provider ids the server acknowledged
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for i := range customers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sent := 0
					for {
						select {
						case <-stop:
							return
						default:
						}
						if !sendUntilCut(p.base, connID, i, &sent, &mu, acked, stop) {
							return
						}
					}
				}()
			}
			// Every customer has a ticket (a first message acknowledged) and the traffic
			// runs: the kill lands among messages of known and of new tickets alike.
			waitFor(t, "traffic", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(acked) >= 60 && len(visitorsOf(acked)) == customers
			})
			p.kill9(t)
			close(stop)
			wg.Wait()
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			t.Logf("%d messages acknowledged before the kill", n)

			p = startProcess(t, env, addr)
			admin := login(t, p.base, "admin@atende.local", "admin123")

			seen := map[string]int{}
			states := replayTickets(t, dbURL, func(_ int64, ev engine.TicketEvent) {
				if m, ok := ev.(engine.TicketMessageReceived); ok {
					seen[m.ProviderID]++
				}
			})
			mu.Lock()
			for pid := range acked {
				if seen[pid] != 1 {
					t.Errorf("acknowledged message %s stored %d times", pid, seen[pid])
				}
			}
			mu.Unlock()
			for pid, c := range seen {
				if c != 1 {
					t.Errorf("message %s stored %d times", pid, c)
				}
			}
			if len(states) != customers {
				t.Errorf("%d tickets for %d customers", len(states), customers)
			}
			for stream, st := range states {
				var got engine.Ticket
				waitFor(t, "read model of "+stream, func() bool {
					admin.call("GET", fmt.Sprintf("/tickets/%d", st.ID), nil, http.StatusOK, &got)
					return got.UnreadMessages == st.UnreadMessages
				})
				if got.Status != st.Status || got.QueueID != st.QueueID || got.UserID != st.UserID {
					t.Errorf("ticket %d: read model %s/%d/%d, journal replay %s/%d/%d", st.ID,
						got.Status, got.QueueID, got.UserID, st.Status, st.QueueID, st.UserID)
				}
			}
		})
	}
}

// visitorsOf is the set of visitors with an acknowledged message, from provider ids
// "wc:<visitor>:<client id>".
func visitorsOf(acked map[string]bool) map[string]bool {
	out := map[string]bool{}
	for pid := range acked {
		if v, _, ok := strings.Cut(strings.TrimPrefix(pid, "wc:"), ":"); ok {
			out[v] = true
		}
	}
	return out
}

// sendUntilCut connects one customer and sends messages until the connection breaks;
// it records each acknowledged provider id. false means stop.
func sendUntilCut(base string, connID engine.ID, who int, sent *int, mu *sync.Mutex, acked map[string]bool, stop chan struct{}) bool {
	c, err := rawCustomer(base, connID, fmt.Sprintf("crash-%d", who))
	if err != nil {
		select {
		case <-stop:
			return false
		case <-time.After(50 * time.Millisecond):
			return true
		}
	}
	defer c.Close()
	for {
		*sent++
		id := fmt.Sprintf("c%d", *sent)
		if err := c.say(id, fmt.Sprintf("mensagem %d", *sent)); err != nil {
			return true
		}
		mu.Lock()
		acked["wc:"+c.visitor+":"+id] = true
		mu.Unlock()
		select {
		case <-stop:
			return false
		default:
		}
	}
}

// plainCustomer is a web chat client that reports failures instead of failing the
// test: the server may vanish under it.
type plainCustomer struct {
	conn net.Conn
	rw   interface {
		Read([]byte) (int, error)
		Write([]byte) (int, error)
	}
	visitor string
}

// visitorTokens keeps each customer's token across reconnects, as the widget does.
var visitorTokens sync.Map

func rawCustomer(base string, connID engine.ID, who string) (*plainCustomer, error) {
	u := fmt.Sprintf("%s/webchat/ws?c=%d", strings.Replace(base, "http://", "ws://", 1), connID)
	if tok, ok := visitorTokens.Load(who); ok {
		u += "&v=" + tok.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, br, _, err := ws.Dial(ctx, u)
	if err != nil {
		return nil, err
	}
	c := &plainCustomer{conn: conn, rw: readWriter(conn, br)}
	f, err := c.next()
	if err != nil || f["type"] != "welcome" {
		conn.Close()
		return nil, fmt.Errorf("no welcome: %v %v", f, err)
	}
	tok, _ := f["visitor"].(string)
	visitorTokens.Store(who, tok)
	c.visitor, _, _ = strings.Cut(tok, ".")
	return c, nil
}

func (c *plainCustomer) next() (map[string]any, error) {
	// A bound against a hang, not a speed check: on a loaded 2-core machine a SQLite
	// node has taken more than 5 s to acknowledge while a flow and River wrote too.
	_ = c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := wsutil.ReadServerText(c.rw)
	if err != nil {
		return nil, err
	}
	var f map[string]any
	return f, json.Unmarshal(b, &f)
}

// say sends one message and waits for its ack.
func (c *plainCustomer) say(id, body string) error {
	b, _ := json.Marshal(map[string]string{"type": "message", "id": id, "body": body})
	if err := wsutil.WriteClientText(c.conn, b); err != nil {
		return err
	}
	for {
		f, err := c.next()
		if err != nil {
			return err
		}
		switch f["type"] {
		case "ack":
			if f["id"] == id {
				return nil
			}
		case "error":
			return fmt.Errorf("refused: %v", f)
		}
	}
}

func (c *plainCustomer) Close() error { return c.conn.Close() }

// replayTickets folds every ticket stream of the journal at dbURL into its state, in
// journal order, calling visit with each ticket event and its position.
func replayTickets(t testing.TB, dbURL string, visit func(pos int64, ev engine.TicketEvent)) map[string]engine.TicketState {
	t.Helper()
	d, err := db.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	j, err := journal.New(d, journal.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	states := map[string]engine.TicketState{}
	for after := int64(0); ; {
		recs, err := j.ReadAll(context.Background(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			return states
		}
		for _, rec := range recs {
			after = rec.Position
			if !strings.HasPrefix(rec.StreamID, "ticket/") {
				continue
			}
			ev, err := engine.DecodeTicketEvent(rec.Type, rec.Data)
			if err != nil {
				t.Fatal(err)
			}
			states[rec.StreamID] = engine.EvolveTicket(states[rec.StreamID], ev)
			visit(rec.Position, ev)
		}
	}
}
