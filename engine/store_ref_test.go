package engine

import (
	"testing"
	"time"
)

func TestQueueOpenAt(t *testing.T) {
	at := func(hhmm string) time.Time {
		tm, err := time.Parse("15:04", hhmm)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		name       string
		start, end string
		now        string
		want       bool
	}{
		{"no hours", "", "", "03:00", true},
		{"only start", "08:00", "", "03:00", true},
		{"unparsable", "8h", "18h", "03:00", true},
		{"inside", "08:00", "18:00", "12:30", true},
		{"at start", "08:00", "18:00", "08:00", true},
		{"at end", "08:00", "18:00", "18:00", false},
		{"before", "08:00", "18:00", "07:59", false},
		{"overnight late", "22:00", "06:00", "23:15", true},
		{"overnight early", "22:00", "06:00", "05:59", true},
		{"overnight day", "22:00", "06:00", "12:00", false},
		{"equal ends all day", "09:00", "09:00", "02:00", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := Queue{StartWork: tc.start, EndWork: tc.end}
			if got := QueueOpenAt(q, at(tc.now)); got != tc.want {
				t.Fatalf("QueueOpenAt(%s–%s, %s) = %v", tc.start, tc.end, tc.now, got)
			}
		})
	}
}
