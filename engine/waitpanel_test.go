package engine

import (
	"slices"
	"testing"
	"time"
)

func TestWaitPanelAddPresence(t *testing.T) {
	since := time.Date(2026, 11, 26, 12, 0, 0, 0, time.FixedZone("x", -4*3600))
	w := WaitPanel{
		Queues:     []WaitPanelQueue{{ID: 1}, {ID: 2}, {ID: 0}},
		Attendants: []WaitPanelAttendant{{ID: 10}, {ID: 11}, {ID: 12}},
	}
	w.AddPresence([]PresenceEntry{
		{UserID: 12, QueueIDs: []ID{1, 2}, Since: since},
		{UserID: 10, QueueIDs: []ID{1}, Since: since},
		{UserID: 99, QueueIDs: []ID{2}, Since: since}, // beyond the attendant list
	})
	if !w.Attendants[0].Online || w.Attendants[1].Online || !w.Attendants[2].Online {
		t.Errorf("online flags %+v", w.Attendants)
	}
	if got := w.Attendants[0].OnlineSince; got == nil || !got.Equal(since) || got.Location() != time.UTC {
		t.Errorf("online since %v, want %v in UTC", got, since)
	}
	if w.Attendants[1].OnlineSince != nil {
		t.Errorf("offline attendant has a since")
	}
	if !slices.Equal(w.Queues[0].Online, []ID{10, 12}) || !slices.Equal(w.Queues[1].Online, []ID{12, 99}) {
		t.Errorf("queue online %v %v", w.Queues[0].Online, w.Queues[1].Online)
	}
	if w.Queues[2].Online == nil || len(w.Queues[2].Online) != 0 {
		t.Errorf("no-queue online %v, want empty", w.Queues[2].Online)
	}
}
