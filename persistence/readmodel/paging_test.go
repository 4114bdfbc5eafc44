package readmodel_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

// bulkOpen decides n pending tickets from id first on, alternating queues 10 and 11,
// tagging every third, and applies them in one batch.
func bulkOpen(w *world, first engine.ID, n int) {
	w.t.Helper()
	var evs []engine.RecordedEvent
	for i := range n {
		id := first + engine.ID(i)
		evs = append(evs, w.decide(id, engine.OpenTicket{TicketID: id, UUID: fmt.Sprint(id), CompanyID: 1, ContactID: 100,
			ConnectionID: 1, Channel: engine.ChannelWhatsApp, QueueID: engine.ID(10 + i%2), Status: engine.StatusPending})...)
		if i%3 == 0 {
			evs = append(evs, w.decide(id, engine.SetTags{TagIDs: []engine.ID{20}})...)
		}
	}
	w.apply(evs)
}

// TestKeysetPagingWhileTicketsArrive pages through every list shape with the cursor
// while new tickets arrive and old ones move to the top between pages: no ticket is
// seen twice, and every ticket that stayed put is seen.
func TestKeysetPagingWhileTicketsArrive(t *testing.T) {
	user := principal(1, 2, engine.ProfileUser, 10, 11)
	for _, c := range []struct {
		name string
		p    engine.Principal
		q    engine.TicketQuery
	}{
		{"single walk", principal(1, 1, engine.ProfileAdmin), engine.TicketQuery{Status: engine.StatusPending}},
		{"one walk per queue", user, engine.TicketQuery{Status: engine.StatusPending}},
		{"tag filter", principal(1, 1, engine.ProfileAdmin), engine.TicketQuery{Status: engine.StatusPending, TagIDs: []engine.ID{20}}},
		{"all statuses", user, engine.TicketQuery{}},
		{"contact search", principal(1, 1, engine.ProfileAdmin), engine.TicketQuery{SearchParam: "joao"}},
		{"date search", user, engine.TicketQuery{SearchParam: "d:22/11/2026", Status: engine.StatusPending}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dbtest.Each(t, func(t *testing.T, d *db.DB) {
				w := newWorld(t, d)
				baseTenant(w)
				w.queue(1, 12, "Outra", "#0000ff")
				bulkOpen(w, 1, 150)
				first := list(t, w, c.p, c.q)
				want := map[engine.ID]bool{}
				all := first.Count
				for id := engine.ID(1); id <= 150; id++ {
					if c.q.TagIDs == nil || (id-1)%3 == 0 {
						want[id] = true
					}
				}
				if all != len(want) {
					t.Fatalf("count = %d, want %d", all, len(want))
				}
				seen := map[engine.ID]bool{}
				moved := map[engine.ID]bool{}
				page, next := first, engine.ID(1000)
				for pages := 1; ; pages++ {
					if pages > 10 {
						t.Fatal("paging does not end")
					}
					if len(page.Tickets) > engine.TicketPageSize {
						t.Fatalf("page of %d", len(page.Tickets))
					}
					for _, tk := range page.Tickets {
						if seen[tk.ID] {
							t.Fatalf("ticket %d seen twice (page %d)", tk.ID, pages)
						}
						seen[tk.ID] = true
					}
					if !page.HasMore {
						if page.NextCursor != "" {
							t.Fatal("cursor on the last page")
						}
						break
					}
					// Meanwhile: two new tickets, and an old unseen one gets a message
					// (it moves to the top, above the cursor).
					bulkOpen(w, next, 2)
					next += 2
					for id := engine.ID(1); id <= 150; id++ {
						if want[id] && !seen[id] && !moved[id] {
							moved[id] = true
							w.receive(id, "subiu")
							break
						}
					}
					q := c.q
					q.Cursor = page.NextCursor
					page = list(t, w, c.p, q)
				}
				for id := range want {
					if !seen[id] && !moved[id] {
						t.Errorf("ticket %d never listed", id)
					}
				}
				for id := range seen {
					if id >= 1000 {
						t.Errorf("ticket %d, created after the first page, listed below the cursor", id)
					}
				}
			})
		})
	}
}

// TestPageNumberMatchesCursor: without arrivals, pageNumber pages and cursor pages are
// the same pages.
func TestPageNumberMatchesCursor(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		bulkOpen(w, 1, 130)
		for _, p := range []engine.Principal{principal(1, 1, engine.ProfileAdmin), principal(1, 2, engine.ProfileUser, 10, 11)} {
			var byCursor, byNumber []engine.ID
			page := list(t, w, p, engine.TicketQuery{Status: engine.StatusPending})
			for n := 1; ; n++ {
				byCursor = append(byCursor, ids(page.Tickets)...)
				numbered := list(t, w, p, engine.TicketQuery{Status: engine.StatusPending, PageNumber: n})
				byNumber = append(byNumber, ids(numbered.Tickets)...)
				if numbered.HasMore != page.HasMore || numbered.Count != 130 {
					t.Fatalf("page %d: hasMore %v/%v count %d", n, numbered.HasMore, page.HasMore, numbered.Count)
				}
				if !page.HasMore {
					break
				}
				page = list(t, w, p, engine.TicketQuery{Status: engine.StatusPending, Cursor: page.NextCursor})
			}
			if !slices.Equal(byCursor, byNumber) || len(byCursor) != 130 {
				t.Fatalf("%s: cursor pages %v\nnumbered pages %v", p.Profile, byCursor, byNumber)
			}
			want := slices.Clone(byCursor)
			slices.SortFunc(want, func(a, b engine.ID) int { return int(b - a) })
			if !slices.Equal(byCursor, want) {
				t.Fatalf("not newest first: %v", byCursor)
			}
			empty := list(t, w, p, engine.TicketQuery{Status: engine.StatusPending, PageNumber: 9})
			if len(empty.Tickets) != 0 || empty.HasMore {
				t.Fatalf("page past the end: %v", ids(empty.Tickets))
			}
		}
	})
}

// TestCountCapped: filtered counts stop at TicketCountCap; tab counts stay exact.
func TestCountCapped(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		baseTenant(w)
		bulkOpen(w, 1, 3*engine.TicketCountCap+30)
		admin := principal(1, 1, engine.ProfileAdmin)
		page := list(t, w, admin, engine.TicketQuery{Status: engine.StatusPending, TagIDs: []engine.ID{20}})
		if page.Count != engine.TicketCountCap || !page.CountCapped || len(page.Tickets) != engine.TicketPageSize {
			t.Fatalf("tag filter: count %d capped %v", page.Count, page.CountCapped)
		}
		page = list(t, w, admin, engine.TicketQuery{Status: engine.StatusPending})
		if page.Count != 3*engine.TicketCountCap+30 || page.CountCapped {
			t.Fatalf("tab: count %d capped %v", page.Count, page.CountCapped)
		}
		counts, err := w.q.CountsByStatus(context.Background(), admin, engine.TicketQuery{TagIDs: []engine.ID{20}})
		if err != nil || !counts.Capped || counts.Pending != engine.TicketCountCap {
			t.Fatalf("counts %+v, %v", counts, err)
		}
	})
}

// TestMessagePages: 20 per page, newest page first, oldest to newest within a page;
// cursor and page number agree; whispers and deleted messages included.
func TestMessagePages(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		w := newWorld(t, d)
		baseTenant(w)
		w.open(1, 1, 100, 10, 2, "")
		var all []engine.ID
		for i := range 45 {
			switch i % 3 {
			case 0:
				all = append(all, w.receive(1, fmt.Sprintf("cliente %d", i)))
			case 1:
				all = append(all, w.send(1, 2, fmt.Sprintf("atendente %d", i), all[len(all)-1]))
			default:
				w.nextMsg++
				w.do(1, engine.AddWhisper{MessageID: w.nextMsg, SenderID: 2, Body: fmt.Sprintf("nota %d", i)})
				all = append(all, w.nextMsg)
			}
		}
		w.do(1, engine.DeleteMessage{MessageID: all[1], ByUserID: 2})
		wantPages := [][]engine.ID{all[25:], all[5:25], all[:5]}
		page, err := w.q.ListMessages(ctx, 1, 1, engine.MessageQuery{})
		for n := 1; n <= 3; n++ {
			if err != nil {
				t.Fatal(err)
			}
			numbered, err := w.q.ListMessages(ctx, 1, 1, engine.MessageQuery{PageNumber: n})
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range []engine.MessagePage{page, numbered} {
				var gotIDs []engine.ID
				for _, m := range got.Messages {
					gotIDs = append(gotIDs, m.ID)
				}
				if !slices.Equal(gotIDs, wantPages[n-1]) || got.HasMore != (n < 3) {
					t.Fatalf("page %d = %v hasMore %v, want %v", n, gotIDs, got.HasMore, wantPages[n-1])
				}
			}
			if n < 3 {
				if page, err = w.q.ListMessages(ctx, 1, 1, engine.MessageQuery{Cursor: page.NextCursor}); err != nil {
					t.Fatal(err)
				}
			}
		}
		first := page.Messages[1] // all[1]: a reply quoting all[0], deleted
		if first.ID != all[1] || !first.IsDeleted || first.QuotedMsg == nil || first.QuotedMsg.ID != all[0] ||
			first.QuotedMsg.ContactName != "João da Silva" || first.SenderID != 2 {
			t.Fatalf("message %+v quoted %+v", first, first.QuotedMsg)
		}
		if whisper := page.Messages[2]; whisper.MediaType != engine.MediaWhisper || whisper.Body != "nota 2" {
			t.Fatalf("whisper %+v", whisper)
		}
		everything, err := w.q.AllMessages(ctx, 1, 1)
		if err != nil || len(everything) != 45 || everything[0].ID != all[0] || everything[44].ID != all[44] {
			t.Fatalf("all messages: %d, %v", len(everything), err)
		}
		for _, c := range []struct {
			name string
			q    engine.MessageQuery
		}{
			{"negative page", engine.MessageQuery{PageNumber: -1}},
			{"page too deep", engine.MessageQuery{PageNumber: engine.MaxMessagePageNumber + 1}},
			{"bad cursor", engine.MessageQuery{Cursor: "%%%"}},
			{"ticket cursor", engine.MessageQuery{Cursor: "dDEuMS4x"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := w.q.ListMessages(ctx, 1, 1, c.q)
				wantCode(t, err, engine.ErrValidation)
			})
		}
		empty, err := w.q.ListMessages(ctx, 1, 1, engine.MessageQuery{PageNumber: 4})
		if err != nil || len(empty.Messages) != 0 || empty.HasMore {
			t.Fatalf("page past the end: %+v, %v", empty, err)
		}
	})
}
