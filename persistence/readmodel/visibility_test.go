package readmodel_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"atende/engine"
	"atende/engine/visibilitytest"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/readmodel"
)

// seedVisibility projects visibilitytest.Tickets into company 1 through the engine's
// own commands, plus a pending ticket with no queue in company 2 that no principal of
// company 1 may ever list, and checks that each ticket reads back as generated.
func seedVisibility(t *testing.T, w *world) []engine.Ticket {
	t.Helper()
	w.company(1)
	w.company(2)
	for _, u := range []engine.ID{1, 2, 3} {
		w.user(1, u, fmt.Sprintf("Atendente %d", u), engine.ProfileUser)
	}
	for _, q := range visibilitytest.Queues[1:] {
		w.queue(1, q, fmt.Sprintf("Fila %d", q), fmt.Sprintf("#3366%02d", q))
	}
	w.contact(1, 100, "Cliente Um", "5565999990001", "")
	w.contact(2, 200, "Cliente Outro", "5565999990002", "")
	proto := func(id engine.ID) string { return fmt.Sprintf("20261122-%06d", id) }
	want := visibilitytest.Tickets()
	for _, tk := range want {
		switch tk.Status {
		case engine.StatusPending:
			w.open(1, tk.ID, 100, tk.QueueID, 0, proto(tk.ID))
		default:
			w.open(1, tk.ID, 100, tk.QueueID, tk.UserID, proto(tk.ID))
		}
		if tk.UnreadMessages > 0 {
			w.receive(tk.ID, "mensagem")
		}
		for _, g := range tk.Guests {
			w.do(tk.ID, engine.Invite{UserID: g, ByUserID: 9, ToName: "Convidado", FromName: "Quem convida"})
			w.do(tk.ID, engine.AcceptInvite{UserID: g, Name: "Convidado"})
		}
		if tk.Status == engine.StatusClosed {
			w.do(tk.ID, engine.Resolve{})
		}
	}
	w.open(2, 1000, 200, 0, 0, proto(1000))
	w.receive(1000, "mensagem")
	for _, tk := range want {
		got, err := w.q.GetTicket(context.Background(), 1, tk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != tk.Status || got.QueueID != tk.QueueID || got.UserID != tk.UserID || (got.UnreadMessages > 0) != (tk.UnreadMessages > 0) ||
			!slices.Equal(got.Guests, tk.Guests) {
			t.Fatalf("ticket %d reads back as %s queue %d user %d unread %d guests %v, generated %+v",
				tk.ID, got.Status, got.QueueID, got.UserID, got.UnreadMessages, got.Guests, tk)
		}
	}
	return want
}

// listAll reads every page of a ticket list.
func listAll(t *testing.T, w *world, p engine.Principal, q engine.TicketQuery) ([]engine.ID, engine.TicketPage) {
	t.Helper()
	var out []engine.ID
	first := engine.TicketPage{}
	for page := 0; ; page++ {
		pg := list(t, w, p, q)
		if page == 0 {
			first = pg
		}
		out = append(out, ids(pg.Tickets)...)
		if !pg.HasMore {
			return out, first
		}
		if page > 10 {
			t.Fatalf("%+v: more than 10 pages", q)
		}
		q.Cursor = pg.NextCursor
	}
}

// TestScopesAgreeWithSeesTicket runs the read model's SQL visibility over every
// generated principal and query, on both databases, and fails on any ticket where it
// differs from engine.ListsTicket, the list rule written on engine.SeesTicket (which
// engine's TestListsTicketWithinSeesTicket holds within SeesTicket): the scopes as one
// predicate (counts, the unread list) and as index walks (the lists), each as one
// SELECT (each distinct SQL once); and, for a share of the combinations, the whole
// ListTickets (every page, and its count), CountsByStatus and UnreadTickets.
func TestScopesAgreeWithSeesTicket(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		tickets := seedVisibility(t, w)
		expect := func(p engine.Principal, q engine.TicketQuery, searching bool) []engine.ID {
			var out []engine.ID
			for _, tk := range tickets {
				if engine.ListsTicket(p, q, searching, tk) {
					out = append(out, tk.ID)
				}
			}
			return out
		}
		failures := 0
		report := func(format string, args ...any) {
			t.Helper()
			t.Errorf(format, args...)
			if failures++; failures >= 10 {
				t.FailNow()
			}
		}
		// matrix reads, per query of qs, the ids each of the two SQL forms admits.
		matrix := func(p engine.Principal, qs []engine.TicketQuery, searching bool) (byPredicate, byWalks [][]engine.ID) {
			query, args, err := readmodel.VisibilityMatrixQuery(w.q, p, qs, searching)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := d.SQL.Query(query, args...)
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			defer rows.Close()
			byPredicate, byWalks = make([][]engine.ID, len(qs)), make([][]engine.ID, len(qs))
			cells := make([]int, 1+2*len(qs))
			dest := make([]any, len(cells))
			for i := range cells {
				dest[i] = &cells[i]
			}
			for rows.Next() {
				if err := rows.Scan(dest...); err != nil {
					t.Fatal(err)
				}
				for i := range qs {
					if cells[1+2*i] == 1 {
						byPredicate[i] = append(byPredicate[i], engine.ID(cells[0]))
					}
					if cells[2+2*i] == 1 {
						byWalks[i] = append(byWalks[i], engine.ID(cells[0]))
					}
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return byPredicate, byWalks
		}
		who := func(p engine.Principal) string {
			return fmt.Sprintf("%s user %d queues %v", p.Profile, p.UserID, p.QueueIDs)
		}
		listed := 0
		queries := visibilitytest.Queries()
		// Many principals share a scope's SQL (profiles of the same showall, a search's
		// whole tenant): each distinct SQL, with its arguments, runs once.
		type answer struct{ byPredicate, byWalks []engine.ID }
		answers := map[string]answer{}
		key := func(p engine.Principal, q engine.TicketQuery, searching bool) string {
			return readmodel.VisibilityKey(p, q, searching)
		}
		const batch = 16 // queries per SELECT
		for pi, p := range visibilitytest.Principals(1) {
			for _, searching := range []bool{false, true} {
				var todo []engine.TicketQuery
				var keys []string
				run := func() {
					byPredicate, byWalks := matrix(p, todo, searching)
					for i, k := range keys {
						answers[k] = answer{byPredicate[i], byWalks[i]}
					}
					todo, keys = todo[:0], keys[:0]
				}
				for _, q := range queries {
					k := key(p, q, searching)
					if _, done := answers[k]; done || slices.Contains(keys, k) {
						continue
					}
					todo, keys = append(todo, q), append(keys, k)
					if len(todo) == batch {
						run()
					}
				}
				if len(todo) > 0 {
					run()
				}
				for _, q := range queries {
					want := expect(p, q, searching)
					listed += len(want)
					got := answers[key(p, q, searching)]
					if !sameIDs(got.byPredicate, want) {
						report("%s, %+v, searching %v, predicate:\n got %v\nwant %v", who(p), q, searching, sorted(got.byPredicate), want)
					}
					if !sameIDs(got.byWalks, want) {
						report("%s, %+v, searching %v, index walks:\n got %v\nwant %v", who(p), q, searching, sorted(got.byWalks), want)
					}
				}
			}
			for qi, q := range queries {
				// The whole read path, for one combination in 48 (a different share
				// of the queries for each principal).
				if (pi+qi)%48 != 0 {
					continue
				}
				got, first := listAll(t, w, p, q)
				want := expect(p, q, false)
				if !sameIDs(got, want) {
					report("ListTickets %s, %+v:\n got %v\nwant %v", who(p), q, sorted(got), want)
				}
				if !first.CountCapped && first.Count != len(want) {
					report("ListTickets %s, %+v: count %d, want %d", who(p), q, first.Count, len(want))
				}
				sq := q
				sq.SearchParam = "p:20261122"
				if got, _ := listAll(t, w, p, sq); !sameIDs(got, expect(p, q, true)) {
					report("ListTickets %s, search %+v:\n got %v\nwant %v", who(p), sq, sorted(got), expect(p, q, true))
				}
				if !q.WithUnreadMessages {
					counts, err := w.q.CountsByStatus(context.Background(), p, q)
					if err != nil {
						t.Fatal(err)
					}
					for status, got := range map[string]int{engine.StatusOpen: counts.Open, engine.StatusPending: counts.Pending} {
						cq := q
						cq.Status = status
						if want := len(expect(p, cq, false)); got != want && !counts.Capped {
							report("CountsByStatus %s, %+v: %s %d, want %d", who(p), q, status, got, want)
						}
					}
				}
			}
			unread, err := w.q.UnreadTickets(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if want := expect(p, engine.TicketQuery{WithUnreadMessages: true}, false); !sameIDs(ids(unread), want) {
				report("UnreadTickets %s:\n got %v\nwant %v", who(p), sorted(ids(unread)), want)
			}
		}
		if listed == 0 {
			t.Fatal("no list showed any ticket")
		}
	})
}

func sorted(ids []engine.ID) []engine.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
