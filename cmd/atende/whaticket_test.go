package main

import (
	"strings"
	"testing"

	"atende/actors"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	httpapi "atende/transport/http"
)

// whaticket's client joins "notification" from every list, attendants included, for
// the bell and its sound. An attendant may join it and there hears only the tickets
// they may see: ana (queue Atendimento) gets the web chat's new message; bruno
// (queue Suporte) does not.
func TestWhaticketJoinNotificationForAttendants(t *testing.T) {
	ta := startApp(t, testConfig(t, dbtest.URL(t, db.SQLite)))
	ana := login(t, ta.base, "ana@atende.local", "atende123")
	bruno := login(t, ta.base, "bruno@atende.local", "atende123")
	anaSock := dialSocket(t, ta.base, ana.token, 0)
	brunoSock := dialSocket(t, ta.base, bruno.token, 0)
	for name, s := range map[string]*sioClient{"ana": anaSock, "bruno": brunoSock} {
		if ack := s.emit("joinNotification", nil); !strings.Contains(ack, `"ok":true`) {
			t.Fatalf("%s joinNotification: %s", name, ack)
		}
	}

	cust := dialCustomer(t, ta.base, ta.webChatID(t), "")
	cust.send(map[string]string{"type": "hello", "name": "Maria Cliente"})
	cust.say("m1", "Quero saber do meu boleto")
	ev := anaSock.waitEvent("the new message on ana's bell", func(ev sioEvent) bool {
		m, _ := ev.Body["message"].(map[string]any)
		return ev.Name == "appMessage" && ev.Body["action"] == "create" && m != nil && m["body"] == "Quero saber do meu boleto"
	})
	ticketID := idOf(ticketOf(ev))

	// What the hub queued for bruno with ana's frame precedes the answer to his next
	// emit: after it, nothing of the ticket may be there.
	brunoSock.emit("joinNotification", nil)
	for _, ev := range brunoSock.received() {
		if tk := ticketOf(ev); tk != nil && idOf(tk) == ticketID {
			t.Fatalf("bruno (another queue) heard %s %v", ev.Name, ev.Body["action"])
		}
	}
}

// The connection actors read address books for POST /contacts/import (the route
// finds the capability by type assertion: this keeps it from silently going away).
var _ httpapi.PhoneBook = actors.Connections{}
