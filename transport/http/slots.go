package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"atende/engine"
)

// The booking scheduler's routes (issue 11 item 5; spec section 7): places,
// positions, slots and availability, over engine.SlotStore (RefDeps.Slots).
//
// Every profile of the tenant may read places, positions and slots (whoever books
// needs to see availability). Writing a user's position or availability is allowed to
// that user and to users:manage; places need places:manage. Changes publish, to the
// tenant: "place" {action: create | delete, place | placeId}, "position" {action:
// create | update, position} and "slots" {action: "update", userId, positionId}.

// slotRoutes registers the routes; wired false makes them answer 503.
func (s *Server) slotRoutes() {
	wired := s.deps.Slots != nil
	s.refRoute("GET /places", wired, s.listPlaces)
	s.refRoute("GET /places/{$}", wired, s.listPlaces)
	s.refRoute("POST /places", wired, s.createPlace)
	s.refRoute("DELETE /places/{id}", wired, s.deletePlace)
	s.refRoute("GET /listpositions/{userId}", wired, s.listPositions)
	s.refRoute("POST /ws/capacityposition", wired, s.savePosition)
	s.refRoute("POST /futureslots", wired, s.futureSlots)
	s.refRoute("POST /availableslots", wired, s.availableSlots)
	s.refRoute("POST /createslots", wired, s.createSlots)
	s.refRoute("POST /insertavailabilitybygrid", wired, s.insertAvailability)
	s.refRoute("POST /insertavailability", wired, s.insertAvailability)
}

type placeEvent struct {
	Action  string        `json:"action"` // create | delete
	Place   *engine.Place `json:"place,omitempty"`
	PlaceID engine.ID     `json:"placeId,omitempty"`
}

type positionEvent struct {
	Action   string          `json:"action"` // create | update
	Position engine.Position `json:"position"`
}

type slotsEvent struct {
	Action     string    `json:"action"` // update
	UserID     engine.ID `json:"userId"`
	PositionID engine.ID `json:"positionId"`
}

// mayEditResource: a user edits their own positions and slots; users:manage edits
// anyone's (spec section 6: editing another user is a supervision task).
func mayEditResource(p engine.Principal, userID engine.ID) error {
	if userID == p.UserID {
		return nil
	}
	return requirePermission(p, engine.ActManageUsers)
}

// listPlaces: GET /places → {currPlaces: [{placeId, placeName, placeLat, placeLng}]}.
func (s *Server) listPlaces(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	places, err := s.deps.Slots.ListPlaces(r.Context(), p.CompanyID)
	if err != nil {
		return fmt.Errorf("list places: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"currPlaces": places})
	return nil
}

// createPlace: POST /places {placeName, placeLat, placeLng} → 201 the place. Needs
// places:manage.
func (s *Server) createPlace(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManagePlaces); err != nil {
		return err
	}
	var in engine.PlaceInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	place, err := s.deps.Slots.CreatePlace(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "place", placeEvent{Action: "create", Place: &place})
	writeJSON(w, http.StatusCreated, place)
	return nil
}

// deletePlace: DELETE /places/{id} → 204; 409 ERR_PLACE_IN_USE while positions are
// at it. Needs places:manage.
func (s *Server) deletePlace(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManagePlaces); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoPlaceFound)
	if err != nil {
		return err
	}
	if err := s.deps.Slots.DeletePlace(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "place", placeEvent{Action: "delete", PlaceID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// listPositions: GET /listpositions/{userId} → {currPositions: [{positionId, placeId,
// userId, positionName, positionColor}]}; a user of another tenant is 404.
func (s *Server) listPositions(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	userID, err := pathID(r, "userId", engine.ErrNoUserFound)
	if err != nil {
		return err
	}
	list, err := s.deps.Slots.ListPositions(r.Context(), p.CompanyID, userID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"currPositions": list})
	return nil
}

// savePosition: POST /ws/capacityposition {positionId?, positionName, positionColor,
// placeId, userId}: without positionId creates the user's position (201), with it
// updates that position (200). The user or users:manage.
func (s *Server) savePosition(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var in engine.PositionInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	if in.UserID > 0 {
		if err := mayEditResource(p, in.UserID); err != nil {
			return err
		}
	}
	pos, err := s.deps.Slots.SavePosition(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	status, action := http.StatusOK, "update"
	if in.PositionID == 0 {
		status, action = http.StatusCreated, "create"
	}
	s.publish(p.CompanyID, "position", positionEvent{Action: action, Position: pos})
	writeJSON(w, status, pos)
	return nil
}

// slotQuery is the body of the slot routes; Days (optional) reaches further ahead
// for the available grade and createslots ("More dates").
type slotQuery struct {
	PositionID engine.ID `json:"positionId"`
	UserID     engine.ID `json:"userId"`
	Days       int       `json:"days"`
}

func (s *Server) decodeSlotQuery(r *http.Request) (slotQuery, error) {
	var q slotQuery
	if err := s.decodeJSON(r, &q); err != nil {
		return q, err
	}
	f := map[string]string{}
	if q.PositionID <= 0 {
		f["positionId"] = engine.MsgRequired
	}
	if q.UserID <= 0 {
		f["userId"] = engine.MsgRequired
	}
	if q.Days < 0 || q.Days > engine.MaxSlotDays {
		f["days"] = engine.MsgInvalidValue
	}
	if len(f) > 0 {
		return q, &engine.Error{Code: engine.ErrValidation, Fields: f}
	}
	return q, nil
}

// futureSlots: POST /futureslots {positionId, userId} → {futureSlots: [{slotId,
// slotDate, slotHour, slotAt, booked}]}, from now on.
func (s *Server) futureSlots(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := s.decodeSlotQuery(r)
	if err != nil {
		return err
	}
	slots, err := s.deps.Slots.FutureSlots(r.Context(), p.CompanyID, q.UserID, q.PositionID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"futureSlots": slots})
	return nil
}

// availableSlots: POST /availableslots {positionId, userId, days?} → {availableSlots}:
// the grid cells of the next days days (default 14) that are not slots yet.
func (s *Server) availableSlots(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := s.decodeSlotQuery(r)
	if err != nil {
		return err
	}
	slots, err := s.deps.Slots.AvailableSlots(r.Context(), p.CompanyID, q.UserID, q.PositionID, q.Days)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"availableSlots": slots})
	return nil
}

// createSlots: POST /createslots {positionId, userId, days?} → {created,
// futureSlots}: every grid cell of the next days days becomes a slot. The user or
// users:manage.
func (s *Server) createSlots(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := s.decodeSlotQuery(r)
	if err != nil {
		return err
	}
	if err := mayEditResource(p, q.UserID); err != nil {
		return err
	}
	n, err := s.deps.Slots.CreateSlots(r.Context(), p.CompanyID, q.UserID, q.PositionID, q.Days)
	if err != nil {
		return err
	}
	slots, err := s.deps.Slots.FutureSlots(r.Context(), p.CompanyID, q.UserID, q.PositionID)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "slots", slotsEvent{Action: "update", UserID: q.UserID, PositionID: q.PositionID})
	writeJSON(w, http.StatusOK, map[string]any{"created": n, "futureSlots": slots})
	return nil
}

// insertAvailability: POST /insertavailability and /insertavailabilitybygrid, a list
// of {userId, positionId, toInsert, toRemove?, weekStart?} (a single object is read
// as a list of one) → {inserted, removed}. Slots are 'YYYY-MM-DD HH:mm' in the
// tenant's zone. All entries apply or none; every entry must be the caller's or the
// caller needs users:manage.
func (s *Server) insertAvailability(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	var raw json.RawMessage
	if err := s.decodeJSON(r, &raw); err != nil {
		return err
	}
	var entries []engine.AvailabilityEntry
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var one engine.AvailabilityEntry
		if err := json.Unmarshal(trimmed, &one); err != nil {
			return engine.Wrap(engine.ErrInvalidJSON, err)
		}
		entries = []engine.AvailabilityEntry{one}
	} else if err := json.Unmarshal(trimmed, &entries); err != nil {
		return engine.Wrap(engine.ErrInvalidJSON, err)
	}
	for _, e := range entries {
		if e.UserID > 0 {
			if err := mayEditResource(p, e.UserID); err != nil {
				return err
			}
		}
	}
	res, err := s.deps.Slots.SetAvailability(r.Context(), p.CompanyID, entries)
	if err != nil {
		return err
	}
	seen := map[[2]engine.ID]bool{}
	for _, e := range entries {
		k := [2]engine.ID{e.UserID, e.PositionID}
		if !seen[k] {
			seen[k] = true
			s.publish(p.CompanyID, "slots", slotsEvent{Action: "update", UserID: e.UserID, PositionID: e.PositionID})
		}
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
