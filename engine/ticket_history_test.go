package engine

import (
	"reflect"
	"testing"
	"time"
)

// strictNames fails the test when asked about id 0.
type strictNames struct {
	t *testing.T
	MapNames
}

func (n strictNames) UserName(id ID) string {
	if id == 0 {
		n.t.Error("UserName(0) called")
	}
	return n.MapNames.UserName(id)
}

func (n strictNames) QueueName(id ID) string {
	if id == 0 {
		n.t.Error("QueueName(0) called")
	}
	return n.MapNames.QueueName(id)
}

func TestTicketHistory(t *testing.T) {
	pending := baseOpen
	pending.Status, pending.UserID = StatusPending, 0
	_, evs := build(t,
		pending,                                  // v1 create, pending in Vendas
		ReceiveMessage{MessageID: 1, Body: "oi"}, // v2 (no entry)
		Accept{UserID: 7},                        // v3
		SendMessage{MessageID: 2, SenderID: 7, Body: "olá"}, // v4 (no entry)
		Transfer{UserID: 8, QueueID: 41},                    // v5
		Return{},                                            // v6
		Transfer{QueueID: 40},                               // v7
		Accept{UserID: 9},                                   // v8
		Resolve{},                                           // v9
		Reopen{UserID: 7},                                   // v10
		SetTags{TagIDs: []ID{1}},                            // v11 (no entry)
		Delete{},                                            // v12
	)
	recorded := make([]RecordedTicketEvent, len(evs))
	for i, ev := range evs {
		recorded[i] = RecordedTicketEvent{Version: int64(i + 1), Event: ev}
	}
	names := strictNames{t, MapNames{
		Users:  map[ID]string{7: "Ana", 8: "Bruno", 9: "Carla"},
		Queues: map[ID]string{40: "Vendas", 41: "Suporte"},
	}}
	at := func(v int64) time.Time { return t0.Add(time.Duration(v-1) * time.Minute) }
	want := []HistoryEntry{
		{ID: 1, CreatedAt: at(1), Action: HistoryCreate, NewQueueName: "Vendas"},
		{ID: 3, CreatedAt: at(3), Action: HistoryAccept, NewUserName: "Ana", OldQueueName: "Vendas", NewQueueName: "Vendas"},
		{ID: 5, CreatedAt: at(5), Action: HistoryTransfer, OldUserName: "Ana", NewUserName: "Bruno", OldQueueName: "Vendas", NewQueueName: "Suporte"},
		{ID: 6, CreatedAt: at(6), Action: HistoryReturn, OldUserName: "Bruno", OldQueueName: "Suporte", NewQueueName: "Suporte"},
		{ID: 7, CreatedAt: at(7), Action: HistoryTransfer, OldQueueName: "Suporte", NewQueueName: "Vendas"},
		{ID: 8, CreatedAt: at(8), Action: HistoryAccept, NewUserName: "Carla", OldQueueName: "Vendas", NewQueueName: "Vendas"},
		{ID: 9, CreatedAt: at(9), Action: HistoryResolve, OldUserName: "Carla", NewUserName: "Carla", OldQueueName: "Vendas", NewQueueName: "Vendas"},
		{ID: 10, CreatedAt: at(10), Action: HistoryReopen, OldUserName: "Carla", NewUserName: "Ana", OldQueueName: "Vendas", NewQueueName: "Vendas"},
		{ID: 12, CreatedAt: at(12), Action: HistoryDelete, OldUserName: "Ana", NewUserName: "Ana", OldQueueName: "Vendas", NewQueueName: "Vendas"},
	}
	got := TicketHistory(recorded, names)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}

	t.Run("a slice of the stream stands alone", func(t *testing.T) {
		part := TicketHistory(recorded[8:10], names) // resolve, reopen
		if len(part) != 2 || part[0].OldQueueName != "Vendas" || part[1].NewUserName != "Ana" {
			t.Errorf("got %+v", part)
		}
	})
	t.Run("no names", func(t *testing.T) {
		for _, e := range TicketHistory(recorded, nil) {
			if e.OldUserName != "" || e.NewUserName != "" || e.OldQueueName != "" || e.NewQueueName != "" {
				t.Errorf("entry %+v has names", e)
			}
		}
	})
	t.Run("empty", func(t *testing.T) {
		if got := TicketHistory(nil, names); len(got) != 0 {
			t.Errorf("got %v", got)
		}
	})
}
