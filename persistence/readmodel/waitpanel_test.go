package readmodel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
)

func TestWaitPanel(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		ctx := context.Background()
		w.company(1)
		w.company(2)
		w.queue(1, 11, "Vendas", "#ff0000")
		w.queue(1, 12, "Suporte", "#00ff00")
		w.queue(2, 21, "Other", "#0000ff")
		w.user(1, 5, "Ana", engine.ProfileUser)
		w.user(1, 6, "Bruno", engine.ProfileUser)
		w.user(2, 7, "Other", engine.ProfileUser)
		w.exec(`INSERT INTO user_queues (company_id, user_id, queue_id) VALUES (1, 5, 11), (1, 5, 12), (1, 6, 12)`)
		for id, name := range map[engine.ID]string{101: "Carla", 102: "Davi", 103: "Eva", 104: "Fábio", 105: "Gil", 106: "Hugo", 201: "Iris"} {
			company := engine.ID(1)
			if id > 200 {
				company = 2
			}
			w.contact(company, id, name, "", "")
		}
		w.open(1, 1, 101, 11, 0, "") // pending in Vendas, oldest
		w.open(1, 2, 102, 11, 0, "") // pending in Vendas
		w.open(1, 3, 103, 0, 0, "")  // pending in no queue
		w.open(1, 4, 104, 12, 5, "") // open with Ana in Suporte
		w.open(1, 5, 105, 11, 0, "") // pending, then deleted
		w.do(5, engine.Delete{})
		w.open(1, 6, 106, 12, 6, "") // open with Bruno, returned to pending: waits from the return
		w.open(2, 7, 201, 21, 0, "") // another tenant
		w.do(6, engine.Return{})

		got, err := w.q.WaitPanel(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got.Pending != 4 || got.Open != 1 {
			t.Errorf("pending %d open %d, want 4 and 1", got.Pending, got.Open)
		}
		// Queues by name (Suporte, Vendas), then "no queue".
		if len(got.Queues) != 3 || got.Queues[0].ID != 12 || got.Queues[1].ID != 11 || got.Queues[2].ID != 0 {
			t.Fatalf("queues %+v", got.Queues)
		}
		sup, ven, none := got.Queues[0], got.Queues[1], got.Queues[2]
		if sup.Pending != 1 || sup.Open != 1 || sup.LongestWait == nil || sup.LongestWait.ID != 6 {
			t.Errorf("Suporte %+v", sup)
		}
		if ven.Pending != 2 || ven.Open != 0 || ven.LongestWait == nil || ven.LongestWait.ID != 1 ||
			ven.LongestWait.ContactName != "Carla" || ven.Name != "Vendas" || ven.Color != "#ff0000" {
			t.Errorf("Vendas %+v", ven)
		}
		if none.Pending != 1 || none.LongestWait == nil || none.LongestWait.ID != 3 {
			t.Errorf("no queue %+v", none)
		}
		if !ven.LongestWait.WaitingSince.Equal(w.states[1].UpdatedAt) {
			t.Errorf("waiting since %v, want %v", ven.LongestWait.WaitingSince, w.states[1].UpdatedAt)
		}
		// Waiting: longest first; the deleted and the other tenant's are absent.
		var waiting []engine.ID
		for _, tk := range got.Waiting {
			waiting = append(waiting, tk.ID)
		}
		if !sameIDs(waiting, []engine.ID{1, 2, 3, 6}) {
			t.Errorf("waiting %v, want [1 2 3 6]", waiting)
		}
		if len(got.Attendants) != 2 || got.Attendants[0].Name != "Ana" || got.Attendants[0].Open != 1 ||
			got.Attendants[1].Name != "Bruno" || got.Attendants[1].Open != 0 {
			t.Errorf("attendants %+v", got.Attendants)
		}
		if !sameIDs(got.Attendants[0].QueueIDs, []engine.ID{11, 12}) || !sameIDs(got.Attendants[1].QueueIDs, []engine.ID{12}) {
			t.Errorf("attendant queues %+v", got.Attendants)
		}

		// A tenant with nothing answers empty lists, not nil.
		w.company(3)
		empty, err := w.q.WaitPanel(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		if empty.Queues == nil || empty.Attendants == nil || empty.Waiting == nil || empty.Pending != 0 {
			t.Errorf("empty tenant %+v", empty)
		}
	})
}

// TestWaitPanelPendingSince: a pending ticket waits from the moment it entered pending.
// A customer writing again, or a transfer to another queue, does not restart the
// clock; accepting stops it and a return starts it again.
func TestWaitPanelPendingSince(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		ctx := context.Background()
		w.company(1)
		w.queue(1, 11, "Vendas", "#ff0000")
		w.queue(1, 12, "Suporte", "#00ff00")
		w.user(1, 5, "Ana", engine.ProfileUser)
		for id := engine.ID(101); id <= 104; id++ {
			w.contact(1, id, fmt.Sprintf("C%d", id), "", "")
		}
		w.open(1, 1, 101, 11, 0, "")
		opened1 := w.now
		w.open(1, 2, 102, 11, 0, "")
		opened2 := w.now
		// The customer of ticket 1 writes again, twice, after ticket 2 opened.
		w.receive(1, "alguém aí?")
		w.receive(1, "olá??")
		// Ticket 3: accepted, then returned: it waits from the return.
		w.open(1, 3, 103, 12, 0, "")
		w.do(3, engine.Accept{UserID: 5})
		w.do(3, engine.Return{})
		returned3 := w.now
		// Ticket 4 waits in Suporte, is moved to Vendas: still waiting since its opening.
		w.open(1, 4, 104, 12, 0, "")
		opened4 := w.now
		w.receive(4, "oi")
		w.do(4, engine.Transfer{QueueID: 11})

		got, err := w.q.WaitPanel(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		var waiting []engine.ID
		since := map[engine.ID]time.Time{}
		for _, tk := range got.Waiting {
			waiting = append(waiting, tk.ID)
			since[tk.ID] = tk.WaitingSince
		}
		// Longest first: 1 (not reset by its messages), 2, 3 (from its return), 4 (from its
		// opening, not its message or transfer).
		if want := []engine.ID{1, 2, 3, 4}; !slices.Equal(waiting, want) {
			t.Fatalf("waiting %v, want %v", waiting, want)
		}
		for id, want := range map[engine.ID]time.Time{1: opened1, 2: opened2, 3: returned3, 4: opened4} {
			if !since[id].Equal(want) {
				t.Errorf("ticket %d waiting since %v, want %v", id, since[id], want)
			}
		}
		if !w.states[1].UpdatedAt.After(opened2) {
			t.Fatalf("ticket 1's updatedAt %v should be after ticket 2 opened: the test would prove nothing", w.states[1].UpdatedAt)
		}
		byID := map[engine.ID]engine.WaitPanelQueue{}
		for _, q := range got.Queues {
			byID[q.ID] = q
		}
		if lw := byID[11].LongestWait; lw == nil || lw.ID != 1 || !lw.WaitingSince.Equal(opened1) {
			t.Errorf("Vendas longest wait %+v, want ticket 1 since %v", lw, opened1)
		}
		if lw := byID[12].LongestWait; lw == nil || lw.ID != 3 || !lw.WaitingSince.Equal(returned3) {
			t.Errorf("Suporte longest wait %+v, want ticket 3 since %v", lw, returned3)
		}

		// Accepting clears it: the row's pending_since is NULL and the ticket leaves the list.
		w.do(1, engine.Accept{UserID: 5})
		var n int
		if err := d.SQL.QueryRow(`SELECT COUNT(*) FROM tickets WHERE id = 1 AND pending_since IS NULL`).Scan(&n); err != nil || n != 1 {
			t.Errorf("accepted ticket's pending_since not cleared (%d, %v)", n, err)
		}
		// Returned later, it waits from the new return, behind the others.
		w.do(1, engine.Return{})
		got, err = w.q.WaitPanel(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(got.Waiting); n != 4 || got.Waiting[3].ID != 1 || !got.Waiting[3].WaitingSince.Equal(w.now) {
			t.Errorf("after accept and return: %+v", got.Waiting)
		}
	})
}

// TestPendingSinceBackfill runs migration 0920's backfill over a journal and compares
// it with what the projection computes from the same events.
func TestPendingSinceBackfill(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		w.company(1)
		w.queue(1, 11, "Vendas", "#ff0000")
		w.queue(1, 12, "Suporte", "#00ff00")
		w.user(1, 5, "Ana", engine.ProfileUser)
		w.open(1, 1, 101, 11, 0, "") // pending, the customer writes again
		w.receive(1, "oi")
		w.open(1, 2, 102, 11, 5, "") // opened with Ana, returned, transferred between queues
		w.do(2, engine.Return{})
		w.receive(2, "?")
		w.do(2, engine.Transfer{QueueID: 12})
		w.open(1, 3, 103, 12, 0, "") // accepted: not pending
		w.do(3, engine.Accept{UserID: 5})
		w.open(1, 4, 104, 12, 0, "") // accepted, resolved, reopened, transferred back to pending
		w.do(4, engine.Accept{UserID: 5})
		w.do(4, engine.Resolve{})
		w.do(4, engine.Reopen{UserID: 5})
		w.do(4, engine.Transfer{QueueID: 11})
		w.receive(4, "e agora?")
		for _, ev := range w.log {
			w.exec(`INSERT INTO events (position, stream_id, version, type, data, company_id, recorded_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, ev.Position, ev.StreamID, ev.Version, ev.Type, string(ev.Data), ev.CompanyID, w.ts(ev.RecordedAt))
		}
		want := pendingSince(t, d)
		if len(want) != 3 {
			t.Fatalf("projection's pending_since %v: want tickets 1, 2 and 4", want)
		}
		w.exec(`UPDATE tickets SET pending_since = NULL`)
		ms, err := db.Migrations(d.Dialect)
		if err != nil {
			t.Fatal(err)
		}
		var backfill string
		for _, m := range ms {
			if m.Version == 920 {
				start := strings.Index(m.SQL, "UPDATE tickets")
				end := strings.Index(m.SQL[start:], ";\n")
				backfill = m.SQL[start : start+end]
			}
		}
		if backfill == "" {
			t.Fatal("migration 0920's backfill not found")
		}
		w.exec(backfill)
		got := pendingSince(t, d)
		if len(got) != len(want) {
			t.Fatalf("backfill %v, projection %v", got, want)
		}
		for id, at := range want {
			// SQLite's strftime keeps milliseconds; the fixtures' times are whole seconds.
			if !got[id].Equal(at) {
				t.Errorf("ticket %d: backfill %v, projection %v", id, got[id], at)
			}
		}
	})
}

// pendingSince reads the non-NULL pending_since of every ticket.
func pendingSince(t *testing.T, d *db.DB) map[engine.ID]time.Time {
	t.Helper()
	rows, err := d.SQL.Query(`SELECT id, pending_since FROM tickets WHERE pending_since IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[engine.ID]time.Time{}
	for rows.Next() {
		var id engine.ID
		var at any
		if err := rows.Scan(&id, &at); err != nil {
			t.Fatal(err)
		}
		switch v := at.(type) {
		case time.Time:
			out[id] = v.UTC()
		case string:
			p, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				t.Fatal(err)
			}
			out[id] = p
		default:
			t.Fatalf("pending_since %T", at)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
