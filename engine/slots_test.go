package engine

import (
	"math"
	"testing"
	"time"
)

func bookingZone(t testing.TB) *time.Location {
	loc, err := time.LoadLocation(BookingTimeZone)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestParseSlot(t *testing.T) {
	loc := bookingZone(t)
	for _, tc := range []struct {
		in   string
		want string // UTC, "" when refused
	}{
		{"2026-11-23 07:00", "2026-11-23T11:00:00Z"},
		{"2026-11-28 19:00", "2026-11-28T23:00:00Z"},
		{"2026-11-23 12:30", "2026-11-23T16:30:00Z"},
		{"2026-11-29 10:00", ""}, // Sunday
		{"2026-11-23 06:30", ""},
		{"2026-11-23 19:30", ""},
		{"2026-11-23 10:15", ""},
		{"2026-11-31 10:00", ""}, // no such day
		{"2026-11-23 7:00", ""},
		{"2026-11-23T07:00", ""},
		{" 2026-11-23 07:00", ""},
		{"2026-11-23 07:00 ", ""},
		{"", ""},
		{"２０２６-11-23 07:00", ""},
		{"2026-11-23 07:00\x00", ""},
	} {
		got, ok := ParseSlot(tc.in, loc)
		if ok != (tc.want != "") || (ok && got.Format(time.RFC3339) != tc.want) {
			t.Errorf("ParseSlot(%q) = %v, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestValidatePlaceAndPosition(t *testing.T) {
	nan := math.NaN()
	lat, lng := 10.0, 20.0
	if _, err := ValidatePlace(PlaceInput{Name: "Centro", Lat: &nan, Lng: &lng}); err == nil {
		t.Fatal("NaN latitude accepted")
	}
	if out, err := ValidatePlace(PlaceInput{Name: "  Centro ", Lat: &lat, Lng: &lng}); err != nil || out.Name != "Centro" {
		t.Fatalf("place %+v %v", out, err)
	}
	if _, err := ValidatePosition(PositionInput{Name: "Sala\n1", Color: "#000000", PlaceID: 1, UserID: 1}); err == nil {
		t.Fatal("multi-line position name accepted")
	}
	if _, err := ValidatePosition(PositionInput{PositionID: -1, Name: "Sala", Color: "#000000", PlaceID: 1, UserID: 1}); err == nil {
		t.Fatal("negative position id accepted")
	}
}

// FuzzParseSlot: whatever the input, an accepted slot is a grid cell that writes back
// to the same text in the zone.
func FuzzParseSlot(f *testing.F) {
	loc := bookingZone(f)
	for _, s := range []string{"2026-11-23 07:00", "2026-11-29 10:00", "9999-12-31 19:00", "0000-01-01 07:00", "2026-02-29 12:30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, ok := ParseSlot(s, loc)
		if !ok {
			return
		}
		local := at.In(loc)
		if local.Format(SlotLayout) != s || !IsGridCell(local) || at.Location() != time.UTC {
			t.Fatalf("ParseSlot(%q) accepted %v", s, at)
		}
	})
}
