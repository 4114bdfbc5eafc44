package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// slotBookingRace creates racers bookings for one slot at once, spread over stores
// (one per node), and answers the bookings that won. Every loser must be refused
// with ErrSlotTaken.
func slotBookingRace(t *testing.T, stores []*store.Bookings, userID, slotID engine.ID, racers int) []engine.Booking {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		won   []engine.Booking
		start = make(chan struct{})
	)
	for i := range racers {
		wg.Add(1)
		go func(s *store.Bookings) {
			defer wg.Done()
			in := bkInput(userID, "Consulta", "2026-11-23", "07:00")
			in.SlotID = slotID
			<-start
			b, err := s.Create(context.Background(), refA, in)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, b)
			case engine.CodeOf(err) != engine.ErrSlotTaken:
				t.Errorf("book slot %d: %v", slotID, err)
			}
		}(stores[i%len(stores)])
	}
	close(start)
	wg.Wait()
	return won
}

// bookingCount is how many bookings tenant A has: a refused booking must leave none
// behind.
func bookingCount(t *testing.T, d *db.DB) int {
	t.Helper()
	var n int
	if err := d.SQL.QueryRow(`SELECT COUNT(*) FROM bookings WHERE company_id = $1`, refA).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A booking that names a slot takes it in its own transaction: its time and position
// come from the slot, a second booking of the slot is refused and leaves nothing
// written, cancelling frees the slot, concluding keeps it.
func TestBookingTakesSlot(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		f := bkSetup(t, d)
		bk := store.NewBookings(d, refClock)
		if _, err := f.s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry([]string{"2026-11-23 07:00", "2026-11-23 07:30"}, nil)}); err != nil {
			t.Fatal(err)
		}
		future, _ := f.s.FutureSlots(ctx, refA, f.userA, f.pos101.ID)
		slot, other := future[0], future[1]

		// Sixteen requests for one slot on one pool: one booking, fifteen refusals.
		won := slotBookingRace(t, []*store.Bookings{bk}, f.userA2, slot.ID, 16)
		if len(won) != 1 {
			t.Fatalf("%d bookings took the slot, want 1", len(won))
		}
		b := won[0]
		// 07:00 in Cuiabá is 11:00 UTC, whatever date and time the form sent.
		if !b.BookingTzidFrom.Equal(time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC)) ||
			!b.BookingTzidTo.Equal(time.Date(2026, 11, 23, 11, 30, 0, 0, time.UTC)) ||
			b.PositionName != "Sala 1" || b.PositionColor != "#aa00ff" || b.Slot == nil ||
			*b.Slot != (engine.BookingSlot{SlotID: slot.ID, PositionID: f.pos101.ID, UserID: f.userA}) {
			t.Fatalf("booking from the slot %+v", b)
		}
		if n := bookingCount(t, d); n != 1 {
			t.Fatalf("%d bookings written, want 1 (refused ones must leave nothing)", n)
		}
		if future, _ := f.s.FutureSlots(ctx, refA, f.userA, f.pos101.ID); !future[0].Booked || future[1].Booked {
			t.Fatalf("booked flags %+v", future)
		}

		// Another tenant's slot is not found; a missing one too; a past one is refused.
		in := bkInput(f.usB, "x", "2026-11-23", "07:00")
		in.SlotID = other.ID
		_, err := store.NewBookings(d, refClock).Create(ctx, refB, in)
		refWantCode(t, err, engine.ErrNoSlotFound)
		in = bkInput(f.userA, "x", "2026-11-23", "07:00")
		in.SlotID = 999999
		_, err = bk.Create(ctx, refA, in)
		refWantCode(t, err, engine.ErrNoSlotFound)
		late := store.NewBookings(d, engine.FixedClock(time.Date(2026, 11, 23, 11, 45, 0, 0, time.UTC)))
		in.SlotID = other.ID
		_, err = late.Create(ctx, refA, in)
		refWantField(t, err, "slotId", engine.MsgInvalidTime)

		cols, err := bk.Board(ctx, refA, engine.KanbanLarge)
		if err != nil {
			t.Fatal(err)
		}
		won2, lost := cols[10].ID, cols[11].ID
		// Concluding keeps the slot: the appointment still holds the resource.
		in.SlotID = other.ID
		kept, err := bk.Create(ctx, refA, in)
		if err != nil {
			t.Fatal(err)
		}
		if concluded, err := bk.Move(ctx, refA, engine.BookingMove{ID: kept.ID, From: kept.ColumnID, To: won2}); err != nil ||
			concluded.ReleasedSlot != nil || concluded.Slot == nil || concluded.Slot.SlotID != other.ID {
			t.Fatalf("conclude %+v %v", concluded, err)
		}
		// Cancelling frees it, in the move's transaction: it can be booked again.
		cancelled, err := bk.Move(ctx, refA, engine.BookingMove{ID: b.ID, From: b.ColumnID, To: lost})
		if err != nil || cancelled.Slot != nil || cancelled.ReleasedSlot == nil || cancelled.ReleasedSlot.SlotID != slot.ID ||
			cancelled.ReleasedSlot.UserID != f.userA {
			t.Fatalf("cancel %+v %v", cancelled, err)
		}
		if future, _ := f.s.FutureSlots(ctx, refA, f.userA, f.pos101.ID); future[0].Booked || !future[1].Booked {
			t.Fatalf("after cancel and conclude %+v", future)
		}
		if again := slotBookingRace(t, []*store.Bookings{bk}, f.userA, slot.ID, 4); len(again) != 1 {
			t.Fatalf("%d bookings took the freed slot, want 1", len(again))
		}
	})
}

// Two connection pools on one database, as two servers of a cluster, race bookings
// for each slot: exactly one booking holds every slot, and no refused booking is left.
func TestBookingTakesSlotTwoNodes(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			nodes := twoNodes(t, dialect)
			f := bkSetup(t, nodes[0])
			cells := []string{"2026-11-23 07:00", "2026-11-23 07:30", "2026-11-24 12:30"}
			if _, err := f.s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry(cells, nil)}); err != nil {
				t.Fatal(err)
			}
			stores := []*store.Bookings{store.NewBookings(nodes[0], refClock), store.NewBookings(nodes[1], refClock)}
			// The board's columns exist before the race, as on a tenant in use.
			if _, err := stores[0].Board(ctx, refA, engine.KanbanShort); err != nil {
				t.Fatal(err)
			}
			future, err := f.s.FutureSlots(ctx, refA, f.userA, f.pos101.ID)
			if err != nil || len(future) != len(cells) {
				t.Fatalf("slots %v %v", bkHours(future), err)
			}
			for _, slot := range future {
				if won := slotBookingRace(t, stores, f.userA2, slot.ID, 12); len(won) != 1 {
					t.Fatalf("slot %s %s: %d bookings won, want 1", slot.Date, slot.Hour, len(won))
				}
			}
			if n := bookingCount(t, nodes[1]); n != len(cells) {
				t.Fatalf("%d bookings written for %d slots", n, len(cells))
			}
		})
	}
}
