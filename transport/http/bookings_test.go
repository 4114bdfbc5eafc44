package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// newBookingEnv builds the env of newEnv with the booking and contact stores wired.
func newBookingEnv(t *testing.T, d *db.DB) *refEnv {
	t.Helper()
	re := &refEnv{}
	re.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		re.contacts = store.NewContacts(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Contacts: re.contacts, Bookings: store.NewBookings(d, e.clock)}
	}))
	return re
}

func bkBoard(t *testing.T, e *refEnv, tok, size string) []engine.KanbanColumn {
	t.Helper()
	r := e.post(tok, "/agenda/kanboard", map[string]any{"size": size})
	r.wantStatus(t, http.StatusOK)
	var cols []engine.KanbanColumn
	r.json(t, &cols)
	return cols
}

func bkCreate(t *testing.T, e *refEnv, tok string, body map[string]any) engine.Booking {
	t.Helper()
	r := e.post(tok, "/agenda/bookings", body)
	r.wantStatus(t, http.StatusCreated)
	var b engine.Booking
	r.json(t, &b)
	e.wantEvent(t, co1, "booking", "create")
	return b
}

func TestBookingRoutes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newBookingEnv(t, d)
		ana, bruno, superv, admin2 := e.tok("ana"), e.tok("bruno"), e.tok("superv"), e.tok("admin2")

		large := bkBoard(t, e, ana, "large")
		short := bkBoard(t, e, ana, "short")
		if len(large) != 12 || len(short) != 6 || large[0].Name != "Novo" || large[10].Kind != engine.KanbanWon {
			t.Fatalf("boards %d %d %+v", len(large), len(short), large)
		}
		if r := e.post(ana, "/agenda/kanboard", map[string]any{"size": "huge"}); r.Status != http.StatusOK || strings.Count(string(r.Body), `"kind"`) != 6 {
			t.Fatalf("unknown size answers %d %s, want the short board", r.Status, r.Body)
		}

		booking := bkCreate(t, e, ana, map[string]any{"description": "Consulta", "date": "2026-11-27", "time": "09:30",
			"tagJson": "10", "bookingName": "Retorno"})
		if booking.UserID != e.ids["ana"] || booking.Username != "Ana User" || booking.ColumnID != large[0].ID ||
			booking.BookingTzidFrom.Format(time.RFC3339) != "2026-11-27T13:30:00Z" {
			t.Fatalf("booking %+v", booking)
		}

		t.Run("validation: section-5 messages in order", func(t *testing.T) {
			for _, tc := range []struct {
				body  map[string]any
				field string
				msg   string
			}{
				{map[string]any{}, "description", engine.MsgBookingDescription},
				{map[string]any{"description": "x"}, "date", engine.MsgRequired},
				{map[string]any{"description": "x", "date": "2026-11-27"}, "time", engine.MsgRequired},
				{map[string]any{"description": "x", "date": "2026-11-27", "time": "25:00"}, "time", engine.MsgInvalidTime},
				{map[string]any{"description": strings.Repeat("d", 401), "date": "2026-11-27", "time": "09:00"}, "description", engine.MsgTooLong},
			} {
				body := e.post(ana, "/agenda/bookings", tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if body.Fields[tc.field] != tc.msg {
					t.Fatalf("%v: fields %v, want %s on %s", tc.body, body.Fields, tc.msg, tc.field)
				}
			}
			e.post(ana, "/agenda/bookings", `{"description": 5}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.post(ana, "/agenda/kanboard/"+fmt.Sprint(booking.ID), `{"from": "x"}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.post(ana, "/agenda/kanboard/"+fmt.Sprint(booking.ID), map[string]any{"id": booking.ID + 1, "from": large[0].ID, "to": large[1].ID}).
				wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			e.post(ana, "/agenda/kanboard/abc", map[string]any{"from": 1, "to": 2}).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.post(ana, "/agenda/kanboard/-1", map[string]any{"from": 1, "to": 2}).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			// Hostile move bodies: wrong types, out-of-range numbers, missing or negative columns.
			movePath := fmt.Sprintf("/agenda/kanboard/%d", booking.ID)
			for _, raw := range []string{`{"from": 1e40, "to": 2}`, `{"from": 1.5, "to": 2}`, `{"from": null, "to": [2]}`, `[]`, `{"from":1,"to":2}{}`, ``} {
				e.post(ana, movePath, raw).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			}
			for _, tc := range []struct {
				body  map[string]any
				field string
				msg   string
			}{
				{map[string]any{"to": large[1].ID}, "from", engine.MsgRequired},
				{map[string]any{"from": large[0].ID}, "to", engine.MsgRequired},
				{map[string]any{"from": -5, "to": large[1].ID}, "from", engine.MsgInvalidValue},
				{map[string]any{"from": large[0].ID, "to": -5}, "to", engine.MsgInvalidValue},
				{map[string]any{"from": large[0].ID, "to": 999999}, "to", engine.MsgInvalidValue},
			} {
				body := e.post(ana, movePath, tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
				if body.Fields[tc.field] != tc.msg {
					t.Fatalf("%v: fields %v, want %s on %s", tc.body, body.Fields, tc.msg, tc.field)
				}
			}
			e.post(ana, "/agenda/kanboard", `{"size": 12}`).wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.post(ana, "/agenda/bookings", map[string]any{"description": "x", "date": "2026-11-27", "time": "09:00", "tagJson": "1; DROP TABLE bookings"}).
				wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			for _, q := range []string{"", "?from=2026-11-27T00:00:00Z", "?from=yesterday&to=2026-11-28T00:00:00Z",
				"?from=2026-11-28T00:00:00Z&to=2026-11-27T00:00:00Z", "?from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z",
				"?from=2026-11-27T00:00:00Z&to=2026-11-27T00:00:00Z", "?from=2026-11-27&to=2026-11-28",
				"?from=" + strings.Repeat("9", 5000) + "&to=2026-11-28T00:00:00Z"} {
				e.get(ana, "/agenda/bookings"+q).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			}
			e.wantNoEvent(t)
		})

		t.Run("permissions", func(t *testing.T) {
			// user and userplus book only for themselves; supervision for anyone.
			e.post(ana, "/agenda/bookings", map[string]any{"description": "x", "date": "2026-11-27", "time": "10:00",
				"userId": e.ids["bruno"]}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			forBruno := bkCreate(t, e, superv, map[string]any{"description": "Para o Bruno", "date": "2026-11-27", "time": "11:00",
				"userId": e.ids["bruno"]})
			if forBruno.UserID != e.ids["bruno"] {
				t.Fatalf("superv's booking for bruno %+v", forBruno)
			}
			// user and userplus move only their own cards; supervision any card.
			e.post(ana, fmt.Sprintf("/agenda/kanboard/%d", forBruno.ID), map[string]any{"from": large[0].ID, "to": large[1].ID}).
				wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			r := e.post(bruno, fmt.Sprintf("/agenda/kanboard/%d", forBruno.ID), map[string]any{"id": forBruno.ID, "from": large[0].ID, "to": large[1].ID})
			r.wantStatus(t, http.StatusOK)
			e.wantEvent(t, co1, "booking", "update")
			r = e.post(superv, fmt.Sprintf("/agenda/kanboard/%d", forBruno.ID), map[string]any{"from": large[1].ID, "to": large[2].ID})
			r.wantStatus(t, http.StatusOK)
			e.wantEvent(t, co1, "booking", "update")
			// No login, no access.
			e.post("", "/agenda/kanboard", map[string]any{"size": "large"}).wantStatus(t, http.StatusUnauthorized)
			e.wantNoEvent(t)
		})

		t.Run("tenant isolation", func(t *testing.T) {
			e.get(admin2, fmt.Sprintf("/agenda/bookings/%d", booking.ID)).wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.post(admin2, fmt.Sprintf("/agenda/kanboard/%d", booking.ID), map[string]any{"from": large[0].ID, "to": large[1].ID}).
				wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			other := bkBoard(t, e, admin2, "large")
			for _, c := range other {
				if len(c.ConfirmedBooking) != 0 {
					t.Fatalf("tenant 2 sees %+v", c.ConfirmedBooking)
				}
			}
			// A contact of tenant 1 cannot be named by tenant 2.
			contact, err := e.contacts.Create(t.Context(), co1, engine.ContactInput{Name: "Dona Maria", Number: "5565999990007"})
			if err != nil {
				t.Fatal(err)
			}
			e.post(admin2, "/agenda/bookings", map[string]any{"description": "x", "date": "2026-11-27", "time": "10:00",
				"contactId": contact.ID}).wantErr(t, http.StatusNotFound, engine.ErrNoContactFound)
			r := e.get(admin2, "/agenda/bookings?from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z")
			r.wantStatus(t, http.StatusOK)
			if !strings.Contains(string(r.Body), `"bookings":[]`) {
				t.Fatalf("tenant 2 range %s", r.Body)
			}
			e.wantNoEvent(t)
		})

		t.Run("move, stale move, conclude, calendar range", func(t *testing.T) {
			path := fmt.Sprintf("/agenda/kanboard/%d", booking.ID)
			e.post(ana, path, map[string]any{"id": booking.ID, "from": large[0].ID, "to": large[4].ID}).wantStatus(t, http.StatusOK)
			e.wantEvent(t, co1, "booking", "update")
			e.post(ana, path, map[string]any{"id": booking.ID, "from": large[0].ID, "to": large[5].ID}).
				wantErr(t, http.StatusConflict, engine.ErrConcurrentUpdate)
			r := e.post(ana, path, map[string]any{"id": booking.ID, "from": large[4].ID, "to": large[10].ID})
			r.wantStatus(t, http.StatusOK)
			if p := e.wantEvent(t, co1, "booking", "update"); p["booking"].(map[string]any)["label"] != engine.BookingLabelWon ||
				p["booking"].(map[string]any)["archived"] != true {
				t.Fatalf("conclude event %v", p)
			}
			for _, c := range bkBoard(t, e, ana, "large") {
				for _, b := range c.ConfirmedBooking {
					if b.ID == booking.ID {
						t.Fatalf("concluded card still in %s", c.Name)
					}
				}
			}
			r = e.get(ana, "/agenda/bookings?from=2026-11-27T00:00:00-04:00&to=2026-11-28T00:00:00-04:00")
			r.wantStatus(t, http.StatusOK)
			var got struct{ Bookings []engine.Booking }
			r.json(t, &got)
			if len(got.Bookings) != 2 || got.Bookings[0].ID != booking.ID || got.Bookings[0].Label != engine.BookingLabelWon {
				t.Fatalf("range %s", r.Body)
			}
			r = e.get(ana, fmt.Sprintf("/agenda/bookings/%d", booking.ID))
			r.wantStatus(t, http.StatusOK)
		})
	})
}

// TestKanbanConcurrentMoves: attendants drag the same card at once through the HTTP
// API; one move wins, the others answer 409.
func TestKanbanConcurrentMoves(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newBookingEnv(t, d)
		superv := e.tok("superv")
		cols := bkBoard(t, e, superv, "large")
		b := bkCreate(t, e, superv, map[string]any{"description": "disputado", "date": "2026-11-27", "time": "09:00"})
		const movers = 6
		var wg sync.WaitGroup
		status := make([]int, movers)
		for i := range movers {
			wg.Go(func() {
				status[i] = e.post(superv, fmt.Sprintf("/agenda/kanboard/%d", b.ID),
					map[string]any{"from": cols[0].ID, "to": cols[1+i].ID}).Status
			})
		}
		wg.Wait()
		ok := 0
		for _, s := range status {
			switch s {
			case http.StatusOK:
				ok++
			case http.StatusConflict:
			default:
				t.Fatalf("statuses %v", status)
			}
		}
		if ok != 1 {
			t.Fatalf("statuses %v: want exactly one 200", status)
		}
	})
}

// TestBookingTakesSlotOverHTTP: attendants book the same free slot at once through
// POST /agenda/bookings; one gets 201 with the slot, the others 409 ERR_SLOT_TAKEN,
// and the slot's resource hears the "slots" event; cancelling frees it again.
func TestBookingTakesSlotOverHTTP(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		re := &refEnv{}
		var slots *store.Slots
		re.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			slots = store.NewSlots(d, e.clock)
			deps.RefDeps = httpapi.RefDeps{Bookings: store.NewBookings(d, e.clock), Slots: slots}
		}))
		e := re
		superv, ana, admin2 := e.tok("superv"), e.tok("ana"), e.tok("admin2")
		anaID := e.ids["ana"]
		r := e.post(superv, "/places", map[string]any{"placeName": "Centro", "placeLat": -15.6, "placeLng": -56.1})
		var place engine.Place
		r.json(t, &place)
		r = e.post(ana, "/ws/capacityposition", map[string]any{"positionName": "Sala 1", "positionColor": "#112233", "placeId": place.ID, "userId": anaID})
		var pos engine.Position
		r.json(t, &pos)
		e.post(ana, "/insertavailability", []map[string]any{{"userId": anaID, "positionId": pos.ID,
			"toInsert": []string{"2026-11-23 07:00"}}}).wantStatus(t, http.StatusOK)
		e.pub.take()
		var page bookingSlotsPage
		e.post(ana, "/futureslots", map[string]any{"positionId": pos.ID, "userId": anaID}).json(t, &page)
		slot := page.Future[0]

		// Another tenant cannot take it.
		e.post(admin2, "/agenda/bookings", map[string]any{"description": "x", "date": "2026-11-23", "time": "07:00", "slotId": slot.ID}).
			wantErr(t, http.StatusNotFound, engine.ErrNoSlotFound)
		e.post(superv, "/agenda/bookings", map[string]any{"description": "x", "date": "2026-11-23", "time": "07:00", "slotId": -3}).
			wantErr(t, http.StatusBadRequest, engine.ErrValidation)

		const racers = 8
		status := make([]int, racers)
		bodies := make([][]byte, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				r := e.post(superv, "/agenda/bookings", map[string]any{"description": fmt.Sprintf("consulta %d", i),
					"date": "2026-11-23", "time": "07:00", "slotId": slot.ID})
				status[i], bodies[i] = r.Status, r.Body
			})
		}
		wg.Wait()
		var won engine.Booking
		for i, st := range status {
			switch st {
			case http.StatusCreated:
				if won.ID != 0 {
					t.Fatalf("two bookings took slot %d: %v", slot.ID, status)
				}
				if err := json.Unmarshal(bodies[i], &won); err != nil {
					t.Fatal(err)
				}
			case http.StatusConflict:
				if !strings.Contains(string(bodies[i]), string(engine.ErrSlotTaken)) {
					t.Fatalf("refusal %s", bodies[i])
				}
			default:
				t.Fatalf("statuses %v", status)
			}
		}
		if won.ID == 0 || won.Slot == nil || won.Slot.SlotID != slot.ID || won.Slot.UserID != anaID {
			t.Fatalf("statuses %v, winner %+v", status, won)
		}
		ev := e.pub.take()
		if len(ev) != 2 || ev[0].Name != "booking" || ev[1].Name != "slots" || ev[1].Payload["userId"] != float64(anaID) ||
			ev[1].Payload["positionId"] != float64(pos.ID) {
			t.Fatalf("events %+v", ev)
		}
		e.post(ana, "/futureslots", map[string]any{"positionId": pos.ID, "userId": anaID}).json(t, &page)
		if !page.Future[0].Booked {
			t.Fatalf("slot after booking %+v", page.Future)
		}

		// Cancelling frees it, and says so on the socket.
		cols := bkBoard(t, e, superv, "large")
		e.post(superv, fmt.Sprintf("/agenda/kanboard/%d", won.ID), map[string]any{"from": won.ColumnID, "to": cols[11].ID}).
			wantStatus(t, http.StatusOK)
		ev = e.pub.take()
		if len(ev) != 2 || ev[1].Name != "slots" || ev[1].Payload["positionId"] != float64(pos.ID) {
			t.Fatalf("events after cancel %+v", ev)
		}
		e.post(ana, "/futureslots", map[string]any{"positionId": pos.ID, "userId": anaID}).json(t, &page)
		if page.Future[0].Booked {
			t.Fatalf("slot after cancel %+v", page.Future)
		}
	})
}
