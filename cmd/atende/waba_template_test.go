package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"atende/engine"
	"atende/transport/channel/meta/graphfake"
)

// A template sent through POST /waba/sendtemplatemessage/ is recorded once in the
// contact's ticket as our message (rendered text, the wamid the Cloud API answered)
// and is not sent a second time by dispatch; a send the Cloud API refuses records
// nothing.
func TestWABATemplateRecordedInTicket(t *testing.T) {
	const customer = "5565977776666"
	n := newWABANode(t, "EAAG-tpl", "106540352242923", "1023", "+55 65 3333-0001", nil)
	n.template(map[string]any{"id": "778", "name": "lembrete", "status": "APPROVED", "language": "pt_BR", "category": "UTILITY",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}, sua consulta com {{3}} é {{4}}."}}})
	g, carla, phoneID := n.g, n.carla, n.phoneID

	// The customer writes first: a ticket to send on.
	if s := n.hook(t, n.text(customer, "Joana", "wamid.TPL-IN", "oi"), true); s != 200 {
		t.Fatalf("web-hook: %d", s)
	}
	messages := func() []engine.Message { return n.messages(customer) }
	ticketID := n.waitMessage(t, customer, "wamid.TPL-IN")[0].TicketID

	var sent struct {
		ProviderID string `json:"providerId"`
	}
	carla.call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "778", "contactName": "Joana",
		"attendantName": "Dra. Ana", "dateTime": "amanhã às 9h", "lcontactId": 0, "lticketId": ticketID}, 200, &sent)
	if sent.ProviderID == "" {
		t.Fatal("no provider id")
	}
	const want = "Olá Joana, sua consulta com Dra. Ana é amanhã às 9h."
	var found []engine.Message
	waitFor(t, "the template in the ticket", func() bool {
		found = found[:0]
		for _, m := range messages() {
			if m.ProviderID == sent.ProviderID {
				found = append(found, m)
			}
		}
		return len(found) > 0
	})
	if len(found) != 1 || !found[0].FromMe || found[0].Body != want || found[0].TicketID != ticketID {
		t.Fatalf("template recorded as %+v", found)
	}

	// Dispatch does not send the recorded template again: a reply written after it
	// goes through the same ticket and connection actors, so once the reply reached
	// the Cloud API, a second send of the template would have too.
	carla.call("PUT", fmt.Sprintf("/tickets/%d", ticketID), map[string]any{"status": "open", "userId": carla.user}, 200, nil)
	carla.call("POST", fmt.Sprintf("/messages/%d", ticketID), map[string]any{"body": "depois"}, 201, nil)
	route := "POST /" + phoneID + "/messages"
	waitFor(t, "the reply on the Cloud API", func() bool {
		for _, q := range g.Requests(route) {
			if text, _ := q.JSON()["text"].(map[string]any); text != nil && text["body"] == "depois" {
				return true
			}
		}
		return false
	})
	templates := 0
	for _, q := range g.Requests(route) {
		if q.JSON()["type"] == "template" {
			templates++
		}
	}
	if templates != 1 {
		t.Fatalf("template sent %d times", templates)
	}

	// A refused send (outside the 24-hour window) records nothing: recording happens
	// before the answer, so there is nothing to wait for.
	before := len(messages())
	g.Fail(route, graphfake.Failure{Status: 400, Code: 131047, Message: "(#131047) Re-engagement message"})
	carla.call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "778", "contactName": "Joana",
		"lticketId": ticketID}, http.StatusBadGateway, nil)
	if after := messages(); len(after) != before {
		t.Fatalf("messages %d → %d after a refused send: %+v", before, len(after), after)
	}
}

// POST /waba/sendtemplatemessage/ is judged like any message sent on the ticket
// (engine.AuthorizeTicket): an attendant of the ticket's queue may send on a waiting
// ticket that is not theirs, an attendant of another queue may not, and another
// tenant does not find the ticket.
func TestWABATemplateAuthorizedLikeSendMessage(t *testing.T) {
	const customer = "5565977775555"
	n := newWABANode(t, "EAAG-auth", "106540352242924", "1024", "+55 65 3333-0002", nil)
	n.template(map[string]any{"id": "779", "name": "aviso", "status": "APPROVED", "language": "pt_BR", "category": "UTILITY",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}."}}})
	ta, g, carla, phoneID := n.ta, n.g, n.carla, n.phoneID
	if s := n.hook(t, n.text(customer, "Rita", "wamid.AUTH-IN", "oi"), true); s != 200 {
		t.Fatalf("web-hook: %d", s)
	}
	ctx := context.Background()
	ticketID := n.waitMessage(t, customer, "wamid.AUTH-IN")[0].TicketID

	// The waiting ticket goes to the Atendimento queue (Ana's, not Bruno's).
	queues, err := ta.stores.queues.List(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var atendimento engine.ID
	for _, q := range queues {
		if q.Name == "Atendimento" {
			atendimento = q.ID
		}
	}
	if atendimento == 0 {
		t.Fatalf("no Atendimento queue in %+v", queues)
	}
	// The supervisor moves it there, still waiting (a Transfer of its queue).
	carla.call("PUT", fmt.Sprintf("/tickets/%d", ticketID), map[string]any{"status": "pending", "queueId": atendimento}, 200, nil)

	send := map[string]any{"templateId": "779", "contactName": "Rita", "lticketId": ticketID}
	route := "POST /" + phoneID + "/messages"
	ana := login(t, ta.base, "ana@atende.local", "atende123")
	ana.call("POST", "/waba/sendtemplatemessage/", send, 200, nil)
	sent := len(g.Requests(route))
	if sent != 1 {
		t.Fatalf("%d sends after the queue member's", sent)
	}
	bruno := login(t, ta.base, "bruno@atende.local", "atende123")
	bruno.call("POST", "/waba/sendtemplatemessage/", send, http.StatusForbidden, nil)
	if n := len(g.Requests(route)); n != sent {
		t.Fatalf("another queue's attendant sent: %d sends", n)
	}
	// Another tenant's admin does not find the ticket.
	other := inviteOtherTenantUser(t, ta)
	var refused struct {
		Error string `json:"error"`
	}
	other.call("POST", "/waba/sendtemplatemessage/", send, http.StatusNotFound, &refused)
	if refused.Error != string(engine.ErrNoTicketFound) {
		t.Fatalf("another tenant: %+v", refused)
	}
	if n := len(g.Requests(route)); n != sent {
		t.Fatalf("another tenant sent: %d sends", n)
	}
}
