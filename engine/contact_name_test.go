package engine_test

import (
	"testing"

	"atende/engine"
)

func TestContactFallbackName(t *testing.T) {
	for _, tc := range []struct{ number, want string }{
		{"webchat:CyRSq7Lw2x9", "Visitante w2x9"},
		{"fb:24000000000001234", "Visitante 1234"},
		{"ig:IGSID1", "Visitante SID1"},
		{"tg:-100987", "Visitante 0987"},
		{"fb:12", "Visitante 12"},
		{"webchat:--", "Visitante"},
		{"webchat:", "Visitante"},
		{"5565999990001", "5565999990001"},
		{"", ""},
	} {
		if got := engine.ContactFallbackName(tc.number); got != tc.want {
			t.Errorf("ContactFallbackName(%q) = %q, want %q", tc.number, got, tc.want)
		}
	}
}
