package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

// bkFixture: tenants refA and refB, users 101 and 102 of refA and 201 of refB, a
// place of each tenant and a position of user 101 (refClock is Sunday 2026-11-22
// 09:04 in America/Cuiaba, UTC-4, so Monday 23 is the next grid day).
type bkFixture struct {
	s                  *store.Slots
	placeA, placeB     engine.Place
	pos101             engine.Position
	userA, userA2, usB engine.ID
}

func bkSetup(t *testing.T, d *db.DB) bkFixture {
	t.Helper()
	ctx := context.Background()
	refSeedCompanies(t, d)
	users := store.NewUsers(d, refClock)
	f := bkFixture{s: store.NewSlots(d, refClock)}
	for _, u := range []struct {
		company engine.ID
		id      *engine.ID
		email   string
	}{{refA, &f.userA, "a1@x.com"}, {refA, &f.userA2, "a2@x.com"}, {refB, &f.usB, "b1@x.com"}} {
		made, err := users.Create(ctx, usrNew(u.company, "Agente "+u.email, u.email))
		if err != nil {
			t.Fatal(err)
		}
		*u.id = made.ID
	}
	var err error
	if f.placeA, err = f.s.CreatePlace(ctx, refA, engine.PlaceInput{Name: " Clínica Centro ", Lat: bkf(-15.6), Lng: bkf(-56.1)}); err != nil {
		t.Fatal(err)
	}
	if f.placeB, err = f.s.CreatePlace(ctx, refB, engine.PlaceInput{Name: "Outra", Lat: bkf(0), Lng: bkf(0)}); err != nil {
		t.Fatal(err)
	}
	if f.pos101, err = f.s.SavePosition(ctx, refA, engine.PositionInput{UserID: f.userA, PlaceID: f.placeA.ID, Name: "Sala 1", Color: "#AA00ff"}); err != nil {
		t.Fatal(err)
	}
	return f
}

func bkf(v float64) *float64 { return &v }

func (f bkFixture) entry(ins, rem []string) engine.AvailabilityEntry {
	return engine.AvailabilityEntry{UserID: f.userA, PositionID: f.pos101.ID, ToInsert: ins, ToRemove: rem}
}

func bkHours(slots []engine.Slot) []string {
	out := []string{}
	for _, s := range slots {
		out = append(out, s.Date+" "+s.Hour)
	}
	return out
}

func TestSlotPlacesAndPositions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		f := bkSetup(t, d)
		s := f.s

		places, err := s.ListPlaces(ctx, refA)
		if err != nil || len(places) != 1 || places[0].Name != "Clínica Centro" || places[0].Lat != -15.6 || places[0].Lng != -56.1 {
			t.Fatalf("places of A: %+v %v", places, err)
		}
		for _, tc := range []struct {
			in    engine.PlaceInput
			field string
			msg   string
		}{
			{engine.PlaceInput{Lat: bkf(0), Lng: bkf(0)}, "placeName", engine.MsgRequired},
			{engine.PlaceInput{Name: "x", Lat: bkf(0), Lng: bkf(0)}, "placeName", engine.MsgTooShort},
			{engine.PlaceInput{Name: strings.Repeat("x", 51), Lat: bkf(0), Lng: bkf(0)}, "placeName", engine.MsgTooLong},
			{engine.PlaceInput{Name: "ok", Lng: bkf(0)}, "placeLat", engine.MsgRequired},
			{engine.PlaceInput{Name: "ok", Lat: bkf(90.5), Lng: bkf(0)}, "placeLat", engine.MsgInvalidValue},
			{engine.PlaceInput{Name: "ok", Lat: bkf(0), Lng: bkf(-181)}, "placeLng", engine.MsgInvalidValue},
		} {
			_, err := s.CreatePlace(ctx, refA, tc.in)
			refWantField(t, err, tc.field, tc.msg)
		}

		if f.pos101.Color != "#aa00ff" || f.pos101.UserID != f.userA || f.pos101.PlaceID != f.placeA.ID {
			t.Fatalf("position %+v", f.pos101)
		}
		// Update keeps the id; a position of another user, another tenant's place or
		// user is not found.
		up, err := s.SavePosition(ctx, refA, engine.PositionInput{PositionID: f.pos101.ID, UserID: f.userA, PlaceID: f.placeA.ID, Name: "Sala 2", Color: "#000000"})
		if err != nil || up.ID != f.pos101.ID || up.Name != "Sala 2" {
			t.Fatalf("update %+v %v", up, err)
		}
		_, err = s.SavePosition(ctx, refA, engine.PositionInput{PositionID: f.pos101.ID, UserID: f.userA2, PlaceID: f.placeA.ID, Name: "Sala 2", Color: "#000000"})
		refWantCode(t, err, engine.ErrNoPositionFound)
		_, err = s.SavePosition(ctx, refA, engine.PositionInput{UserID: f.userA, PlaceID: f.placeB.ID, Name: "Sala 3", Color: "#000000"})
		refWantCode(t, err, engine.ErrNoPlaceFound)
		_, err = s.SavePosition(ctx, refA, engine.PositionInput{UserID: f.usB, PlaceID: f.placeA.ID, Name: "Sala 3", Color: "#000000"})
		refWantCode(t, err, engine.ErrNoUserFound)
		_, err = s.SavePosition(ctx, refB, engine.PositionInput{PositionID: f.pos101.ID, UserID: f.usB, PlaceID: f.placeB.ID, Name: "Sala 3", Color: "#000000"})
		refWantCode(t, err, engine.ErrNoPositionFound)
		_, err = s.SavePosition(ctx, refA, engine.PositionInput{UserID: f.userA, PlaceID: f.placeA.ID, Name: "Sala 3", Color: "red"})
		refWantField(t, err, "positionColor", engine.MsgInvalidColor)

		list, err := s.ListPositions(ctx, refA, f.userA)
		if err != nil || len(list) != 1 || list[0].Name != "Sala 2" {
			t.Fatalf("positions %+v %v", list, err)
		}
		_, err = s.ListPositions(ctx, refB, f.userA)
		refWantCode(t, err, engine.ErrNoUserFound)

		// A place with positions stays; another tenant's place is not found; an
		// unused one goes.
		refWantCode(t, s.DeletePlace(ctx, refA, f.placeA.ID), engine.ErrPlaceInUse)
		refWantCode(t, s.DeletePlace(ctx, refA, f.placeB.ID), engine.ErrNoPlaceFound)
		if err := s.DeletePlace(ctx, refB, f.placeB.ID); err != nil {
			t.Fatal(err)
		}
		if places, _ := s.ListPlaces(ctx, refB); len(places) != 0 {
			t.Fatalf("places of B after delete: %+v", places)
		}
	})
}

func TestSlotAvailability(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		f := bkSetup(t, d)
		s := f.s

		res, err := s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{
			f.entry([]string{"2026-11-23 07:00", "2026-11-23 19:00", "2026-11-28 12:30", "2026-11-23 07:00"}, nil),
		})
		if err != nil || res.Inserted != 3 || res.Removed != 0 {
			t.Fatalf("insert %+v %v", res, err)
		}
		future, err := s.FutureSlots(ctx, refA, f.userA, f.pos101.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(bkHours(future), ","); got != "2026-11-23 07:00,2026-11-23 19:00,2026-11-28 12:30" {
			t.Fatalf("future slots %s", got)
		}
		// Stored in UTC: 07:00 in Cuiaba is 11:00Z.
		if future[0].At.Format("2006-01-02T15:04Z07:00") != "2026-11-23T11:00Z" || future[0].ID == 0 || future[0].Booked {
			t.Fatalf("first slot %+v", future[0])
		}

		// The grade of the next 14 days (Sun 22 to Sun 6 Dec: 12 grid days of 25
		// cells) less the three slots.
		avail, err := s.AvailableSlots(ctx, refA, f.userA, f.pos101.ID, 0)
		if err != nil || len(avail) != 12*25-3 || avail[0].Date+" "+avail[0].Hour != "2026-11-23 07:30" || avail[0].ID != 0 {
			t.Fatalf("available %d %v %v", len(avail), bkHours(avail[:1]), err)
		}

		// Hostile input: nothing is written, the field names the entry.
		for _, tc := range []struct {
			name    string
			entries []engine.AvailabilityEntry
			field   string
			msg     string
		}{
			{"none", nil, "entries", engine.MsgRequired},
			{"no user", []engine.AvailabilityEntry{{PositionID: f.pos101.ID}}, "0.userId", engine.MsgRequired},
			{"no position", []engine.AvailabilityEntry{{UserID: f.userA}}, "0.positionId", engine.MsgRequired},
			{"format", []engine.AvailabilityEntry{f.entry([]string{"2026-11-23T07:00"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"no such day", []engine.AvailabilityEntry{f.entry([]string{"2026-11-31 07:00"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"sunday", []engine.AvailabilityEntry{f.entry([]string{"2026-11-29 10:00"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"before 07:00", []engine.AvailabilityEntry{f.entry([]string{"2026-11-23 06:30"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"after 19:00", []engine.AvailabilityEntry{f.entry([]string{"2026-11-23 19:30"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"quarter", []engine.AvailabilityEntry{f.entry([]string{"2026-11-23 10:15"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"past", []engine.AvailabilityEntry{f.entry([]string{"2026-11-21 10:00"}, nil)}, "0.toInsert", engine.MsgInvalidTime},
			{"injection", []engine.AvailabilityEntry{f.entry(nil, []string{"'; DELETE FROM slots; --"})}, "0.toRemove", engine.MsgInvalidTime},
			{"second entry", []engine.AvailabilityEntry{f.entry([]string{"2026-11-24 08:00"}, nil), f.entry([]string{"x"}, nil)}, "1.toInsert", engine.MsgInvalidTime},
			{"too many", []engine.AvailabilityEntry{f.entry(make([]string, engine.MaxSlotsPerRequest+1), nil)}, "0.toInsert", engine.MsgTooLong},
			{"too many entries", make([]engine.AvailabilityEntry, engine.MaxAvailabilityEntries+1), "entries", engine.MsgTooLong},
			{"week not monday", []engine.AvailabilityEntry{{UserID: f.userA, PositionID: f.pos101.ID, WeekStart: "2026-11-24"}}, "0.weekStart", engine.MsgInvalidValue},
			{"outside week", []engine.AvailabilityEntry{{UserID: f.userA, PositionID: f.pos101.ID, WeekStart: "2026-11-23", ToInsert: []string{"2026-11-30 08:00"}}}, "0.toInsert", engine.MsgInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.SetAvailability(ctx, refA, tc.entries)
				refWantField(t, err, tc.field, tc.msg)
			})
		}
		// All or nothing: the second entry names another user's position.
		_, err = s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{
			f.entry([]string{"2026-11-24 08:00"}, nil),
			{UserID: f.userA2, PositionID: f.pos101.ID, ToInsert: []string{"2026-11-24 09:00"}},
		})
		refWantCode(t, err, engine.ErrNoPositionFound)
		// Another tenant cannot reach the position.
		_, err = s.SetAvailability(ctx, refB, []engine.AvailabilityEntry{f.entry(nil, []string{"2026-11-23 07:00"})})
		refWantCode(t, err, engine.ErrNoPositionFound)
		_, err = s.FutureSlots(ctx, refB, f.userA, f.pos101.ID)
		refWantCode(t, err, engine.ErrNoPositionFound)
		if future, _ := s.FutureSlots(ctx, refA, f.userA, f.pos101.ID); len(future) != 3 {
			t.Fatalf("after refused requests: %v", bkHours(future))
		}

		// Lists: remove one, add one.
		res, err = s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry([]string{"2026-11-24 08:00"}, []string{"2026-11-23 19:00", "2026-11-25 08:00"})})
		if err != nil || res.Inserted != 1 || res.Removed != 1 {
			t.Fatalf("lists %+v %v", res, err)
		}
		// The grid replaces its week: 07:00 Mon kept, 12:30 Sat and 08:00 Tue gone,
		// 10:00 Wed added; next week untouched.
		if _, err := s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry([]string{"2026-12-01 09:00"}, nil)}); err != nil {
			t.Fatal(err)
		}
		res, err = s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{{UserID: f.userA, PositionID: f.pos101.ID,
			WeekStart: "2026-11-23", ToInsert: []string{"2026-11-23 07:00", "2026-11-25 10:00"}}})
		if err != nil || res.Inserted != 1 || res.Removed != 2 {
			t.Fatalf("grid %+v %v", res, err)
		}
		future, _ = s.FutureSlots(ctx, refA, f.userA, f.pos101.ID)
		if got := strings.Join(bkHours(future), ","); got != "2026-11-23 07:00,2026-11-25 10:00,2026-12-01 09:00" {
			t.Fatalf("after grid %s", got)
		}

		// CreateSlots fills the grade: tomorrow's 25 cells, of which 07:00 existed.
		n, err := s.CreateSlots(ctx, refA, f.userA, f.pos101.ID, 1)
		if err != nil || n != 24 {
			t.Fatalf("create slots %d %v", n, err)
		}
		if n, err := s.CreateSlots(ctx, refA, f.userA, f.pos101.ID, 1); err != nil || n != 0 {
			t.Fatalf("create slots again %d %v", n, err)
		}
		_, err = s.CreateSlots(ctx, refA, f.userA2, f.pos101.ID, 1)
		refWantCode(t, err, engine.ErrNoPositionFound)
	})
}

func TestSlotBook(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		f := bkSetup(t, d)
		s := f.s
		if _, err := s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry([]string{"2026-11-23 07:00", "2026-11-23 07:30"}, nil)}); err != nil {
			t.Fatal(err)
		}
		future, _ := s.FutureSlots(ctx, refA, f.userA, f.pos101.ID)
		slot, other := future[0], future[1]

		refWantCode(t, s.Book(ctx, refB, slot.ID, 9), engine.ErrNoSlotFound)
		refWantCode(t, s.Book(ctx, refA, 999999, 9), engine.ErrNoSlotFound)
		refWantField(t, s.Book(ctx, refA, slot.ID, 0), "bookingId", engine.MsgRequired)

		// Many requests for one slot at once: exactly one wins.
		const racers = 16
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []engine.ID
			start   = make(chan struct{})
		)
		for i := range racers {
			wg.Add(1)
			go func(booking engine.ID) {
				defer wg.Done()
				<-start
				err := s.Book(ctx, refA, slot.ID, booking)
				mu.Lock()
				defer mu.Unlock()
				switch engine.CodeOf(err) {
				case engine.ErrSlotTaken:
				default:
					if err != nil {
						t.Errorf("book %d: %v", booking, err)
						return
					}
					winners = append(winners, booking)
				}
			}(engine.ID(100 + i))
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("winners %v, want exactly one", winners)
		}
		future, _ = s.FutureSlots(ctx, refA, f.userA, f.pos101.ID)
		if !future[0].Booked || future[1].Booked {
			t.Fatalf("booked flags %+v", future)
		}

		// A booked slot cannot be removed, by list or by grid; the request writes
		// nothing.
		_, err := s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry([]string{"2026-11-24 07:00"}, []string{"2026-11-23 07:00"})})
		refWantCode(t, err, engine.ErrSlotTaken)
		_, err = s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{{UserID: f.userA, PositionID: f.pos101.ID, WeekStart: "2026-11-23"}})
		refWantCode(t, err, engine.ErrSlotTaken)
		if future, _ := s.FutureSlots(ctx, refA, f.userA, f.pos101.ID); len(future) != 2 {
			t.Fatalf("after refused removal %v", bkHours(future))
		}

		// Release frees it for its own booking only.
		refWantCode(t, s.Release(ctx, refA, slot.ID, winners[0]+1), engine.ErrNoSlotFound)
		if err := s.Release(ctx, refA, slot.ID, winners[0]); err != nil {
			t.Fatal(err)
		}
		if err := s.Book(ctx, refA, slot.ID, 7); err != nil {
			t.Fatal(err)
		}
		if err := s.Book(ctx, refA, other.ID, 7); err != nil {
			t.Fatal(fmt.Errorf("second slot: %w", err))
		}
	})
}

// TestBookingTwoNodes: two connection pools on one database, as two nodes of a
// cluster. Both insert the same availability at once (the unique index keeps one slot
// per time), then race to book each slot from both nodes: exactly one booking wins
// every slot.
func TestSlotTwoNodes(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			nodes := twoNodes(t, dialect)
			f := bkSetup(t, nodes[0])
			stores := [2]*store.Slots{f.s, store.NewSlots(nodes[1], refClock)}
			cells := []string{"2026-11-23 07:00", "2026-11-23 07:30", "2026-11-23 08:00", "2026-11-24 12:30", "2026-11-28 19:00"}

			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := range 8 {
				wg.Add(1)
				go func(s *store.Slots) {
					defer wg.Done()
					_, err := s.SetAvailability(ctx, refA, []engine.AvailabilityEntry{f.entry(cells, nil)})
					if err != nil {
						errs <- err
					}
				}(stores[i%2])
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			future, err := stores[1].FutureSlots(ctx, refA, f.userA, f.pos101.ID)
			if err != nil || len(future) != len(cells) {
				t.Fatalf("slots after concurrent inserts: %v %v", bkHours(future), err)
			}

			for _, slot := range future {
				var (
					mu   sync.Mutex
					wins int
				)
				start := make(chan struct{})
				for i := range 12 {
					wg.Add(1)
					go func(s *store.Slots, booking engine.ID) {
						defer wg.Done()
						<-start
						err := s.Book(ctx, refA, slot.ID, booking)
						mu.Lock()
						defer mu.Unlock()
						switch {
						case err == nil:
							wins++
						case engine.CodeOf(err) != engine.ErrSlotTaken:
							t.Errorf("book slot %d: %v", slot.ID, err)
						}
					}(stores[i%2], engine.ID(1000+i))
				}
				close(start)
				wg.Wait()
				if wins != 1 {
					t.Fatalf("slot %s: %d bookings won, want 1", slot.Date+" "+slot.Hour, wins)
				}
			}
		})
	}
}

// twoNodes opens two connection pools on one new, migrated database of dialect, as two
// nodes of a cluster would.
func twoNodes(t *testing.T, dialect db.Dialect) [2]*db.DB {
	t.Helper()
	ctx := context.Background()
	url := dbtest.URL(t, dialect)
	var nodes [2]*db.DB
	for i := range nodes {
		d, err := db.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		nodes[i] = d
	}
	if _, err := nodes[0].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return nodes
}
