package readmodel_test

import (
	"context"
	"testing"

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
