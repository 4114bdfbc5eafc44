package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"atende/engine"
	"atende/persistence/db/dbtest"
)

// inviteOtherTenantUser creates a company with one admin and logs them in.
func inviteOtherTenantUser(t *testing.T, ta *testApp) *api {
	t.Helper()
	ctx := context.Background()
	co, err := ta.stores.companies.Create(ctx, engine.Company{Name: "Outra Empresa"})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("outra123"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ta.stores.users.Create(ctx, engine.NewUser{CompanyID: co.ID, Name: "Olga Outra",
		Email: "olga@outra.local", PasswordHash: string(hash), Profile: engine.ProfileAdmin}); err != nil {
		t.Fatal(err)
	}
	return login(t, ta.base, "olga@outra.local", "outra123")
}

// Issue 13 item 3 on a whole node: Ana invites Bruno (not of the ticket's queue) to
// her ticket; the invitation reaches Bruno's sockets only; before accepting he may not
// answer it, after accepting he may (once: a second accept records nothing); a
// declined invitation is told to the inviter. Hostile calls are refused with the
// catalogue's codes.
func TestTicketInvitationEndToEnd(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			ana := login(t, ta.base, "ana@atende.local", "atende123")     // Atendimento, Financeiro
			bruno := login(t, ta.base, "bruno@atende.local", "atende123") // Suporte
			carla := login(t, ta.base, "carla@atende.local", "atende123") // supervisor
			olga := inviteOtherTenantUser(t, ta)
			anaSock := dialSocket(t, ta.base, ana.token, 0)
			brunoSock := dialSocket(t, ta.base, bruno.token, 0)
			carlaSock := dialSocket(t, ta.base, carla.token, 0)
			for _, s := range []*sioClient{anaSock, brunoSock, carlaSock} {
				if ack := s.emit("joinNotification", nil); !strings.Contains(ack, `"ok":true`) {
					t.Fatalf("joinNotification: %s", ack)
				}
			}

			cust := dialCustomer(t, ta.base, ta.webChatID(t), "")
			cust.send(map[string]string{"type": "hello", "name": "Maria Cliente"})
			cust.say("m1", "Olá, preciso de ajuda")
			ev := anaSock.waitEvent("pending ticket", func(ev sioEvent) bool {
				tk := ticketOf(ev)
				return tk != nil && tk["status"] == engine.StatusPending
			})
			id := idOf(ticketOf(ev))
			ana.call("PUT", fmt.Sprintf("/tickets/%d", id), map[string]any{"status": "open", "userId": ana.user}, 200, nil)
			path := fmt.Sprintf("/ticketinvite/%d", id)
			reply := func(who *api, body string, want int) {
				t.Helper()
				who.call("POST", fmt.Sprintf("/messages/%d", id), map[string]any{"body": body}, want, nil)
			}

			// Bruno's queue is not the ticket's: he may not answer it, nor invite to it.
			reply(bruno, "posso ajudar?", http.StatusForbidden)
			bruno.call("PUT", path, map[string]any{"userId": carla.user}, http.StatusForbidden, nil)

			// Hostile and wrong calls.
			var e struct {
				Error  string            `json:"error"`
				Fields map[string]string `json:"fields"`
			}
			for _, c := range []struct {
				name string
				who  *api
				path string
				body any
				want int
				code string
			}{
				{"as someone else", ana, path, map[string]any{"userId": bruno.user, "userFrom": carla.user}, 403, "ERR_NO_PERMISSION"},
				{"no user", ana, path, map[string]any{}, 400, "ERR_VALIDATION"},
				{"oneself", ana, path, map[string]any{"userId": ana.user}, 400, "ERR_VALIDATION"},
				{"a word for a user", ana, path, map[string]any{"userId": "bruno"}, 400, "ERR_VALIDATION"},
				{"an object for a user", ana, path, map[string]any{"userId": map[string]any{"$gt": 0}}, 400, "ERR_VALIDATION"},
				{"a user of another tenant", ana, path, map[string]any{"userId": olga.user}, 404, "ERR_NO_USER_FOUND"},
				{"a user that does not exist", ana, path, map[string]any{"userId": 987654}, 404, "ERR_NO_USER_FOUND"},
				{"a ticket that does not exist", ana, "/ticketinvite/987654", map[string]any{"userId": bruno.user}, 404, "ERR_NO_TICKET_FOUND"},
				{"another tenant's ticket", olga, path, map[string]any{"userId": olga.user}, 404, "ERR_NO_TICKET_FOUND"},
				{"a bad ticket id", ana, "/ticketinvite/abc", map[string]any{"userId": bruno.user}, 404, "ERR_NO_TICKET_FOUND"},
				{"accept without an invitation", carla, path + "/accept", nil, 403, "ERR_NO_PERMISSION"},
				{"decline without an invitation", bruno, path + "/decline", nil, 403, "ERR_NO_PERMISSION"},
				{"accept on another tenant's ticket", olga, path + "/accept", nil, 404, "ERR_NO_TICKET_FOUND"},
			} {
				e.Error, e.Fields = "", nil
				c.who.call(inviteMethodOf(c.path), c.path, c.body, c.want, &e)
				if e.Error != c.code {
					t.Errorf("%s: %s, want %s", c.name, e.Error, c.code)
				}
			}
			// Not JSON at all.
			ana.inviteRaw("PUT", path, "application/json", `{"userId": 1,,}`, http.StatusBadRequest)

			if got := pendingOf(t, bruno); len(got) != 0 {
				t.Fatalf("bruno has pending invitations before any: %v", got)
			}
			if openListOf(t, bruno)[id] {
				t.Fatal("the ticket is in bruno's open list before he is a guest")
			}

			// The invitation: to Bruno's sockets only.
			ana.call("PUT", path, map[string]any{"userId": bruno.user, "userFrom": ana.user}, 200, nil)
			inv := brunoSock.waitEvent("the invitation", func(ev sioEvent) bool {
				return ev.Name == "invitation" && ev.Body["action"] == "create"
			})
			if inv.Body["ticket"] != float64(id) || inv.Body["uFrom"] != "Ana Atendente" || inv.Body["to"] != float64(bruno.user) ||
				inv.Body["contact"] != "Maria Cliente" || inv.Body["uTo"] == "" || inv.Body["dateTime"] == nil {
				t.Fatalf("invitation %v", inv.Body)
			}
			// After a reload, GET /ticketinvite gives the same notice back — to Bruno only.
			pending := pendingOf(t, bruno)
			if len(pending) != 1 {
				t.Fatalf("bruno's pending invitations: %v", pending)
			}
			for _, k := range []string{"action", "to", "uTo", "uFrom", "userId", "userFrom", "contact", "profilePic", "ticket", "ticketStatus"} {
				if fmt.Sprint(pending[0][k]) != fmt.Sprint(inv.Body[k]) {
					t.Errorf("listed invitation %s = %v, the socket's %v", k, pending[0][k], inv.Body[k])
				}
			}
			if got := pendingOf(t, ana); len(got) != 0 {
				t.Fatalf("the inviter lists the invitee's invitation: %v", got)
			}
			if got := pendingOf(t, olga); len(got) != 0 {
				t.Fatalf("another tenant lists an invitation: %v", got)
			}
			// Still no access before answering.
			reply(bruno, "antes de aceitar", http.StatusForbidden)

			var accepted engine.Ticket
			bruno.call("POST", path+"/accept", nil, 200, &accepted)
			if accepted.ID != id || accepted.Status != engine.StatusOpen || accepted.UserID != ana.user {
				t.Fatalf("accept answered %+v", accepted)
			}
			anaSock.waitEvent("the acceptance, told to ana", func(ev sioEvent) bool {
				return ev.Name == "invitation" && ev.Body["action"] == "accept" && ev.Body["userId"] == float64(bruno.user)
			})
			bruno.call("POST", path+"/accept", nil, 200, nil) // again: nothing recorded
			if got := pendingOf(t, bruno); len(got) != 0 {
				t.Fatalf("an accepted invitation is still listed: %v", got)
			}
			// A guest has the ticket in his own open list (outside his queues) and its
			// live events reach his socket.
			if !openListOf(t, bruno)[id] {
				t.Fatal("the guest's open list lacks the ticket")
			}
			cust.say("m2", "Obrigada, Bruno")
			brunoSock.waitEvent("the customer's message on the guest's socket", func(ev sioEvent) bool {
				m, _ := ev.Body["message"].(map[string]any)
				return ev.Name == "appMessage" && m != nil && m["body"] == "Obrigada, Bruno"
			})
			reply(bruno, "Olá Maria, sou o Bruno", http.StatusCreated)
			cust.wait("the guest's reply", func(f map[string]any) bool {
				return f["type"] == "message" && f["body"] == "Olá Maria, sou o Bruno"
			})
			// A guest answers, but the conversation stays Ana's.
			bruno.call("PUT", fmt.Sprintf("/tickets/%d", id), map[string]any{"status": "closed"}, http.StatusForbidden, nil)

			// The supervisor saw the guest's reply, and no invitation before it.
			carlaSock.waitEvent("the guest's reply on the supervisor's socket", func(ev sioEvent) bool {
				m, _ := ev.Body["message"].(map[string]any)
				return ev.Name == "appMessage" && m != nil && m["body"] == "Olá Maria, sou o Bruno"
			})
			for name, s := range map[string]*sioClient{"ana": anaSock, "carla": carlaSock} {
				for _, ev := range s.received() {
					if ev.Name == "invitation" && ev.Body["action"] == "create" {
						t.Fatalf("%s received the invitation: %v", name, ev.Body)
					}
				}
			}

			// A declined invitation: told to the inviter; the invitee gets nothing.
			ana.call("PUT", path, map[string]any{"userId": carla.user}, 200, nil)
			carlaSock.waitEvent("carla's invitation", func(ev sioEvent) bool {
				return ev.Name == "invitation" && ev.Body["action"] == "create"
			})
			if got := pendingOf(t, carla); len(got) != 1 || got[0]["ticket"] != float64(id) {
				t.Fatalf("carla's pending invitations: %v", got)
			}
			carla.call("POST", path+"/decline", nil, 204, nil)
			if got := pendingOf(t, carla); len(got) != 0 {
				t.Fatalf("a declined invitation is still listed: %v", got)
			}
			anaSock.waitEvent("the refusal, told to ana", func(ev sioEvent) bool {
				return ev.Name == "invitation" && ev.Body["action"] == "decline" && ev.Body["uTo"] == "Carla Supervisora"
			})
			carla.call("POST", path+"/accept", nil, 403, nil) // declined: nothing to accept

			var history []engine.HistoryEntry
			ana.call("POST", fmt.Sprintf("/tickets/%d", id), nil, 200, &history)
			var actions []string
			for _, h := range history {
				actions = append(actions, h.Action)
			}
			if got := strings.Join(actions, ","); got != "create,accept,invite,invite_accept,invite,invite_decline" {
				t.Fatalf("history %q: an invitation accepted more than once, or missing", got)
			}

			// An invitation to a ticket that is then resolved can no longer be
			// answered: it is no longer listed.
			ana.call("PUT", path, map[string]any{"userId": carla.user}, 200, nil)
			if got := pendingOf(t, carla); len(got) != 1 {
				t.Fatalf("carla's second invitation: %v", got)
			}
			ana.call("PUT", fmt.Sprintf("/tickets/%d", id), map[string]any{"status": "closed"}, 200, nil)
			if got := pendingOf(t, carla); len(got) != 0 {
				t.Fatalf("an invitation to a closed ticket is listed: %v", got)
			}
		})
	}
}

// pendingOf is who's GET /ticketinvite.
func pendingOf(t *testing.T, who *api) []map[string]any {
	t.Helper()
	var out []map[string]any
	who.call("GET", "/ticketinvite", nil, 200, &out)
	return out
}

// openListOf is the set of tickets of who's open tab (GET /tickets?status=open, the
// first page: the test's tenant has a handful).
func openListOf(t *testing.T, who *api) map[engine.ID]bool {
	t.Helper()
	var page struct {
		Tickets []engine.Ticket `json:"tickets"`
	}
	who.call("GET", "/tickets?status=open", nil, 200, &page)
	out := map[engine.ID]bool{}
	for _, tk := range page.Tickets {
		out[tk.ID] = true
	}
	return out
}

func inviteMethodOf(path string) string {
	if strings.HasSuffix(path, "/accept") || strings.HasSuffix(path, "/decline") {
		return "POST"
	}
	return "PUT"
}

// inviteRaw sends body as is with content type ct, failing the test unless the status is
// want.
func (a *api) inviteRaw(method, path, ct, body string, want int) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	res.Body.Close()
	if res.StatusCode != want {
		a.t.Fatalf("%s %s: status %d, want %d", method, path, res.StatusCode, want)
	}
}
