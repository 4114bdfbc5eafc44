package httpapi

import (
	"net/http"
	"time"

	"atende/engine"
)

// bookingEvent is the payload of the realtime "booking" event, published to the
// tenant when a booking is created or its card moves (concluded and cancelled cards
// come with archived true, so boards drop them at once).
type bookingEvent struct {
	Action  string          `json:"action"` // create | update
	Booking *engine.Booking `json:"booking"`
}

// bookingRoutes registers the calendar's bookings and the kanban board. Every profile
// with the schedule menu reads them, books for itself and moves its own cards;
// agenda:manageAll books for and moves the cards of other attendants. Without a
// booking store the routes answer 503.
func (s *Server) bookingRoutes() {
	wired := s.deps.Bookings != nil
	s.refRoute("POST /agenda/kanboard", wired, s.kanbanBoard)
	s.refRoute("POST /agenda/kanboard/{id}", wired, s.moveKanbanCard)
	s.refRoute("GET /agenda/bookings", wired, s.listBookings)
	s.refRoute("POST /agenda/bookings", wired, s.createBooking)
	s.refRoute("GET /agenda/bookings/{id}", wired, s.getBooking)
}

// kanbanBoard: POST /agenda/kanboard {size} → [{id, name, position, kind, short,
// ConfirmedBooking: [booking…]}]. Size 'large' answers the tenant's 12 columns,
// anything else the short board. Archived (concluded, cancelled) cards are left out.
func (s *Server) kanbanBoard(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewScheduleMenu); err != nil {
		return err
	}
	var in struct {
		Size string `json:"size"`
	}
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	size := engine.KanbanShort
	if in.Size == engine.KanbanLarge {
		size = engine.KanbanLarge
	}
	cols, err := s.deps.Bookings.Board(r.Context(), p.CompanyID, size)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cols)
	return nil
}

// moveKanbanCard: POST /agenda/kanboard/{id} {id, from, to} → the booking. from must
// be the card's current column, else 409 ERR_CONCURRENT_UPDATE (someone moved it
// first); to a won or lost column concludes or cancels the card. A body id, when
// given, must be the path's.
func (s *Server) moveKanbanCard(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewScheduleMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNotFound)
	if err != nil {
		return err
	}
	var in struct {
		ID   engine.ID `json:"id"`
		From engine.ID `json:"from"`
		To   engine.ID `json:"to"`
	}
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	if in.ID != 0 && in.ID != id {
		return fieldError("id", engine.MsgInvalidValue)
	}
	m := engine.BookingMove{ID: id, From: in.From, To: in.To}
	if !p.Can(engine.ActManageAllBookings) {
		m.OwnerID = p.UserID
	}
	b, err := s.deps.Bookings.Move(r.Context(), p.CompanyID, m)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "booking", bookingEvent{Action: "update", Booking: &b})
	if b.ReleasedSlot != nil {
		s.publishSlotChange(p.CompanyID, *b.ReleasedSlot)
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

// listBookings: GET /agenda/bookings?from=&to= (RFC 3339, to after from, at most 62
// days apart) → {bookings: [...]}, those overlapping the window by start, archived
// ones included (the calendar keeps history).
func (s *Server) listBookings(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewScheduleMenu); err != nil {
		return err
	}
	from, err := time.Parse(time.RFC3339, queryString(r, "from"))
	if err != nil {
		return fieldError("from", engine.MsgInvalidValue)
	}
	to, err := time.Parse(time.RFC3339, queryString(r, "to"))
	if err != nil || !to.After(from) || to.Sub(from) > engine.BookingRangeMaxDays*24*time.Hour {
		return fieldError("to", engine.MsgInvalidValue)
	}
	list, err := s.deps.Bookings.Range(r.Context(), p.CompanyID, from, to)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"bookings": list})
	return nil
}

// createBooking: POST /agenda/bookings {description, date, time, duration, contactId,
// userId, slotId?, …} → 201 booking, in the board's first column. userId 0 books for
// the requester; another attendant's needs agenda:manageAll. slotId takes a free slot
// of the booking scheduler in the booking's transaction (409 ERR_SLOT_TAKEN when
// another booking has it, 404 ERR_NO_SLOT_FOUND for none of this tenant); the booking
// then starts at the slot, lasts one grid step and carries the slot's position.
func (s *Server) createBooking(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewScheduleMenu); err != nil {
		return err
	}
	var in engine.BookingInput
	err := s.decodeJSON(r, &in)
	if err != nil {
		return err
	}
	if in.UserID == 0 {
		in.UserID = p.UserID
	}
	if in.UserID != p.UserID && !p.Can(engine.ActManageAllBookings) {
		return engine.E(engine.ErrNoPermission)
	}
	if in.Zone, err = s.tenantZone(r.Context(), p.CompanyID); err != nil {
		return err
	}
	b, err := s.deps.Bookings.Create(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "booking", bookingEvent{Action: "create", Booking: &b})
	if b.Slot != nil {
		s.publishSlotChange(p.CompanyID, *b.Slot)
	}
	writeJSON(w, http.StatusCreated, b)
	return nil
}

// getBooking: GET /agenda/bookings/{id} (the card's info button).
func (s *Server) getBooking(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActViewScheduleMenu); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNotFound)
	if err != nil {
		return err
	}
	b, err := s.deps.Bookings.Get(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, b)
	return nil
}

// publishSlotChange tells the tenant's screens that a resource's slots changed
// because a booking took or gave back one (the same "slots" event availability
// changes send), so open booking modals and user modals reload that resource.
func (s *Server) publishSlotChange(companyID engine.ID, slot engine.BookingSlot) {
	s.publish(companyID, "slots", slotsEvent{Action: "update", UserID: slot.UserID, PositionID: slot.PositionID})
}
