package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/telegram/botfake"
)

// A WABA number registered through the API receives a web-hook on the real node: the
// message lands in a ticket once however many times Meta delivers it, and an unsigned
// delivery is refused without a trace.
func TestWABAWebhookToTicket(t *testing.T) {
	n := newWABANode(t, "EAAG-e2e", "106540352242922", "1022", "+55 65 3333-0000", nil)
	if n.conn.Channel != engine.ChannelWABA || n.conn.ID == 0 {
		t.Fatalf("connection %+v", n.conn)
	}
	const customer = "5565988887777"
	if s := n.hook(t, n.text(customer, "Maria WABA", "wamid.FORGED", "forjada"), false); s != http.StatusUnauthorized {
		t.Fatalf("unsigned web-hook: %d", s)
	}
	for i := 0; i < 3; i++ { // Meta re-delivers
		if s := n.hook(t, n.text(customer, "Maria WABA", "wamid.E2E1", "Olá pelo WABA"), true); s != 200 {
			t.Fatalf("delivery %d: %d", i, s)
		}
	}
	if s := n.hook(t, n.text(customer, "Maria WABA", "wamid.E2E2", "segunda"), true); s != 200 {
		t.Fatalf("second message: %d", s)
	}
	msgs := n.waitMessage(t, customer, "wamid.E2E2")
	count := map[string]int{}
	for _, m := range msgs {
		count[m.ProviderID]++
	}
	if count["wamid.E2E1"] != 1 || count["wamid.FORGED"] != 0 {
		t.Fatalf("stored %v", count)
	}

	// Template confirmation on that ticket, through the real ticket lookup.
	n.template(map[string]any{"id": "777", "name": "confirmacao", "status": "APPROVED", "language": "pt_BR", "category": "UTILITY",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}, confirmado para {{2}}."}}})
	var list struct {
		Templates []map[string]any `json:"templates"`
	}
	n.carla.call("GET", "/wabatemplates", nil, 200, &list)
	if len(list.Templates) != 1 || list.Templates[0]["templateName"] != "confirmacao" {
		t.Fatalf("templates %+v", list)
	}
	n.carla.call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "", "lticketId": msgs[0].TicketID}, 400, nil)
	n.carla.call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "777", "contactName": "Maria",
		"patientName": "Pedro", "lticketId": msgs[0].TicketID}, 200, nil)
	sent := n.g.Requests("POST /" + n.phoneID + "/messages")
	last := sent[len(sent)-1].JSON()
	if last["type"] != "template" || last["to"] != customer {
		t.Fatalf("template send %v", last)
	}
}

// A Telegram bot created through the API is polled by its connection's channel: a
// customer's message becomes a ticket, and the attendant's reply goes out with
// sendMessage to the same chat.
func TestTelegramPollingToTicketAndReply(t *testing.T) {
	const token = "7000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	bot := botfake.New(token)
	t.Cleanup(bot.Close)
	cfg := testConfig(t, dbtest.URL(t, db.SQLite))
	cfg.TelegramAPIURL, cfg.TelegramMode = bot.URL(), "polling"
	ta := startApp(t, cfg)
	carla := login(t, ta.base, "carla@atende.local", "atende123")
	var conn engine.Connection
	carla.call("POST", "/telegram", map[string]string{"name": "Bot da loja", "token": token}, 200, &conn)
	bot.Push(`{"message":{"message_id":11,"from":{"id":424242,"is_bot":false,"first_name":"Maria"},
		"chat":{"id":424242,"first_name":"Maria","type":"private"},"date":1700000000,"text":"Oi pelo Telegram"}}`)
	ctx := context.Background()
	var tid engine.ID
	waitFor(t, "the Telegram message in a ticket", func() bool {
		contact, err := ta.stores.contacts.FindByNumber(ctx, 1, "tg:424242")
		if err != nil {
			return false
		}
		tid, _ = ta.guard.Current(ctx, conn.ID, contact.ID)
		if tid == 0 {
			return false
		}
		msgs, _ := ta.queries.AllMessages(ctx, 1, tid)
		for _, m := range msgs {
			if m.ProviderID == "424242:11" && m.Body == "Oi pelo Telegram" {
				return true
			}
		}
		return false
	})
	carla.call("PUT", fmt.Sprintf("/tickets/%d", tid), map[string]any{"status": "open", "userId": carla.user}, 200, nil)
	carla.call("POST", fmt.Sprintf("/messages/%d", tid), map[string]any{"body": "Olá, Maria!"}, 201, nil)
	waitFor(t, "the reply sent to the chat", func() bool {
		for _, c := range bot.Calls("sendMessage") {
			if c.Params["text"] == "Olá, Maria!" && c.Params["chat_id"] == float64(424242) {
				return true
			}
		}
		return false
	})
}
