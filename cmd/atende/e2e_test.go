package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/node"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
	"atende/persistence/store"
)

// testApp is a whole node serving on a loopback port, as `atende serve` runs it,
// with the stores and read-model queries a test reads it through.
type testApp struct {
	app     *node.Node
	base    string
	cancel  context.CancelFunc
	done    chan error
	stores  testStores
	guard   *connection.Guard
	queries *readmodel.Queries
}

// testStores are the reference-data stores a test reads and writes beside the
// node, on its database.
type testStores struct {
	companies   *store.Companies
	users       *store.Users
	contacts    *store.Contacts
	queues      *store.Queues
	connections *connection.Store
}

func testConfig(t testing.TB, databaseURL string) node.Config {
	dir := t.TempDir()
	return node.Config{Env: "development", DatabaseURL: databaseURL, DataDir: dir, MediaDir: filepath.Join(dir, "media"),
		JWTSecret: strings.Repeat("e2e-secret-", 4), SeedDemo: true, AccessTTL: 15 * time.Minute,
		RefreshTTL: 24 * time.Hour, ShutdownTimeout: 20 * time.Second, LogLevel: "error", Version: version}
}

func startApp(t testing.TB, cfg node.Config) *testApp {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := node.New(ctx, cfg, zerolog.Nop())
	if err != nil {
		cancel()
		t.Fatalf("start app: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	d := a.DB()
	queries, err := readmodel.NewQueries(d, readmodel.Config{})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ta := &testApp{app: a, base: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1),
		stores: testStores{companies: store.NewCompanies(d, nil), users: store.NewUsers(d, nil),
			contacts: store.NewContacts(d, nil), queues: store.NewQueues(d, nil), connections: connection.New(d, nil)},
		guard: connection.NewGuard(d), queries: queries}
	go func() { ta.done <- a.ServeOn(ctx, ln) }()
	t.Cleanup(ta.stop)
	return ta
}

func (ta *testApp) stop() {
	if ta.cancel == nil {
		return
	}
	ta.cancel()
	<-ta.done
	ta.cancel = nil
}

func (ta *testApp) webChatID(t testing.TB) engine.ID {
	t.Helper()
	conns, err := ta.stores.connections.List(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		if c.Channel == engine.ChannelSocket {
			return c.ID
		}
	}
	t.Fatal("demo tenant has no web chat connection")
	return 0
}

func ticketOf(ev sioEvent) map[string]any {
	t, _ := ev.Body["ticket"].(map[string]any)
	return t
}

func idOf(v map[string]any) int64 {
	f, _ := v["id"].(float64)
	return int64(f)
}

// The path of issue "live engine": a customer on the web chat writes, a pending ticket
// appears on the sockets of those who may see it, an attendant accepts, replies (the
// customer receives it), resolves, and the history lists each step.
func TestWebChatToAttendantEndToEnd(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			ana := login(t, ta.base, "ana@atende.local", "atende123")     // queues Atendimento, Financeiro
			bruno := login(t, ta.base, "bruno@atende.local", "atende123") // queue Suporte
			carla := login(t, ta.base, "carla@atende.local", "atende123") // supervisor
			anaSock := dialSocket(t, ta.base, ana.token, 0)
			brunoSock := dialSocket(t, ta.base, bruno.token, 0)
			carlaSock := dialSocket(t, ta.base, carla.token, 0)
			for _, s := range []*sioClient{anaSock, brunoSock, carlaSock} {
				for _, status := range []string{"pending", "open", "closed"} {
					if ack := s.emit("joinTickets", status); !strings.Contains(ack, `"ok":true`) {
						t.Fatalf("joinTickets %s: %s", status, ack)
					}
				}
			}

			cust := dialCustomer(t, ta.base, ta.webChatID(t), "")
			cust.send(map[string]string{"type": "hello", "name": "Maria Cliente"})
			cust.say("m1", "Olá, preciso de ajuda com meu pedido")

			isPendingTicket := func(ev sioEvent) bool {
				tk := ticketOf(ev)
				return tk != nil && tk["status"] == engine.StatusPending
			}
			ev := anaSock.waitEvent("pending ticket on ana's socket", isPendingTicket)
			ticketID := idOf(ticketOf(ev))
			carlaSock.waitEvent("pending ticket on the supervisor's socket", isPendingTicket)
			// The greeting reached the customer.
			cust.wait("greeting", func(f map[string]any) bool { return f["type"] == "message" && f["fromMe"] == true })

			ana.call("PUT", fmt.Sprintf("/tickets/%d", ticketID), map[string]any{"status": "open", "userId": ana.user}, 200, nil)
			isOpen := func(ev sioEvent) bool {
				tk := ticketOf(ev)
				return ev.Name == "ticket" && tk != nil && idOf(tk) == ticketID && tk["status"] == engine.StatusOpen
			}
			anaSock.waitEvent("accept seen by ana", isOpen)
			carlaSock.waitEvent("accept seen by the supervisor", isOpen)

			if ack := anaSock.emit("joinChatBox", ticketID); !strings.Contains(ack, `"ok":true`) {
				t.Fatalf("joinChatBox: %s", ack)
			}
			ana.call("POST", fmt.Sprintf("/messages/%d", ticketID), map[string]any{"body": "Bom dia, Maria! Como posso ajudar?"}, 201, nil)
			cust.wait("the attendant's reply", func(f map[string]any) bool {
				return f["type"] == "message" && f["body"] == "Bom dia, Maria! Como posso ajudar?"
			})
			anaSock.waitEvent("reply in the chat box", func(ev sioEvent) bool {
				m, _ := ev.Body["message"].(map[string]any)
				return ev.Name == "appMessage" && m != nil && m["body"] == "Bom dia, Maria! Como posso ajudar?"
			})

			ana.call("PUT", fmt.Sprintf("/tickets/%d", ticketID), map[string]any{"status": "closed"}, 200, nil)
			cust.wait("farewell", func(f map[string]any) bool {
				b, _ := f["body"].(string)
				return f["type"] == "message" && strings.Contains(b, "Obrigado pelo contato")
			})
			anaSock.waitEvent("resolve seen", func(ev sioEvent) bool {
				tk := ticketOf(ev)
				return tk != nil && idOf(tk) == ticketID && tk["status"] == engine.StatusClosed
			})

			var history []engine.HistoryEntry
			ana.call("POST", fmt.Sprintf("/tickets/%d", ticketID), nil, 200, &history)
			var actions []string
			for _, h := range history {
				actions = append(actions, h.Action)
			}
			if got := strings.Join(actions, ","); got != "create,accept,resolve" {
				t.Fatalf("history actions %q, want create,accept,resolve", got)
			}
			if history[1].NewUserName != "Ana Atendente" {
				t.Fatalf("accept history %+v", history[1])
			}

			// Bruno's queue is Suporte: the Atendimento ticket never reached his lists
			// while it was pending or open.
			for _, ev := range brunoSock.received() {
				if tk := ticketOf(ev); tk != nil && idOf(tk) == ticketID && tk["status"] != engine.StatusClosed {
					t.Fatalf("bruno saw %s %v", ev.Name, tk["status"])
				}
			}

			// Every event carries a growing sequence number: the journal position. A
			// ticket's move also sent whaticket's delete to the room it left, before
			// the numbered update: that lead frame carries no number.
			var last float64
			moves := 0
			for _, ev := range anaSock.received() {
				if ev.Name == "ticket" && ev.Body["action"] == "delete" && ev.Body["moved"] == true {
					if _, numbered := ev.Body["seq"]; numbered {
						t.Fatalf("moved delete numbered: %v", ev.Body)
					}
					moves++
					continue
				}
				seq, _ := ev.Body["seq"].(float64)
				if seq <= last {
					t.Fatalf("seq %v after %v", seq, last)
				}
				last = seq
			}
			if moves != 2 { // accepted (left pending), resolved (left open)
				t.Fatalf("%d moved deletes, want 2", moves)
			}
		})
	}
}

var _ = db.SQLite
