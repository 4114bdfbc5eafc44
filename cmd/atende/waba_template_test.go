package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/transport/channel/meta"
	"atende/transport/channel/meta/graphfake"
)

// A template sent through POST /waba/sendtemplatemessage/ is recorded once in the
// contact's ticket as our message (rendered text, the wamid the Cloud API answered)
// and is not sent a second time by dispatch; a send the Cloud API refuses records
// nothing.
func TestWABATemplateRecordedInTicket(t *testing.T) {
	const secret, token, phoneID, wabaID = "meta-app-secret", "EAAG-tpl", "106540352242923", "1023"
	const customer = "5565977776666"
	g := graphfake.New(token)
	t.Cleanup(g.Close)
	tpl := map[string]any{"id": "778", "name": "lembrete", "status": "APPROVED", "language": "pt_BR", "category": "UTILITY",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}, sua consulta com {{3}} é {{4}}."}}}
	g.Objects[phoneID] = map[string]any{"display_phone_number": "+55 65 3333-0001", "verified_name": "Atende Tpl", "id": phoneID}
	g.Objects["778"], g.Templates[wabaID] = tpl, []map[string]any{tpl}
	cfg := testConfig(t, dbtest.URL(t, db.SQLite))
	cfg.GraphURL, cfg.MetaAppSecret, cfg.MetaVerifyToken = g.URL(), secret, "verify"
	ta := startApp(t, cfg)
	carla := login(t, ta.base, "carla@atende.local", "atende123")
	var conn engine.Connection
	carla.call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID,
		"currPhoneNumber": "+55 65 3333-0001", "currVerifiedName": "Atende Tpl", "currWabaToken": token}, 200, &conn)

	// The customer writes first: a ticket to send on.
	body := `{"object":"whatsapp_business_account","entry":[{"id":"` + wabaID + `","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"display_phone_number":"556533330001","phone_number_id":"` + phoneID + `"},
		"contacts":[{"profile":{"name":"Joana"},"wa_id":"` + customer + `"}],
		"messages":[{"from":"` + customer + `","id":"wamid.TPL-IN","timestamp":"1700000000","type":"text","text":{"body":"oi"}}]}}]}]}`
	req, _ := http.NewRequest("POST", ta.base+"/waba/webhook", bytes.NewReader([]byte(body)))
	req.Header.Set("X-Hub-Signature-256", meta.Sign(secret, []byte(body)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("web-hook: %d", res.StatusCode)
	}
	ctx := context.Background()
	messages := func() []engine.Message {
		contact, err := ta.app.stores.contacts.FindByNumber(ctx, 1, customer)
		if err != nil {
			return nil
		}
		tid, err := ta.app.live.guard.Current(ctx, conn.ID, contact.ID)
		if err != nil || tid == 0 {
			return nil
		}
		msgs, _ := ta.app.live.queries.AllMessages(ctx, 1, tid)
		return msgs
	}
	var ticketID engine.ID
	waitFor(t, "the customer's message in a ticket", func() bool {
		for _, m := range messages() {
			if m.ProviderID == "wamid.TPL-IN" {
				ticketID = m.TicketID
				return true
			}
		}
		return false
	})

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
	const secret, token, phoneID, wabaID = "meta-app-secret", "EAAG-auth", "106540352242924", "1024"
	const customer = "5565977775555"
	g := graphfake.New(token)
	t.Cleanup(g.Close)
	tpl := map[string]any{"id": "779", "name": "aviso", "status": "APPROVED", "language": "pt_BR", "category": "UTILITY",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}."}}}
	g.Objects[phoneID] = map[string]any{"display_phone_number": "+55 65 3333-0002", "verified_name": "Atende Auth", "id": phoneID}
	g.Objects["779"], g.Templates[wabaID] = tpl, []map[string]any{tpl}
	cfg := testConfig(t, dbtest.URL(t, db.SQLite))
	cfg.GraphURL, cfg.MetaAppSecret, cfg.MetaVerifyToken = g.URL(), secret, "verify"
	ta := startApp(t, cfg)
	carla := login(t, ta.base, "carla@atende.local", "atende123")
	var conn engine.Connection
	carla.call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID,
		"currPhoneNumber": "+55 65 3333-0002", "currVerifiedName": "Atende Auth", "currWabaToken": token}, 200, &conn)
	body := `{"object":"whatsapp_business_account","entry":[{"id":"` + wabaID + `","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"display_phone_number":"556533330002","phone_number_id":"` + phoneID + `"},
		"contacts":[{"profile":{"name":"Rita"},"wa_id":"` + customer + `"}],
		"messages":[{"from":"` + customer + `","id":"wamid.AUTH-IN","timestamp":"1700000000","type":"text","text":{"body":"oi"}}]}}]}]}`
	req, _ := http.NewRequest("POST", ta.base+"/waba/webhook", bytes.NewReader([]byte(body)))
	req.Header.Set("X-Hub-Signature-256", meta.Sign(secret, []byte(body)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	ctx := context.Background()
	var ticketID engine.ID
	waitFor(t, "the customer's ticket", func() bool {
		contact, err := ta.app.stores.contacts.FindByNumber(ctx, 1, customer)
		if err != nil {
			return false
		}
		ticketID, _ = ta.app.live.guard.Current(ctx, conn.ID, contact.ID)
		return ticketID != 0
	})

	// The waiting ticket goes to the Atendimento queue (Ana's, not Bruno's).
	queues, err := ta.app.stores.queues.List(ctx, 1)
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
	supervisor := engine.Principal{UserID: carla.user, CompanyID: 1, Profile: engine.ProfileSuperv}
	if _, _, err := ta.app.live.commander.Do(ctx, supervisor, ticketID, engine.Transfer{QueueID: atendimento}); err != nil {
		t.Fatal(err)
	}

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
	other := engine.Principal{UserID: carla.user, CompanyID: 2, Profile: engine.ProfileAdmin}
	if _, _, err := (ticketTargets{ta.app.live}).TicketTarget(ctx, other, ticketID); engine.CodeOf(err) != engine.ErrNoTicketFound {
		t.Fatalf("another tenant: %v", err)
	}
}
