package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"atende/engine"
)

// The chat's contact drawer shows the contact's extra info and sales opportunities
// (and marks them won or lost) from the ticket the chat loads: GET /tickets/{id} and
// the first page of GET /messages/{ticketId}. The ticket read model holds only the
// contact's row; the lists come from the contact store.
func TestTicketCarriesTheContactLists(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		ana := e.tok("ana")
		r := e.post(ana, "/contacts", map[string]any{
			"name": "Maria", "number": "5565999990077",
			"extraInfo": []map[string]any{{"name": "CPF", "value": "123"}},
			"salesOpps": []map[string]any{{"name": "Plano", "value": "100", "stage": "proposta"}},
		})
		r.wantStatus(t, http.StatusCreated)
		var c engine.Contact
		r.json(t, &c)
		const ticketID engine.ID = 150
		e.w.system(t, ticketID, engine.OpenTicket{TicketID: ticketID, UUID: "uuid-150", CompanyID: co1, ContactID: c.ID,
			ConnectionID: 1, Channel: engine.ChannelWhatsApp, QueueID: 11, UserID: e.ids["ana"], Status: engine.StatusOpen})
		e.w.takeCalls()

		check := func(t *testing.T, tk *engine.Ticket, body []byte) {
			t.Helper()
			if tk == nil || tk.Contact == nil || tk.Contact.ID != c.ID {
				t.Fatalf("ticket %s", body)
			}
			if len(tk.Contact.ExtraInfo) != 1 || tk.Contact.ExtraInfo[0].Name != "CPF" || tk.Contact.ExtraInfo[0].Value != "123" {
				t.Errorf("extraInfo %+v in %s", tk.Contact.ExtraInfo, body)
			}
			if len(tk.Contact.SalesOpps) != 1 || tk.Contact.SalesOpps[0].Name != "Plano" || tk.Contact.SalesOpps[0].ID == 0 ||
				tk.Contact.SalesOpps[0].ClosingStatus != nil {
				t.Errorf("salesOpps %+v in %s", tk.Contact.SalesOpps, body)
			}
		}
		t.Run("GET /tickets/{id}", func(t *testing.T) {
			r := e.get(ana, fmt.Sprintf("/tickets/%d", ticketID))
			r.wantStatus(t, http.StatusOK)
			var tk engine.Ticket
			r.json(t, &tk)
			check(t, &tk, r.Body)
		})
		t.Run("GET /messages/{ticketId}", func(t *testing.T) {
			r := e.get(ana, fmt.Sprintf("/messages/%d", ticketID))
			r.wantStatus(t, http.StatusOK)
			var page struct {
				Ticket *engine.Ticket `json:"ticket"`
			}
			r.json(t, &page)
			check(t, page.Ticket, r.Body)
		})
		// A contact the store does not know (the fixtures' tickets name contacts that
		// were never created) still answers the ticket, with empty lists, not null.
		t.Run("unknown contact", func(t *testing.T) {
			r := e.get(ana, fmt.Sprintf("/tickets/%d", tOpenAna))
			r.wantStatus(t, http.StatusOK)
			var raw struct {
				Contact map[string]json.RawMessage `json:"contact"`
			}
			r.json(t, &raw)
			if string(raw.Contact["extraInfo"]) != "[]" || string(raw.Contact["salesOpps"]) != "[]" {
				t.Fatalf("contact %s", r.Body)
			}
		})
	})
}
