package engine

import (
	"context"
	"math"
	"strings"
	"time"
)

// The booking scheduler (issue 11 item 5, spec sections 3 and 9): a tenant's places,
// the positions (bookable resources) of its users at those places, and the half-hour
// slots in which a position is available. A slot is booked at most once: the store
// marks it with a conditional update, never a read-then-write.

// Place is where positions are (spec section 3).
type Place struct {
	ID   ID      `json:"placeId"`
	Name string  `json:"placeName"`
	Lat  float64 `json:"placeLat"`
	Lng  float64 `json:"placeLng"`
}

// PlaceInput is the body of POST /places. Lat and Lng are pointers so that a missing
// coordinate is told apart from 0.
type PlaceInput struct {
	Name string   `json:"placeName"`
	Lat  *float64 `json:"placeLat"`
	Lng  *float64 `json:"placeLng"`
}

// ValidatePlace trims and checks a place: name 2 to 50 characters, latitude within
// ±90 and longitude within ±180, both required.
func ValidatePlace(in PlaceInput) (PlaceInput, error) {
	out := PlaceInput{Name: strings.TrimSpace(in.Name), Lat: in.Lat, Lng: in.Lng}
	f := fieldErrors{}
	f.text("placeName", out.Name, true, 2, 50)
	coord := func(field string, v *float64, limit float64) {
		switch {
		case v == nil:
			f.add(field, MsgRequired)
		case math.IsNaN(*v) || math.Abs(*v) > limit:
			f.add(field, MsgInvalidValue)
		}
	}
	coord("placeLat", out.Lat, 90)
	coord("placeLng", out.Lng, 180)
	return out, f.err()
}

// Position is a user's bookable resource at a place (spec section 3, "Resource
// position").
type Position struct {
	ID      ID     `json:"positionId"`
	PlaceID ID     `json:"placeId"`
	UserID  ID     `json:"userId"`
	Name    string `json:"positionName"`
	Color   string `json:"positionColor"`
}

// PositionInput is the body of POST /ws/capacityposition: PositionID zero creates a
// position for UserID, non-zero updates that position.
type PositionInput struct {
	PositionID ID     `json:"positionId"`
	PlaceID    ID     `json:"placeId"`
	UserID     ID     `json:"userId"`
	Name       string `json:"positionName"`
	Color      string `json:"positionColor"`
}

// ValidatePosition trims and checks a position: name 2 to 50 characters, colour
// '#rrggbb' (lower-cased), place and user required.
func ValidatePosition(in PositionInput) (PositionInput, error) {
	out := in
	out.Name = strings.TrimSpace(in.Name)
	out.Color = strings.ToLower(strings.TrimSpace(in.Color))
	f := fieldErrors{}
	f.id("positionId", out.PositionID, false)
	f.text("positionName", out.Name, true, 2, 50)
	switch {
	case out.Color == "":
		f.add("positionColor", MsgRequired)
	case !isHexColor(out.Color):
		f.add("positionColor", MsgInvalidColor)
	}
	f.id("placeId", out.PlaceID, true)
	f.id("userId", out.UserID, true)
	return out, f.err()
}

// Slot is a half-hour in which a position is available (spec section 3). Date and
// Hour are the start in the tenant's time zone ('YYYY-MM-DD', 'HH:mm'); At is the same
// instant in UTC. SlotID is zero for a cell of the available grade that is not a slot
// yet. Booked reports whether a booking holds it.
type Slot struct {
	ID     ID        `json:"slotId"`
	Date   string    `json:"slotDate"`
	Hour   string    `json:"slotHour"`
	At     time.Time `json:"slotAt"`
	Booked bool      `json:"booked"`
}

// The weekly grid (spec section 9): Monday to Saturday, 25 half-hour slots from 07:00
// to 19:00 (the last one starts at 19:00). The Agenda tab splits morning from
// afternoon at 12:30.
const (
	GridFirstMinute = 7 * 60  // 07:00
	GridLastMinute  = 19 * 60 // 19:00, the 25th slot
	GridStepMinutes = 30
	GridDays        = 6 // Monday to Saturday
	// SlotLayout is how a slot is written in requests: date and time in the tenant's
	// zone.
	SlotLayout = "2006-01-02 15:04"
	// BookingTimeZone is the tenant's zone until tenants carry their own: slots are
	// read and shown in it and stored in UTC.
	BookingTimeZone = QueueTimeZone
	// MaxSlotsPerRequest bounds the slots one availability request may name, across
	// all its entries (a week grid has 150 cells; the Agenda tab moves a few hundred).
	MaxSlotsPerRequest = 2000
	// MaxAvailabilityEntries bounds the entries of one availability request.
	MaxAvailabilityEntries = 50
	// DefaultSlotDays and MaxSlotDays bound how far ahead the available grade and
	// POST /createslots reach ("More dates" asks for more).
	DefaultSlotDays = 14
	MaxSlotDays     = 120
)

// ParseSlot reads a 'YYYY-MM-DD HH:mm' start in loc and checks that it is a cell of
// the weekly grid: Monday to Saturday, on the hour or half past, 07:00 to 19:00. A
// date that does not exist (Feb 30) or a wall time skipped by a daylight-saving jump
// does not read back the same and is refused. The result is in UTC.
func ParseSlot(s string, loc *time.Location) (time.Time, bool) {
	if len(s) != len(SlotLayout) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation(SlotLayout, s, loc)
	if err != nil || t.Format(SlotLayout) != s {
		return time.Time{}, false
	}
	return t.UTC(), IsGridCell(t)
}

// IsGridCell reports whether local time t (in the tenant's zone) starts a cell of the
// weekly grid.
func IsGridCell(t time.Time) bool {
	if t.Weekday() == time.Sunday || t.Second() != 0 || t.Nanosecond() != 0 {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	return m >= GridFirstMinute && m <= GridLastMinute && m%GridStepMinutes == 0
}

// AvailabilityEntry is one element of POST /insertavailability and
// /insertavailabilitybygrid: slots to add to (and remove from) a position of a user.
// WeekStart ('YYYY-MM-DD', a Monday), sent by the grid, makes ToInsert the whole
// availability of that week: the week's other free future slots are removed.
type AvailabilityEntry struct {
	UserID     ID       `json:"userId"`
	PositionID ID       `json:"positionId"`
	ToInsert   []string `json:"toInsert"`
	ToRemove   []string `json:"toRemove"`
	WeekStart  string   `json:"weekStart"`
}

// AvailabilityResult counts what an availability request changed.
type AvailabilityResult struct {
	Inserted int `json:"inserted"`
	Removed  int `json:"removed"`
}

// SlotStore keeps places, positions and slots, each scoped to a tenant: another
// tenant's row is not found.
type SlotStore interface {
	ListPlaces(ctx context.Context, companyID ID) ([]Place, error)
	CreatePlace(ctx context.Context, companyID ID, in PlaceInput) (Place, error)
	// DeletePlace refuses (ErrPlaceInUse) a place that positions are at.
	DeletePlace(ctx context.Context, companyID, placeID ID) error

	// ListPositions lists the positions of a user of the tenant (ErrNoUserFound for a
	// user of another tenant).
	ListPositions(ctx context.Context, companyID, userID ID) ([]Position, error)
	// SavePosition creates (PositionID zero) or updates a position of in.UserID.
	SavePosition(ctx context.Context, companyID ID, in PositionInput) (Position, error)

	// FutureSlots lists the slots of a user's position from now on, in time order.
	FutureSlots(ctx context.Context, companyID, userID, positionID ID) ([]Slot, error)
	// AvailableSlots lists the grid cells of the next days days that are not slots of
	// the position yet (the Agenda tab's "available grade").
	AvailableSlots(ctx context.Context, companyID, userID, positionID ID, days int) ([]Slot, error)
	// CreateSlots makes every grid cell of the next days days a slot of the position;
	// it returns how many were new.
	CreateSlots(ctx context.Context, companyID, userID, positionID ID, days int) (int, error)
	// SetAvailability applies the entries in one transaction: all or nothing.
	SetAvailability(ctx context.Context, companyID ID, entries []AvailabilityEntry) (AvailabilityResult, error)
	// Book marks a free slot as held by bookingID: ErrSlotTaken when it is already
	// booked (by whichever request came first, on any node), ErrNoSlotFound when the
	// tenant has no such slot.
	Book(ctx context.Context, companyID, slotID, bookingID ID) error
	// Release frees a slot held by bookingID; ErrNoSlotFound when it is not.
	Release(ctx context.Context, companyID, slotID, bookingID ID) error
}
