package readmodel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

type listCase struct {
	name      string
	p         engine.Principal
	q         engine.TicketQuery
	want      []engine.ID // in order
	wantCount int         // -1: len(want)
}

func runListCases(t *testing.T, w *world, cases []listCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := list(t, w, c.p, c.q)
			got := ids(page.Tickets)
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("tickets = %v, want %v", got, c.want)
			}
			count := c.wantCount
			if count < 0 {
				count = len(c.want)
			}
			if page.Count != count || page.CountCapped || page.HasMore || page.NextCursor != "" {
				t.Fatalf("count %d capped %v hasMore %v cursor %q; want count %d, one page", page.Count,
					page.CountCapped, page.HasMore, page.NextCursor, count)
			}
		})
	}
}

func TestListTicketsVisibilityAndFilters(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		seedInbox(w)
		open, pending, closed := engine.StatusOpen, engine.StatusPending, engine.StatusClosed
		runListCases(t, w, []listCase{
			// Open tab: without show-all, one's own tickets.
			{"admin open mine", alice, engine.TicketQuery{Status: open}, nil, -1},
			{"admin open showAll", alice, engine.TicketQuery{Status: open, ShowAll: true}, []engine.ID{9, 6, 5, 4}, -1},
			{"superv open showAll", sergio, engine.TicketQuery{Status: open, ShowAll: true}, []engine.ID{9, 6, 5, 4}, -1},
			{"user open", ana, engine.TicketQuery{Status: open}, []engine.ID{6, 5}, -1},
			{"user showAll ignored", ana, engine.TicketQuery{Status: open, ShowAll: true}, []engine.ID{6, 5}, -1},
			{"user open bia", bia, engine.TicketQuery{Status: open}, []engine.ID{9, 4}, -1},
			// Pending tab: the user's queues and no queue; showall profiles see all.
			{"admin pending", alice, engine.TicketQuery{Status: pending}, []engine.ID{3, 2, 1}, -1},
			{"superv pending", sergio, engine.TicketQuery{Status: pending}, []engine.ID{3, 2, 1}, -1},
			{"user pending", ana, engine.TicketQuery{Status: pending}, []engine.ID{3, 1}, -1},
			{"user pending bia", bia, engine.TicketQuery{Status: pending}, []engine.ID{3, 2}, -1},
			{"user pending showAll ignored", bia, engine.TicketQuery{Status: pending, ShowAll: true}, []engine.ID{3, 2}, -1},
			// Closed tab: everybody sees all.
			{"user closed", ana, engine.TicketQuery{Status: closed}, []engine.ID{8, 7}, -1},
			{"admin closed", alice, engine.TicketQuery{Status: closed}, []engine.ID{8, 7}, -1},
			// All statuses: the union of the three tabs.
			{"user all", ana, engine.TicketQuery{}, []engine.ID{8, 7, 6, 5, 3, 1}, -1},
			{"admin all showAll", alice, engine.TicketQuery{ShowAll: true}, []engine.ID{9, 8, 7, 6, 5, 4, 3, 2, 1}, -1},
			// Queue filter: no-queue tickets and one's own always pass.
			{"admin pending queue 11", alice, engine.TicketQuery{Status: pending, QueueIDs: []engine.ID{11}}, []engine.ID{3, 2}, -1},
			{"admin open showAll queue 10", alice, engine.TicketQuery{Status: open, ShowAll: true, QueueIDs: []engine.ID{10}}, []engine.ID{9, 5}, -1},
			{"user open queue filter keeps own", ana, engine.TicketQuery{Status: open, QueueIDs: []engine.ID{10}}, []engine.ID{6, 5}, -1},
			{"user pending queue subset", bia, engine.TicketQuery{Status: pending, QueueIDs: []engine.ID{12}}, []engine.ID{3}, -1},
			{"user pending foreign queue", bia, engine.TicketQuery{Status: pending, QueueIDs: []engine.ID{10}}, []engine.ID{3}, -1},
			{"closed queue 12", ana, engine.TicketQuery{Status: closed, QueueIDs: []engine.ID{12}}, []engine.ID{8}, -1},
			{"closed queue 11 keeps own", alice, engine.TicketQuery{Status: closed, QueueIDs: []engine.ID{11}}, []engine.ID{7}, -1},
			// Attendant filter narrows.
			{"admin open showAll users ana", alice, engine.TicketQuery{Status: open, ShowAll: true, UserIDs: []engine.ID{2}}, []engine.ID{6, 5}, -1},
			{"admin closed users alice", alice, engine.TicketQuery{Status: closed, UserIDs: []engine.ID{1}}, []engine.ID{7}, -1},
			{"user open users other", ana, engine.TicketQuery{Status: open, UserIDs: []engine.ID{3}}, nil, -1},
			{"users and queues", alice, engine.TicketQuery{Status: open, ShowAll: true, UserIDs: []engine.ID{2, 3}, QueueIDs: []engine.ID{12}}, []engine.ID{9, 4}, -1},
			// Tags: every tag given.
			{"tag urgente", alice, engine.TicketQuery{Status: open, ShowAll: true, TagIDs: []engine.ID{20}}, []engine.ID{5}, -1},
			{"tag vip all", alice, engine.TicketQuery{ShowAll: true, TagIDs: []engine.ID{21}}, []engine.ID{8, 5}, -1},
			{"tags both", alice, engine.TicketQuery{ShowAll: true, TagIDs: []engine.ID{20, 21}}, []engine.ID{5}, -1},
			{"user pending tag", ana, engine.TicketQuery{Status: pending, TagIDs: []engine.ID{20}}, []engine.ID{1}, -1},
			{"foreign tenant's tag", alice, engine.TicketQuery{ShowAll: true, TagIDs: []engine.ID{70}}, nil, -1},
			// Unread.
			{"admin unread", alice, engine.TicketQuery{ShowAll: true, WithUnreadMessages: true}, []engine.ID{9, 5, 3, 2, 1}, -1},
			{"user unread", ana, engine.TicketQuery{WithUnreadMessages: true}, []engine.ID{5, 3, 1}, -1},
			// Date: created that day in Cuiabá.
			{"date 21", alice, engine.TicketQuery{ShowAll: true, Date: "2026-11-21"}, []engine.ID{2, 1}, -1},
			{"date 22", alice, engine.TicketQuery{ShowAll: true, Date: "2026-11-22"}, []engine.ID{9, 8, 7, 6, 5, 4, 3}, -1},
			{"date 22 br", alice, engine.TicketQuery{Status: pending, Date: "22/11/2026"}, []engine.ID{3}, -1},
			{"date 23", alice, engine.TicketQuery{ShowAll: true, Date: "2026-11-23"}, nil, -1},
			// Tenant isolation.
			{"other tenant", outside, engine.TicketQuery{ShowAll: true}, []engine.ID{11}, -1},
			{"other tenant pending", outside, engine.TicketQuery{Status: pending}, []engine.ID{11}, -1},
			{"other tenant queue ids of company 1", outside, engine.TicketQuery{ShowAll: true, QueueIDs: []engine.ID{10, 11}}, nil, -1},
		})
	})
}

func TestSearchPrefixes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		seedInbox(w)
		all := []engine.ID{9, 8, 7, 6, 5, 4, 3, 2, 1}
		search := func(s string) engine.TicketQuery { return engine.TicketQuery{SearchParam: s} }
		runListCases(t, w, []listCase{
			// Plain text and t: — see contactCases.
			// p: protocol prefix.
			{"protocol exact", ana, search("p:20261122-000005"), []engine.ID{5}, -1},
			{"protocol prefix", ana, search("p:20261122-00000"), all, -1},
			{"protocol none", ana, search("p:20251122"), nil, -1},
			{"protocol bad chars", ana, search("p:2026%"), nil, -1},
			// d: created on the day, Cuiabá time.
			{"date iso", ana, search("d:2026-11-21"), []engine.ID{2, 1}, -1},
			{"date br", ana, search("d: 22/11/2026"), []engine.ID{9, 8, 7, 6, 5, 4, 3}, -1},
			{"date malformed", ana, search("d:2026-13-45"), nil, -1},
			{"date partial", ana, search("d:22/11"), nil, -1},
			// m: words in messages: see wordCases.
			// Not prefixes.
			{"unknown prefix is text", ana, search("x:foo"), nil, -1},
			{"colon later is text", ana, search("joao:"), nil, -1},
			// Hostile text.
			{"percent", ana, search("%"), nil, -1},
			{"underscore", ana, search("_"), nil, -1},
			{"backslash", ana, search(`\`), nil, -1},
			{"injection", ana, search("'; DROP TABLE tickets; --"), nil, -1},
			{"injection in word", ana, search("m:' | !bol:* & (x"), nil, -1},
			{"fts syntax in word", ana, search(`m:"boleto" OR NEAR(a b)`), nil, -1},
			{"nul byte", ana, search("jo\x00ao"), nil, -1},
			{"invalid utf8", ana, search("jo\xffao"), nil, -1},
			{"huge", ana, search(strings.Repeat("joao ", 5000)), nil, -1},
			{"just over the limit", ana, search(strings.Repeat("a", engine.MaxSearchParamRunes+1)), nil, -1},
		})
		runListCases(t, w, contactCases(search))
		runListCases(t, w, wordCases(search))
		if d.Dialect == db.Postgres {
			// Both plans of a search give the same tickets (a word walk does not count).
			for _, plan := range []string{"walk", "driven"} {
				t.Run(plan, func(t *testing.T) {
					readmodel.ForceSearchPlan(w.q, plan)
					defer readmodel.ForceSearchPlan(w.q, "")
					for _, c := range append(wordCases(search), contactCases(search)...) {
						page := list(t, w, c.p, c.q)
						if got := ids(page.Tickets); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
							t.Errorf("%s: tickets = %v, want %v", c.name, got, c.want)
						}
						if plan == "walk" && c.q.SearchParam[:2] == "m:" && len(c.want) > 0 &&
							(page.Count != engine.TicketCountCap || !page.CountCapped) {
							t.Errorf("%s: walk count %d capped %v", c.name, page.Count, page.CountCapped)
						}
					}
				})
			}
		}
		// The tables survived the injection attempts.
		if page := list(t, w, alice, engine.TicketQuery{ShowAll: true}); len(page.Tickets) != 9 {
			t.Fatalf("after hostile searches: %v", ids(page.Tickets))
		}
	})
}

// contactCases are the contact searches (plain text and t:) of the inbox fixture.
func contactCases(search func(string) engine.TicketQuery) []listCase {
	return []listCase{
		// Plain text: contact name (accents and case folded), number, e-mail.
		{"name", ana, search("joao"), []engine.ID{9, 1}, -1},
		{"name accents and case", bia, search("  JOÃO da  "), []engine.ID{9, 1}, -1},
		{"surname", ana, search("silva"), []engine.ID{9, 1}, -1},
		{"number", ana, search("5565999990001"), []engine.ID{9, 1}, -1},
		{"formatted number", ana, search("(65) 99999-0001"), []engine.ID{9, 1}, -1},
		{"email", ana, search("joao@example"), []engine.ID{9, 1}, -1},
		{"apostrophe", ana, search("O'Brien"), []engine.ID{3}, -1},
		{"unicode", ana, search("李"), []engine.ID{4}, -1},
		{"unicode folded", ana, search("zoe"), []engine.ID{4}, -1},
		{"search with status", ana, engine.TicketQuery{SearchParam: "maria", Status: engine.StatusClosed}, []engine.ID{8}, -1},
		{"search shows others' open tickets", ana, engine.TicketQuery{SearchParam: "joao", Status: engine.StatusOpen}, []engine.ID{9}, -1},
		// whaticket's search box: plain text also finds the tickets whose messages
		// hold every word (m: is the shortcut for messages only).
		{"whaticket plain text finds messages", ana, search("boleto"), []engine.ID{9, 1}, -1},
		{"whaticket plain words in different messages", ana, search("Obrigado  novembro"), []engine.ID{1}, -1},
		{"whaticket plain prefix of the last word", ana, search("preciso do bol"), []engine.ID{1}, -1},
		{"whaticket plain name or message", ana, search("fernanda"), []engine.ID{6}, -1},
		{"whaticket plain contact or message", ana, search("maria"), []engine.ID{8, 2}, -1},
		{"whaticket plain deleted message not searched", ana, search("xyzzy"), nil, -1},
		{"whaticket plain other tenant", outside, search("boleto"), []engine.ID{11}, -1},
		// t: phone digits.
		{"phone", ana, search("t:65 99999"), []engine.ID{9, 1}, -1},
		{"phone upper-case prefix", ana, search("T:+55 11 97777"), []engine.ID{3}, -1},
		{"phone no digits", ana, search("t:abc"), nil, -1},
	}
}

// wordCases are the m: searches of the inbox fixture.
func wordCases(search func(string) engine.TicketQuery) []listCase {
	return []listCase{
		// m: words in messages.
		{"word", ana, search("m:boleto"), []engine.ID{9, 1}, -1},
		{"word accents case", ana, search("m:BOLETO Novembro"), []engine.ID{1}, -1},
		{"word folded", ana, search("m:olá"), []engine.ID{6, 1}, -1},
		{"word prefix", ana, search("m:bol"), []engine.ID{9, 1}, -1},
		{"word short is whole", ana, search("m:bo"), nil, -1},
		{"word and word", ana, search("m:segunda via"), []engine.ID{9}, -1},
		{"words in different messages", ana, search("m:obrigado novembro"), []engine.ID{1}, -1},
		{"word in two tickets", ana, search("m:obrigado"), []engine.ID{8, 1}, -1},
		{"one word missing", ana, search("m:obrigado segunda"), nil, -1},
		{"deleted message not searched", ana, search("m:xyzzy"), nil, -1},
		{"word punctuation only", ana, search("m:!!!"), nil, -1},
		{"word empty", ana, search("m:"), nil, -1},
		{"word other tenant", outside, search("m:boleto"), []engine.ID{11}, -1},
		{"word of the other tenant", outside, search("m:segunda"), nil, -1},
	}
}

func TestListTicketsRejectsBadQueries(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		seedInbox(w)
		ctx := context.Background()
		for _, c := range []struct {
			name string
			p    engine.Principal
			q    engine.TicketQuery
			code engine.Code
		}{
			{"negative page", ana, engine.TicketQuery{PageNumber: -1}, engine.ErrValidation},
			{"page past the offset limit", ana, engine.TicketQuery{PageNumber: engine.MaxTicketPageNumber + 1}, engine.ErrValidation},
			{"bad status", ana, engine.TicketQuery{Status: "open' OR 1=1"}, engine.ErrValidation},
			{"bad date", ana, engine.TicketQuery{Date: "2026-02-30"}, engine.ErrValidation},
			{"bad tag id", ana, engine.TicketQuery{TagIDs: []engine.ID{-1}}, engine.ErrValidation},
			{"too many queues", ana, engine.TicketQuery{QueueIDs: make([]engine.ID, engine.MaxTicketFilterIDs+1)}, engine.ErrValidation},
			{"garbage cursor", ana, engine.TicketQuery{Cursor: "not-a-cursor!"}, engine.ErrValidation},
			{"message cursor", ana, engine.TicketQuery{Cursor: "bTEuNQ"}, engine.ErrValidation},
			{"huge cursor", ana, engine.TicketQuery{Cursor: strings.Repeat("A", 10000)}, engine.ErrValidation},
			{"no user", engine.Principal{CompanyID: 1, Profile: engine.ProfileAdmin}, engine.TicketQuery{}, engine.ErrNoPermission},
			{"unknown profile", principal(1, 2, "root"), engine.TicketQuery{}, engine.ErrNoPermission},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := w.q.ListTickets(ctx, c.p, c.q)
				wantCode(t, err, c.code)
			})
		}
	})
}

func TestCountsAndUnread(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		seedInbox(w)
		ctx := context.Background()
		for _, c := range []struct {
			name          string
			p             engine.Principal
			q             engine.TicketQuery
			open, pending int
		}{
			{"admin", alice, engine.TicketQuery{}, 0, 3},
			{"admin showAll", alice, engine.TicketQuery{ShowAll: true}, 4, 3},
			{"admin showAll queue 11", alice, engine.TicketQuery{ShowAll: true, QueueIDs: []engine.ID{11}}, 2, 2},
			{"ana", ana, engine.TicketQuery{}, 2, 2},
			{"ana showAll ignored", ana, engine.TicketQuery{ShowAll: true}, 2, 2},
			{"bia", bia, engine.TicketQuery{}, 2, 2},
			{"bia with tag", bia, engine.TicketQuery{TagIDs: []engine.ID{20}}, 0, 0},
			{"ana with tag", ana, engine.TicketQuery{TagIDs: []engine.ID{20}}, 1, 1},
			{"other tenant", outside, engine.TicketQuery{}, 0, 1},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, err := w.q.CountsByStatus(ctx, c.p, c.q)
				if err != nil {
					t.Fatal(err)
				}
				if got.Open != c.open || got.Pending != c.pending || got.Capped {
					t.Fatalf("counts = %+v, want open %d pending %d", got, c.open, c.pending)
				}
			})
		}
		for _, c := range []struct {
			name string
			p    engine.Principal
			want []engine.ID
		}{
			{"ana", ana, []engine.ID{5, 3, 1}},
			{"bia", bia, []engine.ID{9, 3, 2}},
			{"admin", alice, []engine.ID{3, 2, 1}},
			{"other tenant", outside, []engine.ID{11}},
		} {
			t.Run("unread "+c.name, func(t *testing.T) {
				got, err := w.q.UnreadTickets(ctx, c.p)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ids(got), c.want) {
					t.Fatalf("unread = %v, want %v", ids(got), c.want)
				}
				for _, tk := range got {
					if tk.UnreadMessages == 0 || tk.Contact == nil || tk.Contact.Name == "" {
						t.Fatalf("ticket %+v", tk)
					}
				}
			})
		}
		// Reading a ticket clears it from the bell.
		w.do(5, engine.MarkRead{})
		got, err := w.q.UnreadTickets(ctx, ana)
		if err != nil || !slices.Equal(ids(got), []engine.ID{3, 1}) {
			t.Fatalf("after read: %v, %v", ids(got), err)
		}
	})
}

func TestGetTicketTenantAndDeleted(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		seedInbox(w)
		ctx := context.Background()
		for _, c := range []struct {
			name        string
			company, id engine.ID
		}{
			{"other tenant's ticket", 1, 11},
			{"own ticket from the other tenant", 2, 1},
			{"deleted", 1, 10},
			{"missing", 1, 999},
			{"zero", 1, 0},
			{"negative", 1, -5},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := w.q.GetTicket(ctx, c.company, c.id)
				wantCode(t, err, engine.ErrNoTicketFound)
				_, err = w.q.ListMessages(ctx, c.company, c.id, engine.MessageQuery{})
				wantCode(t, err, engine.ErrNoTicketFound)
				_, err = w.q.AllMessages(ctx, c.company, c.id)
				wantCode(t, err, engine.ErrNoTicketFound)
			})
		}
		tk, err := w.q.GetTicket(ctx, 1, 5)
		if err != nil {
			t.Fatal(err)
		}
		if tk.User == nil || tk.User.Name != "Ana" || tk.Queue == nil || tk.Queue.Name != "Vendas" ||
			len(tk.Tags) != 2 || tk.Contact.Name != "Carlos Pereira" || tk.Contact.AppraisalData == nil {
			t.Fatalf("ticket 5 = %+v", tk)
		}
	})
}

// TestWordSearchAcrossChunks: a long conversation's words live in several rows of the
// PostgreSQL index (one per 256 messages); words in different rows still match, and
// deleting the only message with a word drops the match.
func TestWordSearchAcrossChunks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		admin := principal(1, 1, engine.ProfileAdmin)
		w.open(1, 1, 100, 10, 2, "")
		var evs []engine.RecordedEvent
		var bravo engine.ID
		for i := range 300 {
			w.nextMsg++
			body := fmt.Sprintf("linha %d", i)
			switch i {
			case 3:
				body = "alfa"
			case 290:
				body, bravo = "bravo", w.nextMsg
			}
			evs = append(evs, w.decide(1, engine.SendMessage{MessageID: w.nextMsg, SenderID: 2, Body: body})...)
		}
		w.apply(evs)
		w.open(1, 2, 100, 10, 2, "")
		w.send(2, 2, "alfa e bravo", 0)
		plans := []string{""}
		if d.Dialect == db.Postgres {
			plans = append(plans, "walk", "driven")
		}
		check := func(query string, want ...engine.ID) {
			t.Helper()
			for _, plan := range plans {
				readmodel.ForceSearchPlan(w.q, plan)
				page := list(t, w, admin, engine.TicketQuery{SearchParam: query})
				if got := ids(page.Tickets); !slices.Equal(got, want) && len(got)+len(want) > 0 {
					t.Errorf("plan %q: %s = %v, want %v", plan, query, got, want)
				}
			}
			readmodel.ForceSearchPlan(w.q, "")
		}
		check("m:alfa bravo", 2, 1)
		check("m:bravo alfa", 2, 1)
		check("m:linha 299", 1)
		check("m:alfa", 2, 1)
		w.do(1, engine.DeleteMessage{MessageID: bravo, ByUserID: 2})
		check("m:alfa bravo", 2)
		check("m:bravo", 2)
		check("m:linha 289", 1)
		if d.Dialect == db.Postgres {
			if got := queryLines(t, d, `SELECT ticket_id, chunk, multi FROM ticket_words ORDER BY ticket_id, chunk`); got != "1|0|true\n1|1|true\n2|0|false\n" {
				t.Fatalf("ticket_words rows:\n%s", got)
			}
		}
	})
}
