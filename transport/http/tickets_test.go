package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

func TestTicketRoutesNeedAToken(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		routes := []struct{ method, path string }{
			{"GET", "/tickets"},
			{"GET", "/tickets/counts"},
			{"GET", "/tickets/unread"},
			{"GET", "/tickets/102"},
			{"PUT", "/tickets/102"},
			{"DELETE", "/tickets/102"},
			{"POST", "/tickets"},
			{"POST", "/tickets/102"},
			{"GET", "/messages/102"},
			{"GET", "/allmessages/102"},
			{"POST", "/messages/102"},
			{"POST", "/messages/whisper/102"},
			{"DELETE", "/messages/9001"},
			{"POST", "/tags/sync"},
		}
		for _, rt := range routes {
			t.Run(rt.method+" "+rt.path, func(t *testing.T) {
				body := `{"status":"closed","body":"x","ticketId":102,"tags":[]}`
				e.do(req{method: rt.method, path: rt.path, body: body}).wantErr(t, http.StatusUnauthorized, engine.ErrSessionExpired)
				e.do(req{method: rt.method, path: rt.path, body: body, header: map[string]string{"Authorization": "Bearer not.a.jwt"}}).
					wantErr(t, http.StatusForbidden, engine.ErrInvalidToken)
				e.noCall(t)
			})
		}
	})
}

func TestListTickets(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		ana := e.tok("ana")
		tests := []struct {
			name  string
			query string
			want  engine.TicketQuery
		}{
			{"defaults", "", engine.TicketQuery{PageNumber: 1}},
			{"the web app's JSON strings", "status=open&pageNumber=2&showAll=true&queueIds=" + url.QueryEscape("[11,12]") +
				"&tags=" + url.QueryEscape(`["3","4"]`) + "&users=" + url.QueryEscape("[7]") + "&withUnreadMessages=true",
				engine.TicketQuery{Status: "open", PageNumber: 2, ShowAll: true, QueueIDs: []engine.ID{11, 12},
					TagIDs: []engine.ID{3, 4}, UserIDs: []engine.ID{7}, WithUnreadMessages: true}},
			{"repeated and comma lists", "queueIds=12&queueIds=11&tags=5,6,5", engine.TicketQuery{PageNumber: 1,
				QueueIDs: []engine.ID{11, 12}, TagIDs: []engine.ID{5, 6}}},
			{"empty JSON list", "queueIds=%5B%5D", engine.TicketQuery{PageNumber: 1}},
			{"date and closed tab", "status=closed&date=2026-11-22", engine.TicketQuery{Status: "closed", Date: "2026-11-22", PageNumber: 1}},
			{"cursor wins over pageNumber", "cursor=abc&pageNumber=zzz", engine.TicketQuery{Cursor: "abc"}},
			{"SQL metacharacters pass untouched", "searchParam=" + url.QueryEscape(`  o'brien"; DROP TABLE tickets;-- %_\ `),
				engine.TicketQuery{SearchParam: `  o'brien"; DROP TABLE tickets;-- %_\ `, PageNumber: 1}},
			{"search prefixes pass untouched", "searchParam=" + url.QueryEscape("m:boleto 100%"),
				engine.TicketQuery{SearchParam: "m:boleto 100%", PageNumber: 1}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := e.get(ana, "/tickets?"+tc.query)
				r.wantStatus(t, http.StatusOK)
				if got := e.w.lastQuery; !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("query %+v, want %+v", got, tc.want)
				}
				if e.w.lastP.UserID != e.ids["ana"] || e.w.lastP.CompanyID != co1 || e.w.lastP.Profile != engine.ProfileUser {
					t.Fatalf("principal %+v", e.w.lastP)
				}
				m := r.obj(t)
				for _, k := range []string{"tickets", "count", "hasMore", "nextCursor", "countCapped"} {
					if _, ok := m[k]; !ok {
						t.Fatalf("answer lacks %q: %s", k, r.Body)
					}
				}
			})
		}

		refused := []struct{ name, query, field string }{
			{"zero id in a list", "queueIds=" + url.QueryEscape("[0]"), "queueIds"},
			{"text in a list", "tags=abc", "tags"},
			{"malformed JSON list", "users=" + url.QueryEscape("[1,"), "users"},
			{"objects in a list", "tags=" + url.QueryEscape(`[{"id":1}]`), "tags"},
			{"unknown status", "status=archived", "status"},
			{"impossible date", "date=2026-02-30", "date"},
			{"page not a number", "pageNumber=x", "pageNumber"},
			{"page too deep without cursor", "pageNumber=251", "pageNumber"},
			{"negative page", "pageNumber=-1", "pageNumber"},
			{"showAll not a boolean", "showAll=maybe", "showAll"},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				e.w.lastQuery = engine.TicketQuery{Date: "untouched"}
				b := e.get(ana, "/tickets?"+tc.query).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if b.Fields[tc.field] == "" {
					t.Fatalf("fields %v, want %s", b.Fields, tc.field)
				}
				if e.w.lastQuery.Date != "untouched" {
					t.Fatal("the read model was asked")
				}
			})
		}

		t.Run("the page is answered as the read model gives it", func(t *testing.T) {
			tk, _ := e.w.view(tOpenAna)
			e.w.page = engine.TicketPage{Tickets: []engine.Ticket{tk}, Count: 1000, CountCapped: true, HasMore: true, NextCursor: "next"}
			var got struct {
				Tickets     []engine.Ticket `json:"tickets"`
				Count       int             `json:"count"`
				HasMore     bool            `json:"hasMore"`
				NextCursor  string          `json:"nextCursor"`
				CountCapped bool            `json:"countCapped"`
			}
			e.get(ana, "/tickets").json(t, &got)
			if len(got.Tickets) != 1 || got.Tickets[0].ID != tOpenAna || got.Tickets[0].Contact == nil ||
				got.Count != 1000 || !got.CountCapped || !got.HasMore || got.NextCursor != "next" {
				t.Fatalf("page %+v", got)
			}
		})
	})
}

func TestTicketCountsAndUnread(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		superv := e.tok("superv")
		r := e.get(superv, "/tickets/counts?status=open&pageNumber=3&searchParam=x&showAll=true&queueIds="+url.QueryEscape("[11]"))
		r.wantStatus(t, http.StatusOK)
		want := engine.TicketQuery{ShowAll: true, QueueIDs: []engine.ID{11}}
		if !reflect.DeepEqual(e.w.lastQuery, want) {
			t.Fatalf("counts query %+v, want %+v (tab, page and search ignored)", e.w.lastQuery, want)
		}
		if e.w.lastZone != engine.TenantTimeZone {
			t.Fatalf("counts read in zone %q, want the tenant's %q", e.w.lastZone, engine.TenantTimeZone)
		}
		if m := r.obj(t); m["open"] != 3.0 || m["pending"] != 7.0 {
			t.Fatalf("counts %s", r.Body)
		}
		e.get(superv, "/tickets/counts?queueIds=x").wantErr(t, http.StatusBadRequest, engine.ErrValidation)

		e.w.system(t, tOpenAna, engine.ReceiveMessage{MessageID: 1, ProviderID: "p1", Body: "oi"})
		r = e.get(e.tok("ana"), "/tickets/unread")
		r.wantStatus(t, http.StatusOK)
		var bell struct {
			Tickets []engine.Ticket `json:"tickets"`
			Count   int             `json:"count"`
		}
		r.json(t, &bell)
		if bell.Count != 1 || len(bell.Tickets) != 1 || bell.Tickets[0].ID != tOpenAna || e.w.lastP.UserID != e.ids["ana"] {
			t.Fatalf("unread %s", r.Body)
		}
		r = e.get(e.tok("admin2"), "/tickets/unread")
		if strings.TrimSpace(string(r.Body)) != `{"count":0,"tickets":[]}` {
			t.Fatalf("empty bell %s", r.Body)
		}
	})
}

func TestGetTicket(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		bruno := e.tok("bruno")
		r := e.get(bruno, "/tickets/102") // another's ticket in another queue: reading is open to staff
		r.wantStatus(t, http.StatusOK)
		var tk engine.Ticket
		r.json(t, &tk)
		if tk.ID != tOpenAna || tk.Status != engine.StatusOpen || tk.User == nil || tk.User.Name != "Ana User" || tk.Contact == nil {
			t.Fatalf("ticket %s", r.Body)
		}
		for _, path := range []string{"/tickets/201", "/tickets/999", "/tickets/0", "/tickets/-4", "/tickets/abc", "/tickets/99999999999999999999"} {
			e.get(bruno, path).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		}
	})
}

func TestUpdateTicketCommands(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		ana, bruno, superv := e.ids["ana"], e.ids["bruno"], e.ids["superv"]
		tests := []struct {
			name   string
			as     string
			ticket engine.ID
			body   any
			want   engine.TicketCommand // nil: no command
			status string               // the ticket's status in the answer
		}{
			{"accept a pending ticket", "ana", tPending, map[string]any{"status": "open", "userId": ana}, engine.Accept{UserID: ana}, "open"},
			{"accept without a userId", "ana", tPending, map[string]any{"status": "open"}, engine.Accept{UserID: ana}, "open"},
			{"accept with a string id", "ana", tPending, map[string]any{"status": "open", "userId": id(ana)}, engine.Accept{UserID: ana}, "open"},
			{"accept a ticket without queue", "bruno", tNoQueue, map[string]any{"status": "open", "userId": bruno}, engine.Accept{UserID: bruno}, "open"},
			{"accept into another queue", "ana", tPending, map[string]any{"status": "open", "userId": ana, "queueId": 12},
				engine.Transfer{UserID: ana, QueueID: 12}, "open"},
			{"reopen a closed ticket", "ana", tClosed, map[string]any{"status": "open", "userId": ana}, engine.Reopen{UserID: ana}, "open"},
			{"resolve", "ana", tOpenAna, map[string]any{"status": "closed", "userId": ana}, engine.Resolve{}, "closed"},
			{"return", "ana", tOpenAna, map[string]any{"status": "pending", "userId": nil}, engine.Return{}, "pending"},
			{"return with an empty id", "ana", tOpenAna, map[string]any{"status": "pending", "userId": ""}, engine.Return{}, "pending"},
			{"transfer to a user and queue", "superv", tOpenAna, map[string]any{"status": "open", "userId": bruno, "queueId": 12},
				engine.Transfer{UserID: bruno, QueueID: 12}, "open"},
			{"transfer to a user keeping the queue", "ana", tOpenAna, map[string]any{"userId": bruno, "queueId": 11},
				engine.Transfer{UserID: bruno}, "open"},
			{"transfer to a queue only", "ana", tOpenAna, map[string]any{"status": "pending", "userId": nil, "queueId": 12},
				engine.Transfer{QueueID: 12}, "pending"},
			{"transfer to a queue, status left out", "ana", tOpenAna, map[string]any{"queueId": 12}, engine.Transfer{QueueID: 12}, "pending"},
			{"transfer to a connection", "ana", tPending, map[string]any{"whatsappId": 7}, engine.Transfer{ConnectionID: 7}, "pending"},
			{"supervisor takes over", "superv", tOpenAna, map[string]any{"status": "open", "userId": superv}, engine.Transfer{UserID: superv}, "open"},
			{"already closed", "ana", tClosed, map[string]any{"status": "closed"}, nil, "closed"},
			{"already pending", "ana", tPending, map[string]any{"status": "pending", "userId": nil}, nil, "pending"},
			{"already open for the user", "ana", tOpenAna, map[string]any{"status": "open", "userId": ana, "queueId": 11}, nil, "open"},
			{"empty body", "ana", tOpenAna, map[string]any{}, nil, "open"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				r := e.put(e.tok(tc.as), "/tickets/"+id(tc.ticket), tc.body)
				r.wantStatus(t, http.StatusOK)
				if tc.want == nil {
					e.noCall(t)
				} else {
					c := e.oneCall(t)
					if !reflect.DeepEqual(c.Cmd, tc.want) || c.Ticket != tc.ticket || c.P.UserID != e.ids[tc.as] {
						t.Fatalf("command %#v on %d as %d, want %#v on %d as %d", c.Cmd, c.Ticket, c.P.UserID, tc.want, tc.ticket, e.ids[tc.as])
					}
				}
				var tk engine.Ticket
				r.json(t, &tk)
				if tk.ID != tc.ticket || tk.Status != tc.status {
					t.Fatalf("answer %s, want status %s", r.Body, tc.status)
				}
			})
		}

		refused := []struct {
			name   string
			as     string
			ticket engine.ID
			body   any
			status int
			code   engine.Code
			field  string
			asked  bool // the actor was asked (and refused)
		}{
			{"unknown status", "ana", tOpenAna, map[string]any{"status": "archived"}, 400, engine.ErrValidation, "status", false},
			{"pending with a user", "ana", tOpenAna, map[string]any{"status": "pending", "userId": bruno}, 400, engine.ErrValidation, "userId", false},
			{"negative user", "ana", tOpenAna, map[string]any{"userId": -3}, 400, engine.ErrValidation, "userId", false},
			{"text user", "ana", tOpenAna, map[string]any{"userId": "bruno"}, 400, engine.ErrValidation, "userId", false},
			{"fractional queue", "ana", tOpenAna, map[string]any{"queueId": 1.5}, 400, engine.ErrValidation, "queueId", false},
			{"object connection", "ana", tOpenAna, map[string]any{"whatsappId": map[string]any{"id": 1}}, 400, engine.ErrValidation, "whatsappId", false},
			{"close and move at once", "ana", tOpenAna, map[string]any{"status": "closed", "queueId": 12}, 400, engine.ErrValidation, "queueId", false},
			{"unknown user", "ana", tOpenAna, map[string]any{"userId": 987654}, 404, engine.ErrNoUserFound, "", false},
			{"another tenant's user", "ana", tOpenAna, map[string]any{"userId": e.ids["admin2"]}, 404, engine.ErrNoUserFound, "", false},
			{"another tenant's queue", "ana", tOpenAna, map[string]any{"queueId": 21}, 404, engine.ErrNoQueueFound, "", false},
			{"another tenant's ticket", "ana", tOther, map[string]any{"status": "closed"}, 404, engine.ErrNoTicketFound, "", false},
			{"unknown ticket", "ana", 999, map[string]any{"status": "closed"}, 404, engine.ErrNoTicketFound, "", false},
			{"move a closed ticket", "ana", tClosed, map[string]any{"status": "open", "queueId": 12}, 409, engine.ErrInvalidTransition, "", false},
			{"reopen for someone else", "ana", tClosed, map[string]any{"status": "open", "userId": bruno}, 403, engine.ErrNoPermission, "", true},
			{"resolve another's ticket", "ana", tOpenBrun, map[string]any{"status": "closed"}, 403, engine.ErrNoPermission, "", true},
			{"accept outside one's queues", "bruno", tPending, map[string]any{"status": "open"}, 403, engine.ErrNoPermission, "", true},
			{"user transfers another's ticket", "bruno", tOpenAna, map[string]any{"userId": bruno}, 403, engine.ErrNoPermission, "", true},
			{"resolve a pending ticket", "ana", tPending, map[string]any{"status": "closed"}, 409, engine.ErrInvalidTransition, "", true},
			{"malformed JSON", "ana", tOpenAna, `{"status":`, 400, engine.ErrInvalidJSON, "", false},
			{"status not a string", "ana", tOpenAna, `{"status":5}`, 400, engine.ErrInvalidJSON, "", false},
			{"trailing garbage", "ana", tOpenAna, `{"status":"closed"} {}`, 400, engine.ErrInvalidJSON, "", false},
			{"array body", "ana", tOpenAna, `[]`, 400, engine.ErrInvalidJSON, "", false},
			{"oversized body", "ana", tOpenAna, `{"status":"closed","x":"` + strings.Repeat("a", 70<<10) + `"}`, 413, engine.ErrBodyTooLarge, "", false},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				b := e.put(e.tok(tc.as), "/tickets/"+id(tc.ticket), tc.body).wantErr(t, tc.status, tc.code)
				if tc.field != "" && b.Fields[tc.field] == "" {
					t.Fatalf("fields %v, want %s", b.Fields, tc.field)
				}
				if calls := e.w.takeCalls(); (len(calls) == 1) != tc.asked || len(calls) > 1 {
					t.Fatalf("commands %+v, asked %v", calls, tc.asked)
				}
			})
		}
	})
}

func TestUpdateTicketReadsItsWrite(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		t.Run("waits for the command's position, then answers the read model", func(t *testing.T) {
			e.fixtures(t)
			r := e.put(e.tok("ana"), "/tickets/"+id(tPending), map[string]any{"status": "open"})
			r.wantStatus(t, http.StatusOK)
			if len(e.w.waits) != 1 || e.w.waits[0] != e.w.pos {
				t.Fatalf("waits %v, want [%d]", e.w.waits, e.w.pos)
			}
			var tk engine.Ticket
			r.json(t, &tk)
			if tk.Status != "open" || tk.User == nil || tk.User.Name != "Ana User" || tk.Contact == nil || tk.Contact.Name == "" {
				t.Fatalf("answer %s", r.Body)
			}
		})
		t.Run("a read model that does not catch up: the actor's state over the old view", func(t *testing.T) {
			e.fixtures(t)
			e.w.setWaitErr(context.DeadlineExceeded)
			defer e.w.setWaitErr(nil)
			r := e.put(e.tok("superv"), "/tickets/"+id(tOpenAna), map[string]any{"status": "open", "userId": e.ids["bruno"], "queueId": 12})
			r.wantStatus(t, http.StatusOK)
			if view, _ := e.w.view(tOpenAna); view.UserID != e.ids["ana"] {
				t.Fatalf("fixture: the read model moved on (%+v)", view)
			}
			var tk engine.Ticket
			r.json(t, &tk)
			if tk.Status != "open" || tk.UserID != e.ids["bruno"] || tk.User == nil || tk.User.Name != "Bruno Plus" ||
				tk.QueueID != 12 || tk.Queue == nil || tk.Queue.Name != "Suporte" || tk.Contact == nil {
				t.Fatalf("answer %s", r.Body)
			}
			if !strings.Contains(e.logs.String(), "read models behind") {
				t.Fatal("the late read model was not logged")
			}
		})
		t.Run("a new ticket the read model does not have yet: the actor's state", func(t *testing.T) {
			e.fixtures(t)
			e.w.setWaitErr(errors.New("projection stopped"))
			defer e.w.setWaitErr(nil)
			r := e.post(e.tok("ana"), "/tickets", map[string]any{"contactId": 77, "status": "open", "queueId": 11})
			r.wantStatus(t, http.StatusCreated)
			var tk engine.Ticket
			r.json(t, &tk)
			if tk.ID == 0 || tk.Status != "open" || tk.User == nil || tk.User.Name != "Ana User" || tk.Queue == nil || tk.Queue.Name != "Vendas" {
				t.Fatalf("answer %s", r.Body)
			}
		})
	})
}

func TestDeleteTicket(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		e.fixtures(t)
		// Refused early: the actor is not even asked.
		e.del(e.tok("superv"), "/tickets/"+id(tOpenAna)).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.noCall(t)
		admin := e.tok("admin")
		e.del(admin, "/tickets/"+id(tOther)).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		e.oneCall(t)
		e.del(admin, "/tickets/abc").wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		e.noCall(t)

		e.del(admin, "/tickets/"+id(tOpenAna)).wantStatus(t, http.StatusNoContent)
		if c := e.oneCall(t); !reflect.DeepEqual(c.Cmd, engine.Delete{}) || c.Ticket != tOpenAna {
			t.Fatalf("command %+v", c)
		}
		if _, ok := e.w.view(tOpenAna); ok {
			t.Fatal("the read model still has the ticket: the handler did not wait")
		}
		e.get(admin, "/tickets/"+id(tOpenAna)).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
		e.del(admin, "/tickets/"+id(tOpenAna)).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
	})
}

func TestCreateTicket(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		ana, bruno := e.ids["ana"], e.ids["bruno"]
		t.Run("opens and answers the new ticket", func(t *testing.T) {
			e.fixtures(t)
			r := e.post(e.tok("ana"), "/tickets", map[string]any{"contactId": 77, "userId": ana, "status": "open"})
			r.wantStatus(t, http.StatusCreated)
			want := engine.OpenTicketInput{ContactID: 77, UserID: ana, Status: "open"}
			if len(e.w.opens) != 1 || e.w.opens[0] != want {
				t.Fatalf("opens %+v, want %+v", e.w.opens, want)
			}
			var tk engine.Ticket
			r.json(t, &tk)
			if tk.ID == 0 || tk.ContactID != 77 || tk.Status != "open" || tk.User == nil || tk.User.Name != "Ana User" {
				t.Fatalf("answer %s", r.Body)
			}
			e.post(e.tok("ana"), "/tickets", map[string]any{"contactId": 77, "userId": ana, "status": "open"}).
				wantErr(t, http.StatusConflict, engine.ErrOtherOpenTicket)
		})
		inputs := []struct {
			name string
			as   string
			body map[string]any
			want engine.OpenTicketInput
		}{
			{"status and user default to open for the caller", "ana", map[string]any{"contactId": "78"},
				engine.OpenTicketInput{ContactID: 78, UserID: ana, Status: "open"}},
			{"pending in a queue on a connection", "ana", map[string]any{"contactId": 79, "status": "pending", "userId": nil, "queueId": 11, "whatsappId": 1},
				engine.OpenTicketInput{ContactID: 79, Status: "pending", QueueID: 11, ConnectionID: 1}},
			{"a supervisor opens for another", "superv", map[string]any{"contactId": 80, "userId": bruno, "status": "open"},
				engine.OpenTicketInput{ContactID: 80, UserID: bruno, Status: "open"}},
		}
		for _, tc := range inputs {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				e.post(e.tok(tc.as), "/tickets", tc.body).wantStatus(t, http.StatusCreated)
				if len(e.w.opens) != 1 || e.w.opens[0] != tc.want {
					t.Fatalf("opens %+v, want %+v", e.w.opens, tc.want)
				}
			})
		}
		refused := []struct {
			name   string
			as     string
			body   any
			status int
			code   engine.Code
			field  string
			asked  bool
		}{
			{"no contact", "ana", map[string]any{"status": "open"}, 400, engine.ErrValidation, "contactId", false},
			{"bad contact", "ana", map[string]any{"contactId": -1}, 400, engine.ErrValidation, "contactId", false},
			{"born closed", "ana", map[string]any{"contactId": 1, "status": "closed"}, 400, engine.ErrValidation, "status", false},
			{"pending with a user", "ana", map[string]any{"contactId": 1, "status": "pending", "userId": ana}, 400, engine.ErrValidation, "userId", false},
			{"another tenant's user", "superv", map[string]any{"contactId": 1, "userId": e.ids["user2"]}, 404, engine.ErrNoUserFound, "", false},
			{"another tenant's queue", "ana", map[string]any{"contactId": 1, "queueId": 21}, 404, engine.ErrNoQueueFound, "", false},
			{"a user opens for another", "ana", map[string]any{"contactId": 1, "userId": bruno}, 403, engine.ErrNoPermission, "", true},
			{"a user opens outside their queues", "ana", map[string]any{"contactId": 1, "queueId": 12}, 403, engine.ErrNoPermission, "", true},
			{"malformed", "ana", `{"contactId":1`, 400, engine.ErrInvalidJSON, "", false},
			{"contact id as an object", "ana", `{"contactId":{"id":1}}`, 400, engine.ErrValidation, "contactId", false},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				e.fixtures(t)
				b := e.post(e.tok(tc.as), "/tickets", tc.body).wantErr(t, tc.status, tc.code)
				if tc.field != "" && b.Fields[tc.field] == "" {
					t.Fatalf("fields %v, want %s", b.Fields, tc.field)
				}
				if (len(e.w.opens) == 1) != tc.asked {
					t.Fatalf("opens %+v, asked %v", e.w.opens, tc.asked)
				}
			})
		}
	})
}

func TestTicketHistory(t *testing.T) {
	eachTicketEnv(t, func(t *testing.T, e *ticketEnv) {
		ctx := context.Background()
		ana, bruno := e.ids["ana"], e.ids["bruno"]
		at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		appendEvents := func(ticket, company engine.ID, evs ...engine.TicketEvent) {
			t.Helper()
			var data []engine.EventData
			for _, ev := range evs {
				typ, b, err := engine.EncodeTicketEvent(ev)
				if err != nil {
					t.Fatal(err)
				}
				data = append(data, engine.EventData{Type: typ, Data: b})
			}
			if _, err := e.journal.Append(ctx, company, "ticket/"+id(ticket), engine.AnyVersion, data...); err != nil {
				t.Fatal(err)
			}
		}
		appendEvents(301, co1,
			engine.TicketOpened{TicketID: 301, UUID: "u", CompanyID: co1, ContactID: 9, ConnectionID: 1, Channel: "whatsapp", QueueID: 11, Status: "pending", At: at},
			engine.TicketMessageReceived{MessageID: 1, ProviderID: "x", Body: "oi", At: at.Add(time.Minute)},
			engine.TicketAccepted{UserID: ana, QueueID: 11, At: at.Add(2 * time.Minute)},
			engine.TicketTransferred{FromUserID: ana, ToUserID: bruno, FromQueueID: 11, ToQueueID: 12, FromConnectionID: 1, ToConnectionID: 1,
				FromStatus: "open", ToStatus: "open", At: at.Add(3 * time.Minute)},
			engine.TicketTagsSet{TagIDs: []engine.ID{1}, At: at.Add(4 * time.Minute)},
			engine.TicketResolved{UserID: bruno, QueueID: 12, At: at.Add(5 * time.Minute)},
		)
		appendEvents(302, co1,
			engine.TicketOpened{TicketID: 302, UUID: "v", CompanyID: co1, ContactID: 9, ConnectionID: 1, Channel: "whatsapp", Status: "pending", At: at},
			engine.TicketDeleted{At: at.Add(time.Minute)},
		)
		appendEvents(303, co2,
			engine.TicketOpened{TicketID: 303, UUID: "w", CompanyID: co2, ContactID: 9, ConnectionID: 2, Channel: "whatsapp", Status: "pending", At: at},
		)

		r := e.post(e.tok("bruno"), "/tickets/301", nil)
		r.wantStatus(t, http.StatusOK)
		var got []engine.HistoryEntry
		r.json(t, &got)
		want := []engine.HistoryEntry{
			{ID: 1, CreatedAt: at, Action: "create", NewQueueName: "Vendas"},
			{ID: 3, CreatedAt: at.Add(2 * time.Minute), Action: "accept", NewUserName: "Ana User", OldQueueName: "Vendas", NewQueueName: "Vendas"},
			{ID: 4, CreatedAt: at.Add(3 * time.Minute), Action: "transfer", OldUserName: "Ana User", NewUserName: "Bruno Plus", OldQueueName: "Vendas", NewQueueName: "Suporte"},
			{ID: 6, CreatedAt: at.Add(5 * time.Minute), Action: "resolve", OldUserName: "Bruno Plus", NewUserName: "Bruno Plus", OldQueueName: "Suporte", NewQueueName: "Suporte"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("history\n got %+v\nwant %+v", got, want)
		}
		for _, tc := range []struct{ name, as, path string }{
			{"another tenant's ticket", "ana", "/tickets/303"},
			{"asked from another tenant", "admin2", "/tickets/301"},
			{"a deleted ticket", "admin", "/tickets/302"},
			{"no such ticket", "ana", "/tickets/399"},
			{"not an id", "ana", "/tickets/x"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.post(e.tok(tc.as), tc.path, nil).wantErr(t, http.StatusNotFound, engine.ErrNoTicketFound)
			})
		}
	})
}
