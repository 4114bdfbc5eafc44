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

// bkSeed inserts the two tenants, users 1 and 2 of tenant A, user 3 of tenant B and
// contact 7 of tenant A and 8 of tenant B.
func bkSeed(t *testing.T, d *db.DB) {
	t.Helper()
	refSeedCompanies(t, d)
	const at = "2026-11-22T10:00:00Z"
	dbtest.MustExec(t, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile, created_at, updated_at) VALUES
		(1, 1, 'Ana', 'ana', 'ana', 'ana@a.test', 'x', 'user', '`+at+`', '`+at+`'),
		(2, 1, 'Bia', 'bia', 'bia', 'bia@a.test', 'x', 'user', '`+at+`', '`+at+`'),
		(3, 2, 'Caio', 'caio', 'caio', 'caio@b.test', 'x', 'admin', '`+at+`', '`+at+`')`)
	dbtest.MustExec(t, d, `INSERT INTO contacts (id, company_id, name, name_norm, number, search, profile_pic_url, created_at, updated_at) VALUES
		(7, 1, 'Dona Maria', 'dona maria', '5565999990007', 'dona maria', 'https://pic.test/7.jpg', '`+at+`', '`+at+`'),
		(8, 2, 'Seu José', 'seu jose', '5565999990008', 'seu jose', '', '`+at+`', '`+at+`')`)
}

func bkInput(user engine.ID, desc, date, hhmm string) engine.BookingInput {
	return engine.BookingInput{Description: desc, Date: date, Time: hhmm, UserID: user}
}

func TestBookingBoardAndCreate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		bkSeed(t, d)
		s := store.NewBookings(d, refClock)

		large, err := s.Board(ctx, refA, engine.KanbanLarge)
		if err != nil || len(large) != 12 || large[0].Name != "Novo" || large[10].Kind != engine.KanbanWon ||
			large[11].Kind != engine.KanbanLost || large[11].Name != engine.BookingLabelLost {
			t.Fatalf("large board %+v %v", large, err)
		}
		short, err := s.Board(ctx, refA, engine.KanbanShort)
		if err != nil || len(short) != 6 || short[0].ID != large[0].ID || short[5].ID != large[11].ID {
			t.Fatalf("short board %+v %v", short, err)
		}
		// Reading again does not add columns.
		if again, _ := s.Board(ctx, refA, engine.KanbanLarge); len(again) != 12 {
			t.Fatalf("second read has %d columns", len(again))
		}

		in := bkInput(1, " Consulta de retorno ", "2026-11-27", "09:30")
		in.ContactID, in.TagJSON, in.BookingName, in.PositionColor, in.Duration = 7, "9", "Retorno", "#ff0000", 60
		b, err := s.Create(ctx, refA, in)
		// 09:30 in Cuiabá (UTC-4, no daylight saving since 2019) is 13:30 UTC.
		if err != nil || b.Description != "Consulta de retorno" || b.ColumnID != large[0].ID || b.BookingID != b.ID ||
			!b.BookingTzidFrom.Equal(time.Date(2026, 11, 27, 13, 30, 0, 0, time.UTC)) ||
			!b.BookingTzidTo.Equal(time.Date(2026, 11, 27, 14, 30, 0, 0, time.UTC)) ||
			b.Username != "Ana" || b.Name != "Dona Maria" || b.ContactNumber != "5565999990007" ||
			b.ProfilePicURL != "https://pic.test/7.jpg" || b.TagJSON != "9" || b.Archived {
			t.Fatalf("create %+v %v", b, err)
		}
		board, _ := s.Board(ctx, refA, engine.KanbanLarge)
		if len(board[0].ConfirmedBooking) != 1 || board[0].ConfirmedBooking[0].ID != b.ID {
			t.Fatalf("board after create %+v", board[0])
		}

		t.Run("validation order and messages", func(t *testing.T) {
			for _, tc := range []struct {
				in    engine.BookingInput
				field string
				msg   string
			}{
				{bkInput(1, "  ", "", ""), "description", engine.MsgBookingDescription},
				{bkInput(1, "x", "", ""), "date", engine.MsgRequired},
				{bkInput(1, "x", "2026-11-27", ""), "time", engine.MsgRequired},
				{bkInput(1, "x", "27/11/2026", "09:00"), "date", engine.MsgInvalidValue},
				{bkInput(1, "x", "2026-02-30", "09:00"), "date", engine.MsgInvalidValue},
				{bkInput(1, "x", "2026-11-27", "24:00"), "time", engine.MsgInvalidTime},
				{bkInput(1, "x", "2026-11-27", "9:00"), "time", engine.MsgInvalidTime},
				{engine.BookingInput{Description: "x", Date: "2026-11-27", Time: "09:00", UserID: 1, TagJSON: "11"}, "tagJson", engine.MsgInvalidValue},
				{engine.BookingInput{Description: "x", Date: "2026-11-27", Time: "09:00", UserID: 1, TagJSON: "0"}, "tagJson", engine.MsgInvalidValue},
				{engine.BookingInput{Description: "x", Date: "2026-11-27", Time: "09:00", UserID: 1, Duration: 721}, "duration", engine.MsgInvalidValue},
				{engine.BookingInput{Description: "x", Date: "2026-11-27", Time: "09:00", UserID: 1, PositionColor: "red"}, "positionColor", engine.MsgInvalidColor},
				{engine.BookingInput{Description: "x", Date: "2026-11-27", Time: "09:00", UserID: 1, ContactID: -1}, "contactId", engine.MsgInvalidValue},
				{engine.BookingInput{Description: "a\x00b", Date: "2026-11-27", Time: "09:00", UserID: 1}, "description", engine.MsgInvalidValue},
			} {
				_, err := s.Create(ctx, refA, tc.in)
				refWantField(t, err, tc.field, tc.msg)
			}
		})

		t.Run("tenant isolation", func(t *testing.T) {
			// Tenant B's user and contact cannot be named by tenant A, nor A's booking read by B.
			_, err := s.Create(ctx, refA, bkInput(3, "x", "2026-11-27", "10:00"))
			refWantCode(t, err, engine.ErrNoUserFound)
			in := bkInput(1, "x", "2026-11-27", "10:00")
			in.ContactID = 8
			_, err = s.Create(ctx, refA, in)
			refWantCode(t, err, engine.ErrNoContactFound)
			_, err = s.Get(ctx, refB, b.ID)
			refWantCode(t, err, engine.ErrNotFound)
			boardB, err := s.Board(ctx, refB, engine.KanbanLarge)
			if err != nil || len(boardB) != 12 || boardB[0].ID == large[0].ID || len(boardB[0].ConfirmedBooking) != 0 {
				t.Fatalf("tenant B board %+v %v", boardB, err)
			}
			// A move into tenant B's column, or by tenant B, changes nothing.
			_, err = s.Move(ctx, refA, engine.BookingMove{ID: b.ID, From: large[0].ID, To: boardB[1].ID})
			refWantField(t, err, "to", engine.MsgInvalidValue)
			_, err = s.Move(ctx, refB, engine.BookingMove{ID: b.ID, From: large[0].ID, To: boardB[1].ID})
			refWantCode(t, err, engine.ErrNotFound)
			if got, _ := s.Get(ctx, refA, b.ID); got.ColumnID != large[0].ID {
				t.Fatalf("booking moved to %d", got.ColumnID)
			}
			if list, err := s.Range(ctx, refB, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); err != nil || len(list) != 0 {
				t.Fatalf("tenant B range %+v %v", list, err)
			}
		})

		t.Run("range", func(t *testing.T) {
			for _, tc := range []struct {
				from, to time.Time
				want     int
			}{
				{time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), 1},
				{time.Date(2026, 11, 27, 14, 29, 0, 0, time.UTC), time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC), 1},
				{time.Date(2026, 11, 27, 14, 30, 0, 0, time.UTC), time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), 0},
				{time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 27, 13, 30, 0, 0, time.UTC), 0},
			} {
				list, err := s.Range(ctx, refA, tc.from, tc.to)
				if err != nil || len(list) != tc.want {
					t.Fatalf("range %v–%v: %+v %v, want %d", tc.from, tc.to, list, err, tc.want)
				}
			}
		})
	})
}

func TestBookingMove(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		bkSeed(t, d)
		s := store.NewBookings(d, refClock)
		cols, err := s.Board(ctx, refA, engine.KanbanLarge)
		if err != nil {
			t.Fatal(err)
		}
		novo, confirmado, won, lost := cols[0].ID, cols[4].ID, cols[10].ID, cols[11].ID
		ana, err := s.Create(ctx, refA, bkInput(1, "Ana's", "2026-11-27", "09:00"))
		if err != nil {
			t.Fatal(err)
		}
		bia, err := s.Create(ctx, refA, bkInput(2, "Bia's", "2026-11-27", "10:00"))
		if err != nil {
			t.Fatal(err)
		}

		moved, err := s.Move(ctx, refA, engine.BookingMove{ID: ana.ID, From: novo, To: confirmado, OwnerID: 1})
		if err != nil || moved.ColumnID != confirmado || moved.Label != "" || moved.Archived {
			t.Fatalf("move %+v %v", moved, err)
		}
		// A stale move (from no longer the card's column) changes nothing.
		_, err = s.Move(ctx, refA, engine.BookingMove{ID: ana.ID, From: novo, To: cols[5].ID})
		refWantCode(t, err, engine.ErrConcurrentUpdate)
		// Another user's card, for an owner-limited mover.
		_, err = s.Move(ctx, refA, engine.BookingMove{ID: bia.ID, From: novo, To: confirmado, OwnerID: 1})
		refWantCode(t, err, engine.ErrNoPermission)
		_, err = s.Move(ctx, refA, engine.BookingMove{ID: ana.ID, From: confirmado})
		refWantField(t, err, "to", engine.MsgRequired)
		_, err = s.Move(ctx, refA, engine.BookingMove{ID: 9999, From: novo, To: confirmado})
		refWantCode(t, err, engine.ErrNotFound)

		// Conclude and cancel: label set, archived, gone from the board.
		concluded, err := s.Move(ctx, refA, engine.BookingMove{ID: ana.ID, From: confirmado, To: won})
		if err != nil || concluded.Label != engine.BookingLabelWon || !concluded.Archived {
			t.Fatalf("conclude %+v %v", concluded, err)
		}
		cancelled, err := s.Move(ctx, refA, engine.BookingMove{ID: bia.ID, From: novo, To: lost})
		if err != nil || cancelled.Label != engine.BookingLabelLost || !cancelled.Archived {
			t.Fatalf("cancel %+v %v", cancelled, err)
		}
		board, _ := s.Board(ctx, refA, engine.KanbanLarge)
		for _, c := range board {
			if len(c.ConfirmedBooking) != 0 {
				t.Fatalf("archived card still on the board: %+v", c)
			}
		}
		// An archived card cannot be moved back.
		_, err = s.Move(ctx, refA, engine.BookingMove{ID: ana.ID, From: won, To: novo})
		refWantCode(t, err, engine.ErrConcurrentUpdate)
		// The calendar still shows archived bookings.
		if list, _ := s.Range(ctx, refA, time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)); len(list) != 2 {
			t.Fatalf("range after archive: %+v", list)
		}
	})
}

// TestBookingConcurrentMoves: many movers drag the same card out of the same column
// at once; exactly one wins and the others get ErrConcurrentUpdate.
func TestBookingConcurrentMoves(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		bkSeed(t, d)
		s := store.NewBookings(d, refClock)
		cols, err := s.Board(ctx, refA, engine.KanbanLarge)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Create(ctx, refA, bkInput(1, "disputed", "2026-11-27", "09:00"))
		if err != nil {
			t.Fatal(err)
		}
		const movers = 8
		var wg sync.WaitGroup
		results := make([]error, movers)
		targets := make([]engine.ID, movers)
		for i := range movers {
			targets[i] = cols[1+i%9].ID
			wg.Go(func() {
				_, results[i] = s.Move(ctx, refA, engine.BookingMove{ID: b.ID, From: cols[0].ID, To: targets[i]})
			})
		}
		wg.Wait()
		won := -1
		for i, err := range results {
			switch {
			case err == nil:
				if won >= 0 {
					t.Fatalf("movers %d and %d both moved the card", won, i)
				}
				won = i
			case engine.CodeOf(err) != engine.ErrConcurrentUpdate:
				t.Fatalf("mover %d: %v", i, err)
			}
		}
		got, _ := s.Get(ctx, refA, b.ID)
		if won < 0 || got.ColumnID != targets[won] {
			t.Fatalf("winner %d, card in %d", won, got.ColumnID)
		}
	})
}

// TestBookingConcurrentDefaultColumns: nodes reading a new tenant's board at once
// leave one set of twelve columns.
func TestBookingConcurrentDefaultColumns(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		bkSeed(t, d)
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			s := store.NewBookings(d, refClock)
			wg.Go(func() { _, errs[i] = s.Board(ctx, refA, engine.KanbanShort) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		board, err := store.NewBookings(d, refClock).Board(ctx, refA, engine.KanbanLarge)
		if err != nil || len(board) != 12 {
			t.Fatalf("board %d columns, %v", len(board), err)
		}
	})
}
