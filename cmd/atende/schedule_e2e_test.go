package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db/dbtest"
)

// A message scheduled from a ticket reaches the web chat customer at its time, with
// its variables rendered, and turns to sent on the attendants' screens — on a whole
// node: HTTP route, schedule row and River job, the node's River client, the ticket
// actor and the web chat channel.
func TestScheduledMessageReachesWebChatCustomer(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			ana := login(t, ta.base, "ana@atende.local", "atende123")
			sock := dialSocket(t, ta.base, ana.token, 0)
			if ack := sock.emit("joinTickets", "pending"); !strings.Contains(ack, `"ok":true`) {
				t.Fatalf("joinTickets: %s", ack)
			}
			cust := dialCustomer(t, ta.base, ta.webChatID(t), "")
			cust.send(map[string]string{"type": "hello", "name": "Maria Cliente"})
			cust.say("m1", "Pode me lembrar amanhã?")
			ev := sock.waitEvent("pending ticket", func(ev sioEvent) bool {
				tk := ticketOf(ev)
				return tk != nil && tk["status"] == engine.StatusPending
			})
			ticketID := idOf(ticketOf(ev))

			var sc engine.Schedule
			ana.call("POST", "/scheduledMessages", map[string]any{"ticketId": ticketID, "contactId": nil,
				"message": "Lembrete para {{firstName}}: seu pedido", "imagePath": nil,
				"sendAt": time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)}, 201, &sc)
			if sc.Status != engine.SchedulePending || sc.Contact == nil || sc.Contact.Name != "Maria Cliente" {
				t.Fatalf("created %+v", sc)
			}
			cust.wait("the scheduled message", func(f map[string]any) bool {
				return f["type"] == "message" && f["body"] == "Lembrete para Maria: seu pedido"
			})
			sock.waitEvent("the schedule turned sent", func(ev sioEvent) bool {
				m, _ := ev.Body["scheduledMessage"].(map[string]any)
				return ev.Name == "scheduledMessage" && m != nil && idOf(m) == sc.ID && m["status"] == engine.ScheduleSent
			})
			var got engine.Schedule
			ana.call("GET", fmt.Sprintf("/scheduledMessages/%d", sc.ID), nil, 200, &got)
			if got.Status != engine.ScheduleSent || got.SentTicketID != ticketID {
				t.Fatalf("after firing %+v", got)
			}
			// Sent once: the customer got exactly one copy.
			n := 0
			cust.mu.Lock()
			frames := append([]map[string]any(nil), cust.frames...)
			cust.mu.Unlock()
			for _, f := range frames {
				if f["type"] == "message" && f["body"] == "Lembrete para Maria: seu pedido" {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("customer got the scheduled message %d times", n)
			}
			// A sent one cannot be deleted.
			ana.call("DELETE", fmt.Sprintf("/scheduledMessages/%d", sc.ID), nil, 409, nil)
		})
	}
}
