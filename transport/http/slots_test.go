package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
)

// The env's clock is Sunday 2026-11-22 08:00 in America/Cuiaba (12:00Z): Monday 23
// is the next grid day.

func newSlotEnv(t *testing.T, d *db.DB) (*refEnv, *store.Slots) {
	t.Helper()
	var slots *store.Slots
	e := newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		slots = store.NewSlots(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Slots: slots}
	}))
	return &refEnv{env: e}, slots
}

type bookingSlotsPage struct {
	Future    []engine.Slot `json:"futureSlots"`
	Available []engine.Slot `json:"availableSlots"`
	Created   int           `json:"created"`
}

func TestSlotRoutes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e, slots := newSlotEnv(t, d)
		ana, bruno, superv, admin2 := e.tok("ana"), e.tok("bruno"), e.tok("superv"), e.tok("admin2")
		anaID := e.ids["ana"]

		// Places: supervision writes, everyone reads, tenants apart.
		e.post(ana, "/places", map[string]any{"placeName": "Centro", "placeLat": 1, "placeLng": 2}).
			wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		r := e.post(superv, "/places", map[string]any{"placeName": "Centro", "placeLat": -15.6, "placeLng": -56.1})
		r.wantStatus(t, http.StatusCreated)
		var place engine.Place
		r.json(t, &place)
		e.wantEvent(t, co1, "place", "create")
		e.post(superv, "/places", map[string]any{"placeName": "C", "placeLng": 2}).
			wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.wantNoEvent(t)
		var places struct {
			Curr []map[string]any `json:"currPlaces"`
		}
		e.get(ana, "/places").json(t, &places)
		if len(places.Curr) != 1 || places.Curr[0]["placeName"] != "Centro" || places.Curr[0]["placeLat"] != -15.6 || places.Curr[0]["placeId"] != float64(place.ID) {
			t.Fatalf("places %+v", places)
		}
		e.get(admin2, "/places").json(t, &places)
		if len(places.Curr) != 0 {
			t.Fatalf("tenant 2 sees %+v", places)
		}
		e.del(admin2, fmt.Sprintf("/places/%d", place.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoPlaceFound)

		// Positions: ana creates her own; she may not create bruno's; superv may.
		pos := map[string]any{"positionName": "Sala 1", "positionColor": "#112233", "placeId": place.ID, "userId": anaID}
		r = e.post(ana, "/ws/capacityposition", pos)
		r.wantStatus(t, http.StatusCreated)
		var anaPos engine.Position
		r.json(t, &anaPos)
		e.wantEvent(t, co1, "position", "create")
		brunoPos := map[string]any{"positionName": "Sala 2", "positionColor": "#112233", "placeId": place.ID, "userId": e.ids["bruno"]}
		e.post(ana, "/ws/capacityposition", brunoPos).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.post(superv, "/ws/capacityposition", brunoPos).wantStatus(t, http.StatusCreated)
		e.wantEvent(t, co1, "position", "create")
		e.post(ana, "/ws/capacityposition", map[string]any{"positionName": "S", "positionColor": "blue", "userId": anaID}).
			wantErr(t, http.StatusBadRequest, engine.ErrValidation)
		e.post(admin2, "/ws/capacityposition", map[string]any{"positionId": anaPos.ID, "positionName": "Roubada",
			"positionColor": "#000000", "placeId": place.ID, "userId": e.ids["admin2"]}).wantErr(t, http.StatusNotFound, engine.ErrNoPlaceFound)
		r = e.post(ana, "/ws/capacityposition", map[string]any{"positionId": anaPos.ID, "positionName": "Sala 9",
			"positionColor": "#112233", "placeId": place.ID, "userId": anaID})
		r.wantStatus(t, http.StatusOK)
		e.wantEvent(t, co1, "position", "update")
		var positions struct {
			Curr []map[string]any `json:"currPositions"`
		}
		e.get(bruno, fmt.Sprintf("/listpositions/%d", anaID)).json(t, &positions)
		if len(positions.Curr) != 1 || positions.Curr[0]["positionName"] != "Sala 9" || positions.Curr[0]["positionId"] != float64(anaPos.ID) ||
			positions.Curr[0]["placeId"] != float64(place.ID) || positions.Curr[0]["userId"] != float64(anaID) || positions.Curr[0]["positionColor"] != "#112233" {
			t.Fatalf("positions %+v", positions)
		}
		e.get(admin2, fmt.Sprintf("/listpositions/%d", anaID)).wantErr(t, http.StatusNotFound, engine.ErrNoUserFound)
		e.get(ana, "/listpositions/abc").wantErr(t, http.StatusNotFound, engine.ErrNoUserFound)
		e.del(superv, fmt.Sprintf("/places/%d", place.ID)).wantErr(t, http.StatusConflict, engine.ErrPlaceInUse)

		// Availability by grid and by lists.
		grid := []map[string]any{{"userId": anaID, "positionId": anaPos.ID, "weekStart": "2026-11-23",
			"toInsert": []string{"2026-11-23 07:00", "2026-11-24 12:30", "2026-11-28 19:00"}}}
		e.post(bruno, "/insertavailabilitybygrid", grid).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		e.post(admin2, "/insertavailabilitybygrid", grid).wantErr(t, http.StatusNotFound, engine.ErrNoPositionFound)
		r = e.post(ana, "/insertavailabilitybygrid", grid)
		r.wantStatus(t, http.StatusOK)
		if got := r.obj(t); got["inserted"] != float64(3) || got["removed"] != float64(0) {
			t.Fatalf("grid answer %v", got)
		}
		e.wantEvent(t, co1, "slots", "update")
		slotBody := map[string]any{"positionId": anaPos.ID, "userId": anaID}
		var page bookingSlotsPage
		e.post(bruno, "/futureslots", slotBody).json(t, &page)
		if len(page.Future) != 3 || page.Future[0].Date != "2026-11-23" || page.Future[0].Hour != "07:00" || page.Future[0].ID == 0 {
			t.Fatalf("future slots %+v", page.Future)
		}
		raw := e.post(ana, "/futureslots", slotBody).obj(t)
		first := raw["futureSlots"].([]any)[0].(map[string]any)
		for _, k := range []string{"slotId", "slotDate", "slotHour"} {
			if _, ok := first[k]; !ok {
				t.Fatalf("slot without %s: %v", k, first)
			}
		}
		e.post(ana, "/availableslots", map[string]any{"positionId": anaPos.ID, "userId": anaID, "days": 7}).json(t, &page)
		if len(page.Available) != 6*25-3 {
			t.Fatalf("available %d", len(page.Available))
		}
		r = e.post(superv, "/insertavailability", map[string]any{"userId": anaID, "positionId": anaPos.ID,
			"toInsert": []string{"2026-11-25 08:00"}, "toRemove": []string{"2026-11-23 07:00"}})
		if got := r.obj(t); r.Status != http.StatusOK || got["inserted"] != float64(1) || got["removed"] != float64(1) {
			t.Fatalf("lists %d %v", r.Status, got)
		}
		e.wantEvent(t, co1, "slots", "update")

		// Bad input: each answers ERR_VALIDATION or ERR_INVALID_JSON, nothing written.
		for _, tc := range []struct {
			path  string
			body  any
			field string
		}{
			{"/insertavailability", []map[string]any{{"userId": anaID, "positionId": anaPos.ID, "toInsert": []string{"2026-11-23 07:15"}}}, "0.toInsert"},
			{"/insertavailability", []map[string]any{{"userId": anaID, "positionId": anaPos.ID, "toRemove": []string{"amanhã"}}}, "0.toRemove"},
			{"/insertavailabilitybygrid", []any{}, "entries"},
			{"/insertavailabilitybygrid", []map[string]any{{"userId": anaID}}, "0.positionId"},
			{"/futureslots", map[string]any{"userId": anaID}, "positionId"},
			{"/availableslots", map[string]any{"userId": anaID, "positionId": anaPos.ID, "days": 100000}, "days"},
		} {
			body := e.post(ana, tc.path, tc.body).wantErr(t, http.StatusBadRequest, engine.ErrValidation)
			if body.Fields[tc.field] == "" {
				t.Fatalf("%s %v: fields %v, want %s", tc.path, tc.body, body.Fields, tc.field)
			}
		}
		for _, body := range []string{`[{"userId": "x"}]`, `"text"`, `[1,2]`, `{"toInsert": 5}`, `[` + strings.Repeat(`[`, 5000)} {
			r := e.do(req{method: "POST", path: "/insertavailability", token: ana, body: body})
			if r.Status != http.StatusBadRequest && r.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("body %.30q: status %d %s", body, r.Status, r.Body)
			}
		}
		e.wantNoEvent(t)

		// Another tenant cannot read or write ana's slots.
		e.post(admin2, "/futureslots", slotBody).wantErr(t, http.StatusNotFound, engine.ErrNoPositionFound)
		e.post(admin2, "/createslots", slotBody).wantErr(t, http.StatusNotFound, engine.ErrNoPositionFound)
		e.post(ana, "/createslots", map[string]any{"positionId": anaPos.ID, "userId": e.ids["bruno"]}).
			wantErr(t, http.StatusForbidden, engine.ErrNoPermission)

		// createslots fills the next day's grade (Monday: 25 cells; 07:00 was removed above).
		e.post(ana, "/createslots", map[string]any{"positionId": anaPos.ID, "userId": anaID, "days": 1}).json(t, &page)
		if page.Created != 25 || len(page.Future) != 28 {
			t.Fatalf("createslots created %d future %d", page.Created, len(page.Future))
		}
		e.wantEvent(t, co1, "slots", "update")

		// A booked slot cannot leave the availability.
		if err := slots.Book(t.Context(), co1, page.Future[0].ID, 77); err != nil {
			t.Fatal(err)
		}
		e.post(ana, "/insertavailability", map[string]any{"userId": anaID, "positionId": anaPos.ID,
			"toRemove": []string{page.Future[0].Date + " " + page.Future[0].Hour}}).wantErr(t, http.StatusConflict, engine.ErrSlotTaken)
		e.wantNoEvent(t)
	})
}
