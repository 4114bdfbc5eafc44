package actors

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// A campaign send goes through the connection actor to the channel once per message
// id: the same send again (a campaign job retried after a lost answer) answers the
// same provider id without a second send; a refusal keeps its code; buttons go as
// text with links on a channel without interactive messages.
func TestCampaignSendOncePerMessageID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Vendas", Channel: engine.ChannelSocket, IsDefault: true})
		ctx := context.Background()
		c := Connections{Node: r.node}
		m := engine.CampaignOutbound{MessageID: 880001, To: "webchat:bia", Body: "Promoção",
			Buttons: engine.CampaignButtons{URL1Caption: "Loja", URL1: "https://loja.example"}}
		first, err := c.SendCampaign(ctx, conn.ID, m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := c.SendCampaign(ctx, conn.ID, m)
		if err != nil || again != first || first == "" {
			t.Fatalf("again: %q %v, first %q", again, err, first)
		}
		sent := ch.sentTo("webchat:bia")
		if len(sent) != 1 || !strings.Contains(sent[0].Body, "Loja: https://loja.example") || sent[0].MessageID != 880001 {
			t.Fatalf("sent %+v", sent)
		}
		ch.mu.Lock()
		ch.refuse = 1
		ch.mu.Unlock()
		if _, err := c.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{MessageID: 880002, To: "webchat:caio", Body: "x"}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("refused: %v", err)
		}
		ch.mu.Lock()
		ch.failN = 1
		ch.mu.Unlock()
		if _, err := c.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{MessageID: 880003, To: "webchat:caio", Body: "x"}); engine.CodeOf(err) != engine.ErrSendingWappMsg {
			t.Fatalf("temporary: %v", err)
		}
		if _, err := c.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{MessageID: 880003, To: "webchat:caio", Body: "x"}); err != nil {
			t.Fatalf("retried after a temporary failure: %v", err)
		}
		if _, err := c.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{To: "webchat:caio", Body: "x"}); engine.CodeOf(err) != engine.ErrValidation {
			t.Fatalf("no message id: %v", err)
		}
	})
}

// On a channel that cannot de-duplicate a re-send, a campaign message whose attempt
// was recorded before a crash is refused (ERR_CHANNEL_OUTCOME_UNKNOWN) rather than
// sent a second time.
func TestCampaignSendAttemptedBeforeCrashIsNotResent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		attempts := readmodel.NewSendAttempts(d)
		r := newLiveRig(t, d, func(c *ConnectionConfig) { c.Attempts = attempts })
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Vendas", Channel: engine.ChannelSocket, IsDefault: true})
		ctx := context.Background()
		if err := attempts.RecordAttempt(ctx, conn.ID, 990001, time.Now()); err != nil {
			t.Fatal(err)
		}
		c := Connections{Node: r.node}
		if _, err := c.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{MessageID: 990001, To: "webchat:bia", Body: "x"}); engine.CodeOf(err) != engine.ErrChannelOutcomeUnknown {
			t.Fatalf("attempted before: %v", err)
		}
		if _, err := c.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{MessageID: 990002, To: "webchat:bia", Body: "y"}); err != nil {
			t.Fatal(err)
		}
		if got, _ := attempts.Attempted(ctx, conn.ID, []engine.ID{990002}); !got[990002] {
			t.Fatal("the send's attempt was not recorded before it")
		}
		if sent := ch.sentTo("webchat:bia"); len(sent) != 1 || sent[0].MessageID != 990002 {
			t.Fatalf("sent %+v", sent)
		}
	})
}

// A campaign message to a customer takes the customer's lane: it waits for the
// conversation's message in flight to that customer, and goes after it.
func TestCampaignSendWaitsForTheConversationsMessageInFlight(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		r := newLiveRig(t, d)
		conn, ch := r.startConnection(t, engine.ConnectionInput{Name: "Vendas", Channel: engine.ChannelSocket, IsDefault: true})
		ctx := context.Background()
		num := "webchat:dora"
		if err := ch.sink.Inbound(ctx, inbound(num, "d1", "Oi")); err != nil {
			t.Fatal(err)
		}
		var tid engine.ID
		for id := range r.ticketStates(t) {
			tid = id
		}
		entered, release := make(chan struct{}), make(chan struct{})
		letGo := sync.OnceFunc(func() { close(release) })
		t.Cleanup(letGo) // a failing test must not leave the send blocked
		ch.mu.Lock()
		ch.onSend = func(_ context.Context, m engine.OutboundMessage) error {
			if m.MessageID == 770001 {
				close(entered)
				<-release
			}
			return nil
		}
		ch.mu.Unlock()
		r.do(t, tid, engine.Accept{UserID: 1})
		r.do(t, tid, engine.SendMessage{MessageID: 770001, SenderID: 1, Body: "Resposta"})
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the reply never reached the channel")
		}
		campaign := make(chan error, 1)
		go func() {
			_, err := Connections{Node: r.node}.SendCampaign(ctx, conn.ID, engine.CampaignOutbound{MessageID: 880101, To: num, Body: "Promoção"})
			campaign <- err
		}()
		// While the reply holds the lane, the campaign's message is not sent. Its
		// call is answered only after it is; a wrong order shows below either way.
		select {
		case err := <-campaign:
			t.Fatalf("campaign answered while the reply was in flight: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		letGo()
		select {
		case err := <-campaign:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the campaign's send never ended")
		}
		var order []engine.ID
		for _, m := range ch.sentTo(num) {
			order = append(order, m.MessageID)
		}
		if len(order) != 2 || order[0] != 770001 || order[1] != 880101 {
			t.Fatalf("sent to %s: %v, want the reply then the campaign's message", num, order)
		}
	})
}
