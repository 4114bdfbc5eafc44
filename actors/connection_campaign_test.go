package actors

import (
	"context"
	"strings"
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
