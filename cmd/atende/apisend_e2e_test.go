package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db/dbtest"
)

// A message sent through the messaging API with an administrator's token reaches the
// web chat customer and the attendants' screens, once even when the client retries
// with the same Idempotency-Key; a revoked token is refused on the next call — on a
// whole node: token routes, the API route, the ticket actor and the web chat channel.
func TestMessagingAPIReachesWebChatCustomer(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			admin := login(t, ta.base, "admin@atende.local", "admin123")
			sock := dialSocket(t, ta.base, admin.token, 0)
			if ack := sock.emit("joinTickets", "pending"); !strings.Contains(ack, `"ok":true`) {
				t.Fatalf("joinTickets: %s", ack)
			}
			cust := dialCustomer(t, ta.base, ta.webChatID(t), "")
			cust.send(map[string]string{"type": "hello", "name": "Maria Cliente"})
			cust.say("m1", "Meu pedido chegou?")
			ev := sock.waitEvent("pending ticket", func(ev sioEvent) bool {
				tk := ticketOf(ev)
				return tk != nil && tk["status"] == engine.StatusPending
			})
			tk := ticketOf(ev)
			ticketID := idOf(tk)
			contact, _ := tk["contact"].(map[string]any)
			number, _ := contact["number"].(string)
			if number == "" {
				t.Fatalf("ticket without a contact number: %v", tk)
			}

			var created struct {
				ID    int64  `json:"id"`
				Token string `json:"token"`
			}
			admin.call("POST", "/apiTokens", map[string]any{"name": "ERP"}, http.StatusCreated, &created)

			send := func(secret string, want int) map[string]any {
				t.Helper()
				body, _ := json.Marshal(map[string]any{"number": number, "body": "Seu pedido saiu para entrega",
					"whatsappId": ta.webChatID(t)})
				req, _ := http.NewRequest("POST", ta.base+"/api/messages/send", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+secret)
				req.Header.Set("Idempotency-Key", "pedido-7")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				raw, _ := io.ReadAll(res.Body)
				if res.StatusCode != want {
					t.Fatalf("send: status %d, want %d: %s", res.StatusCode, want, raw)
				}
				var out map[string]any
				_ = json.Unmarshal(raw, &out)
				return out
			}
			first := send(created.Token, http.StatusOK)
			if first["ticketId"] != float64(ticketID) {
				t.Fatalf("sent to %v, want the customer's ticket %d", first, ticketID)
			}
			cust.wait("the API's message", func(f map[string]any) bool {
				return f["type"] == "message" && f["body"] == "Seu pedido saiu para entrega"
			})
			sock.waitEvent("the message on the attendants' screens", func(ev sioEvent) bool {
				m, _ := ev.Body["message"].(map[string]any)
				return ev.Name == "appMessage" && m != nil && m["body"] == "Seu pedido saiu para entrega"
			})
			again := send(created.Token, http.StatusOK)
			if again["messageId"] != first["messageId"] {
				t.Fatalf("retry answered %v, first %v", again, first)
			}
			var page struct {
				Messages []engine.Message `json:"messages"`
			}
			admin.call("GET", fmt.Sprintf("/messages/%d", ticketID), nil, http.StatusOK, &page)
			n := 0
			for _, m := range page.Messages {
				if m.Body == "Seu pedido saiu para entrega" {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("the ticket holds the API's message %d times", n)
			}

			admin.call("DELETE", fmt.Sprintf("/apiTokens/%d", created.ID), nil, http.StatusOK, nil)
			send(created.Token, http.StatusForbidden)
		})
	}
}
