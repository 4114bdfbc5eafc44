package engine

import (
	"testing"
)

func TestParseTicketStream(t *testing.T) {
	for _, tt := range []struct {
		stream string
		id     ID
		ok     bool
	}{
		{"ticket/1", 1, true},
		{"ticket/9223372036854775807", 9223372036854775807, true},
		{"ticket/0", 0, false},
		{"ticket/-1", 0, false},
		{"ticket/+5", 0, false},                  // not canonical: ticket/5 is the stream
		{"ticket/05", 0, false},                  // idem
		{"ticket/ 5", 0, false},                  //
		{"ticket/5 ", 0, false},                  //
		{"ticket/5x", 0, false},                  //
		{"ticket/", 0, false},                    //
		{"ticket/9223372036854775808", 0, false}, // overflows int64
		{"tickets/5", 0, false},
		{"Ticket/5", 0, false},
		{"connection/5", 0, false},
		{"", 0, false},
		{"ticket/٣", 0, false}, // Arabic-Indic digit
	} {
		id, ok := ParseTicketStream(tt.stream)
		if id != tt.id || ok != tt.ok {
			t.Errorf("ParseTicketStream(%q) = %d, %v; want %d, %v", tt.stream, id, ok, tt.id, tt.ok)
		}
	}
}

// FuzzParseTicketStream: whatever the stream name, the parser does not panic, and
// what it accepts is exactly the stream TicketStream gives that ticket.
func FuzzParseTicketStream(f *testing.F) {
	for _, s := range []string{"ticket/1", "ticket/+1", "ticket/01", "ticket/", "ticket/-3", "ticket/99999999999999999999", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := ParseTicketStream(s)
		if !ok {
			if id != 0 {
				t.Fatalf("%q refused with id %d", s, id)
			}
			return
		}
		if id <= 0 || TicketStream(id) != s {
			t.Fatalf("%q accepted as %d (stream %q)", s, id, TicketStream(id))
		}
	})
}

// TestTicketStreamRoundTrip: every id's stream parses back to it.
func TestTicketStreamRoundTrip(t *testing.T) {
	for _, id := range []ID{1, 7, 10, 1 << 40, 9223372036854775807} {
		if got, ok := ParseTicketStream(TicketStream(id)); !ok || got != id {
			t.Errorf("%d: %q parsed as %d, %v", id, TicketStream(id), got, ok)
		}
	}
}
