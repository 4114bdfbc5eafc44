package httpapi

import (
	"strings"
	"testing"
	"time"

	"atende/engine"
)

// parseSendAt keeps the seconds of a wall-clock value, reads it in the tenant's zone
// on either side of a daylight-saving change, and refuses what is not a time.
func TestParseSendAtKeepsSecondsAndZone(t *testing.T) {
	cuiaba := engine.LoadZone("America/Cuiaba")
	lisbon := engine.LoadZone("Europe/Lisbon")
	for _, c := range []struct {
		raw  string
		loc  *time.Location
		want time.Time
	}{
		{"2026-11-23T09:00", cuiaba, time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)},
		{"2026-11-23T09:00:30", cuiaba, time.Date(2026, 11, 23, 13, 0, 30, 0, time.UTC)},
		{"2026-11-23 09:00:05", cuiaba, time.Date(2026, 11, 23, 13, 0, 5, 0, time.UTC)},
		{"2026-11-23T13:00:07Z", cuiaba, time.Date(2026, 11, 23, 13, 0, 7, 0, time.UTC)},
		// Lisbon: WET (UTC+0) in winter, WEST (UTC+1) from 29 March 2026.
		{"2026-03-28T09:00:15", lisbon, time.Date(2026, 3, 28, 9, 0, 15, 0, time.UTC)},
		{"2026-03-30T09:00:15", lisbon, time.Date(2026, 3, 30, 8, 0, 15, 0, time.UTC)},
	} {
		got, err := parseSendAt(c.raw, c.loc)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseSendAt(%q) = %v, %v; want %v", c.raw, got, err, c.want)
		}
	}
	for _, bad := range []string{"amanhã", "2026-11-23T25:00", "2026-02-30T09:00", "2026-11-23T09:00:61", "9999999999", "2026-11-23T09:00:00+99:00", "\x00"} {
		if got, err := parseSendAt(bad, cuiaba); err == nil {
			t.Errorf("parseSendAt(%q) = %v, want an error", bad, got)
		}
	}
}

// FuzzParseSendAt: any text either fails with the sendAt field error (never another
// error, never a panic) or answers a UTC instant (zero only for empty input).
func FuzzParseSendAt(f *testing.F) {
	for _, s := range []string{"2026-11-23T09:00", "2026-11-23T09:00:30", "2026-11-23 09:00", "2026-11-23T13:00:07Z",
		"2026-03-29T01:30", "", "amanhã", "2026-11-23T09:00:00+99:00"} {
		f.Add(s)
	}
	loc := engine.LoadZone("Europe/Lisbon")
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := parseSendAt(raw, loc)
		if err != nil {
			if e, ok := err.(*engine.Error); !ok || e.Fields["sendAt"] == "" {
				t.Fatalf("parseSendAt(%q): %v, want the sendAt field error", raw, err)
			}
			return
		}
		if got.IsZero() {
			if strings.TrimSpace(raw) != "" {
				t.Fatalf("parseSendAt(%q) = zero time without an error", raw)
			}
			return // empty: the validation answers Required
		}
		if got.Location() != time.UTC {
			t.Fatalf("parseSendAt(%q) = %v, not UTC", raw, got)
		}
	})
}
