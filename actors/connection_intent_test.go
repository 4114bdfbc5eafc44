package actors

import (
	"context"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// keywordRouter is an engine.IntentRouter on engine.IntentByKeywords (the model's part
// is tested in transport/ai against the fake provider); it records what it was asked.
type keywordRouter struct {
	mu      sync.Mutex
	intents []engine.AIIntent
	asked   []string
}

func (k *keywordRouter) IntentQueue(_ context.Context, _ engine.ID, text string) (engine.ID, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked = append(k.asked, text)
	in, ok := engine.IntentByKeywords(k.intents, text)
	return in.QueueID, ok, nil
}

func TestConnectionRoutesByIntent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		router := &keywordRouter{}
		r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Intents = router })
		queues := store.NewQueues(d, nil)
		vendas, err := queues.Create(ctx, 1, engine.QueueInput{Name: "Vendas", Color: "#ff0000", GreetingMessage: "v"})
		if err != nil {
			t.Fatal(err)
		}
		suporte, err := queues.Create(ctx, 1, engine.QueueInput{Name: "Suporte", Color: "#00ff00", GreetingMessage: "s"})
		if err != nil {
			t.Fatal(err)
		}
		router.mu.Lock()
		router.intents = []engine.AIIntent{{ID: 1, Name: "Suporte", Examples: []string{"internet caiu"}, QueueID: suporte.ID}}
		router.mu.Unlock()
		_, ch := r.createConnection(t, engine.ConnectionInput{Name: "Central", Channel: engine.ChannelSocket,
			GreetingMessage: "Bem-vindo!", QueueIDs: []engine.ID{vendas.ID, suporte.ID}}, "", "")

		// A first message that matches: the ticket goes to the intent's queue and the
		// greeting comes without the menu.
		if err := ch.sink.Inbound(ctx, inbound("webchat:intent", "i1", "minha internet caiu")); err != nil {
			t.Fatal(err)
		}
		tid := r.onlyTicket(t).ID
		eventually(t, "routed to Suporte", func() bool { return r.ticketStates(t)[tid].QueueID == suporte.ID })
		eventually(t, "greeting", func() bool { return len(ch.sentTo("webchat:intent")) == 1 })
		if g := ch.sentTo("webchat:intent")[0].Body; g != "Bem-vindo!" {
			t.Fatalf("greeting %q, want it without the menu", g)
		}

		// No intent fits: the menu, as without a router.
		if err := ch.sink.Inbound(ctx, inbound("webchat:nointent", "n1", "bom dia")); err != nil {
			t.Fatal(err)
		}
		eventually(t, "greeting with menu", func() bool { return len(ch.sentTo("webchat:nointent")) == 1 })
		if g := ch.sentTo("webchat:nointent")[0].Body; !strings.HasSuffix(g, "1 - Vendas\n2 - Suporte") {
			t.Fatalf("greeting %q, want the menu", g)
		}
		router.mu.Lock()
		asked := len(router.asked)
		router.mu.Unlock()
		if asked != 2 {
			t.Fatalf("router asked %d times, want once per new ticket", asked)
		}
	})
}
