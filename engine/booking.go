package engine

import (
	"context"
	"strings"
	"time"
	_ "time/tzdata" // bookings' local date and time must load on hosts without zoneinfo
)

// Kanban column kinds. A card moved into a won or lost column is concluded or
// cancelled: it gets the column's label and is archived (it leaves the board).
const (
	KanbanOpen = "open"
	KanbanWon  = "won"
	KanbanLost = "lost"
)

// Labels a concluded or cancelled booking gets (spec section 4, Kanban).
const (
	BookingLabelWon  = "✅ Fechou"
	BookingLabelLost = "❌ Desqualificado"
)

// Board sizes of POST /agenda/kanboard: large shows the tenant's 12 columns, short
// the columns marked short (spec section 9: 'large' when 12 columns, else 'short').
const (
	KanbanLarge = "large"
	KanbanShort = "short"
)

// BookingStatusReduced is the booking status the board shows as a reduced card
// (spec section 3).
const BookingStatusReduced = 26

// MsgBookingDescription is the section-5 message for a booking without description.
const MsgBookingDescription = "Insira uma descrição da tarefa"

// Booking limits (Atende's choice where the spec is silent).
const (
	BookingTextMax         = 400  // description, names, type info
	BookingDefaultDuration = 30   // minutes, the agenda's 30-minute step
	BookingMaxDuration     = 720  // minutes: twelve hours
	BookingRangeMaxDays    = 62   // widest window GET /agenda/bookings answers (a month view and its edges)
	BookingFieldMax        = 100  // cpf, date of birth, distance, position name
	BookingRangeMax        = 2000 // most bookings one range answers
)

// KanbanColumn is one column of a tenant's board, with its open (not archived)
// bookings in ConfirmedBooking (the spec's field name), oldest first.
type KanbanColumn struct {
	ID               ID        `json:"id"`
	Name             string    `json:"name"`
	Position         int       `json:"position"`
	Kind             string    `json:"kind"`
	Short            bool      `json:"short"`
	ConfirmedBooking []Booking `json:"ConfirmedBooking"`
}

// Booking is an appointment of the agenda (spec section 3): on the calendar between
// BookingTzidFrom and BookingTzidTo (UTC; the web app shows them in the tenant's zone)
// and as a card of the kanban board in ColumnID. Username, Name, ContactNumber and
// ProfilePicURL are read from the user and the contact. TagJSON is the level '1' to
// '10' that colours the card. Label is set when the card is concluded or cancelled,
// and Archived then takes it off the board.
type Booking struct {
	ID              ID        `json:"id"`
	BookingID       ID        `json:"bookingId"`
	ColumnID        ID        `json:"columnId"`
	BookingName     string    `json:"bookingName"`
	BookingTypeName string    `json:"bookingTypeName"`
	BookingTypeInfo string    `json:"bookingTypeInfo"`
	BookingTzidFrom time.Time `json:"bookingTzidFrom"`
	BookingTzidTo   time.Time `json:"bookingTzidTo"`
	UserID          ID        `json:"userId"`
	Username        string    `json:"username"`
	Description     string    `json:"description"`
	TagJSON         string    `json:"tagJson"`
	PositionName    string    `json:"positionName"`
	PositionColor   string    `json:"positionColor"`
	ContactID       ID        `json:"contactId"`
	Name            string    `json:"name"`
	ContactNumber   string    `json:"contactNumber"`
	ContactCpf      string    `json:"contactCpf"`
	ContactDob      string    `json:"contactDob"`
	ProfilePicURL   string    `json:"profilePicUrl"`
	Distance        string    `json:"distance"`
	Status          int       `json:"status"`
	Label           string    `json:"label"`
	Archived        bool      `json:"archived"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	// Slot is the booking scheduler's slot the booking holds, nil for none.
	Slot *BookingSlot `json:"slot,omitempty"`
	// ReleasedSlot, on the answer of a cancelling move only, is the slot the move
	// gave back (so every screen of that resource can show it free again).
	ReleasedSlot *BookingSlot `json:"releasedSlot,omitempty"`
}

// BookingInput is the booking modal (POST /agenda/bookings). Date (YYYY-MM-DD) and
// Time (HH:MM) are wall-clock time in the tenant's zone; Duration is in minutes (0
// means 30). ContactID and UserID 0 mean none and the requester. TagJSON ” means '1'.
type BookingInput struct {
	Description     string `json:"description"`
	Date            string `json:"date"`
	Time            string `json:"time"`
	Duration        int    `json:"duration"`
	BookingName     string `json:"bookingName"`
	BookingTypeName string `json:"bookingTypeName"`
	BookingTypeInfo string `json:"bookingTypeInfo"`
	TagJSON         string `json:"tagJson"`
	PositionName    string `json:"positionName"`
	PositionColor   string `json:"positionColor"`
	ContactCpf      string `json:"contactCpf"`
	ContactDob      string `json:"contactDob"`
	Distance        string `json:"distance"`
	Status          int    `json:"status"`
	ContactID       ID     `json:"contactId"`
	UserID          ID     `json:"userId"`
	// SlotID, when set, is a free slot of the booking scheduler that the booking takes:
	// the store claims it in the booking's transaction (one conditional UPDATE), and the
	// booking's start, end and position come from the slot, not from Date and Time.
	SlotID ID `json:"slotId"`
	// Zone is the tenant's zone Date and Time are read in; nil is BookingZone().
	Zone *time.Location `json:"-"`

	// StartsAt and EndsAt are set by ValidateBooking from Date, Time and Duration.
	StartsAt time.Time `json:"-"`
	EndsAt   time.Time `json:"-"`
}

// BookingSlot names a slot a booking holds or held: the slot, its position and the
// position's user (the resource whose availability changed).
type BookingSlot struct {
	SlotID     ID `json:"slotId"`
	PositionID ID `json:"positionId"`
	UserID     ID `json:"userId"`
}

// BookingZone is the zone a booking's date and time are read in: the tenant's zone
// (the product keeps Cuiabá time, like queue hours).
func BookingZone() *time.Location {
	loc, err := time.LoadLocation(QueueTimeZone)
	if err != nil { // cannot happen: time/tzdata is embedded
		return time.UTC
	}
	return loc
}

// ValidateBooking checks the booking modal in the spec's order — description
// ('Insira uma descrição da tarefa'), then date, then time — and the optional fields;
// it trims texts and sets StartsAt and EndsAt (UTC). A local time that a
// daylight-saving change skips is moved forward by the gap, as time.Date does.
func ValidateBooking(in BookingInput) (BookingInput, error) {
	out := in
	for _, p := range []*string{&out.Description, &out.Date, &out.Time, &out.BookingName, &out.BookingTypeName,
		&out.BookingTypeInfo, &out.TagJSON, &out.PositionName, &out.PositionColor, &out.ContactCpf,
		&out.ContactDob, &out.Distance} {
		*p = strings.TrimSpace(*p)
	}
	f := fieldErrors{}
	switch {
	case out.Description == "":
		f.add("description", MsgBookingDescription)
	case !multiLine(out.Description):
		f.add("description", MsgInvalidValue)
	case runeLen(out.Description) > BookingTextMax:
		f.add("description", MsgTooLong)
	}
	day, dayErr := time.Parse(time.DateOnly, out.Date)
	switch {
	case out.Date == "":
		f.add("date", MsgRequired)
	case dayErr != nil || day.Year() < 2000 || day.Year() > 2999:
		f.add("date", MsgInvalidValue)
	}
	switch {
	case out.Time == "":
		f.add("time", MsgRequired)
	case !isHHMM(out.Time):
		f.add("time", MsgInvalidTime)
	}
	if out.Duration == 0 {
		out.Duration = BookingDefaultDuration
	}
	if out.Duration < 5 || out.Duration > BookingMaxDuration {
		f.add("duration", MsgInvalidValue)
	}
	f.text("bookingName", out.BookingName, false, 0, BookingTextMax)
	f.text("bookingTypeName", out.BookingTypeName, false, 0, BookingTextMax)
	f.longText("bookingTypeInfo", out.BookingTypeInfo, false, BookingTextMax)
	if out.TagJSON == "" {
		out.TagJSON = "1"
	}
	if TagLevel(out.TagJSON) == 0 {
		f.add("tagJson", MsgInvalidValue)
	}
	for field, v := range map[string]string{"positionName": out.PositionName, "contactCpf": out.ContactCpf,
		"contactDob": out.ContactDob, "distance": out.Distance} {
		f.text(field, v, false, 0, BookingFieldMax)
	}
	if out.PositionColor != "" && !isHexColor(out.PositionColor) {
		f.add("positionColor", MsgInvalidColor)
	}
	if out.Status < 0 || out.Status > 1000 {
		f.add("status", MsgInvalidValue)
	}
	f.id("contactId", out.ContactID, false)
	f.id("userId", out.UserID, false)
	f.id("slotId", out.SlotID, false)
	if len(f) == 0 {
		hh := int(out.Time[0]-'0')*10 + int(out.Time[1]-'0')
		mm := int(out.Time[3]-'0')*10 + int(out.Time[4]-'0')
		loc := out.Zone
		if loc == nil {
			loc = BookingZone()
		}
		start := time.Date(day.Year(), day.Month(), day.Day(), hh, mm, 0, 0, loc)
		out.StartsAt = start.UTC()
		out.EndsAt = start.Add(time.Duration(out.Duration) * time.Minute).UTC()
	}
	return finish(in, out, f)
}

// TagLevel is the level '1' to '10' of a booking's tagJson as a number, 0 when it is
// anything else.
func TagLevel(s string) int {
	switch len(s) {
	case 1:
		if s[0] >= '1' && s[0] <= '9' {
			return int(s[0] - '0')
		}
	case 2:
		if s == "10" {
			return 10
		}
	}
	return 0
}

// BookingMove is a card moved on the board (POST /agenda/kanboard/{id}): from must be
// the card's current column. OwnerID non-zero limits the move to that user's
// bookings (user and userplus move only their own).
type BookingMove struct {
	ID      ID
	From    ID
	To      ID
	OwnerID ID
}

// BookingStore keeps a tenant's kanban columns and bookings. Rows of another tenant
// are not found (ErrNotFound).
type BookingStore interface {
	// Board returns the tenant's columns for size (KanbanLarge or KanbanShort) with
	// their open bookings, creating the default columns the first time.
	Board(ctx context.Context, companyID ID, size string) ([]KanbanColumn, error)
	// Create validates in with ValidateBooking and puts the booking in the board's
	// first column. in.UserID must be set (the caller resolves "me"); a user or
	// contact of another tenant answers ErrNoUserFound or ErrNoContactFound.
	Create(ctx context.Context, companyID ID, in BookingInput) (Booking, error)
	Get(ctx context.Context, companyID, id ID) (Booking, error)
	// Range lists the bookings (archived too) that overlap [from, to), by start.
	Range(ctx context.Context, companyID ID, from, to time.Time) ([]Booking, error)
	// Move puts the card in column To with one conditional UPDATE. A card not in
	// From (moved meanwhile, or archived) answers ErrConcurrentUpdate; another
	// user's card with OwnerID set answers ErrNoPermission; a To column of another
	// tenant answers a validation error on "to".
	Move(ctx context.Context, companyID ID, m BookingMove) (Booking, error)
}
