package engine

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestSatisfactionScore(t *testing.T) {
	tests := []struct {
		name  string
		in    AppraisalData
		score float64
		icon  int
	}{
		{"no answers", AppraisalData{}, 0, SatisfactionNone},
		{"no answers but a sum", AppraisalData{TotalSum: 9, TotalCount: 0}, 0, SatisfactionNone},
		{"negative count", AppraisalData{TotalSum: 3, TotalCount: -1}, 0, SatisfactionNone},
		{"all best", AppraisalData{TotalSum: 3, TotalCount: 1}, 10, SatisfactionHigh},
		{"all worst", AppraisalData{TotalSum: 1, TotalCount: 1}, 10.0 / 3, SatisfactionLow},
		{"just below 7", AppraisalData{TotalSum: 209, TotalCount: 100}, 6.966666666666667, SatisfactionLow},
		{"exactly 7", AppraisalData{TotalSum: 21, TotalCount: 10}, 7, SatisfactionMid},
		{"exactly 7, large", AppraisalData{TotalSum: 2100000, TotalCount: 1000000}, 7, SatisfactionMid},
		{"between", AppraisalData{TotalSum: 8, TotalCount: 3}, 80.0 / 9, SatisfactionMid},
		{"just below 9", AppraisalData{TotalSum: 269, TotalCount: 100}, 8.966666666666667, SatisfactionMid},
		{"exactly 9", AppraisalData{TotalSum: 27, TotalCount: 10}, 9, SatisfactionHigh},
		{"zero sum", AppraisalData{TotalSum: 0, TotalCount: 4}, 0, SatisfactionLow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			score, icon := SatisfactionScore(tt.in)
			if math.Abs(score-tt.score) > 1e-9 || icon != tt.icon {
				t.Errorf("got (%v, %d), want (%v, %d)", score, icon, tt.score, tt.icon)
			}
		})
	}
}

func TestTicketAgeColor(t *testing.T) {
	tests := []struct {
		age  time.Duration
		want AgeColor
	}{
		{0, AgeGreen},
		{-time.Hour, AgeGreen},
		{2 * time.Minute, AgeGreen},
		{2*time.Minute + 59*time.Second, AgeGreen},
		{3 * time.Minute, AgeYellow},
		{4*time.Minute + 59*time.Second, AgeYellow},
		{5 * time.Minute, AgeOrange},
		{5*time.Minute + 59*time.Second, AgeOrange},
		{6 * time.Minute, AgeRed},
		{72 * time.Hour, AgeRed},
	}
	for _, tt := range tests {
		t.Run(tt.age.String(), func(t *testing.T) {
			if got := TicketAgeColor(tt.age); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestTicketAge(t *testing.T) {
	updated := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	if got := TicketAge(updated, updated.Add(3*time.Minute)); got != 3*time.Minute {
		t.Errorf("age %v", got)
	}
	if got := TicketAge(updated, updated.Add(-time.Minute)); got != 0 {
		t.Errorf("future update gave age %v", got)
	}
	tests := []struct {
		age           time.Duration
		d, h, minutes int
	}{
		{0, 0, 0, 0},
		{59 * time.Second, 0, 0, 0},
		{90 * time.Minute, 0, 1, 30},
		{26*time.Hour + 5*time.Minute + 30*time.Second, 1, 2, 5},
		{-time.Minute, 0, 0, 0},
	}
	for _, tt := range tests {
		d, h, m := AgeParts(tt.age)
		if d != tt.d || h != tt.h || m != tt.minutes {
			t.Errorf("AgeParts(%v) = %d,%d,%d", tt.age, d, h, m)
		}
	}
}

func TestClock(t *testing.T) {
	before := time.Now()
	got := SystemClock{}.Now()
	if got.Before(before) || got.After(time.Now()) {
		t.Errorf("system clock %v", got)
	}
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var c Clock = FixedClock(fixed)
	if a, b := c.Now(), c.Now(); !a.Equal(fixed) || !b.Equal(fixed) {
		t.Error("fixed clock moved")
	}
	n := 0
	c = ClockFunc(func() time.Time { n++; return fixed.Add(time.Duration(n) * time.Second) })
	if c.Now().Sub(fixed) != time.Second || c.Now().Sub(fixed) != 2*time.Second {
		t.Error("ClockFunc not called each time")
	}
}

func TestNormalizePhone(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"", "", true},
		{"   ", "", true},
		{"5565999990000", "5565999990000", true},
		{"+55 (65) 99999-0000", "5565999990000", true},
		{" +55 65 9 9999 0000 ", "5565999990000", true},
		{"++5565", "", false},
		{"55+65", "", false},
		{"65.9999", "", false},
		{"65/9999", "", false},
		{"abc", "", false},
		{"+", "", false},
		{"- ( )", "", false},
		{"５５", "", false}, // full-width digits
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := NormalizePhone(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got (%q, %v), want (%q, %v)", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestValidEmail(t *testing.T) {
	valid := []string{
		"a@b.co", "ana.maria@example.com.br", "o'brien@example.ie", "x+tag@sub.example.org",
		"user_name-1@xn--caf-dma.com", "a@1.example.com",
		strings.Repeat("l", 64) + "@example.com",
	}
	invalid := []string{
		"", "plain", "@example.com", "a@", "a@b", "a@@b.co", "a@b@c.co", ".a@b.co", "a.@b.co", "a..b@c.co",
		"a b@c.co", "a@b .co", "a@-b.co", "a@b-.co", "a@b..co", "a@b.123", "Ana <a@b.co>", "\"a\"@b.co",
		"josé@example.com", "a@café.com", "a@[127.0.0.1]", "a@b.co\n",
		strings.Repeat("l", 65) + "@example.com",
		"a@" + strings.Repeat("d", 64) + ".com",
		strings.Repeat("a", 60) + "@" + strings.Repeat(strings.Repeat("d", 60)+".", 4) + "com",
	}
	for _, s := range valid {
		if !ValidEmail(s) {
			t.Errorf("ValidEmail(%q) = false", s)
		}
	}
	for _, s := range invalid {
		if ValidEmail(s) {
			t.Errorf("ValidEmail(%q) = true", s)
		}
	}
}

func TestSanitizeText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"olá", "olá"},
		{"a\x00b", "ab"},
		{"a\xffb", "a\uFFFDb"},
		{"linha\nnova\ttab", "linha\nnova\ttab"},
	}
	for _, tt := range tests {
		got := SanitizeText(tt.in)
		if got != tt.want || !StorableText(got) {
			t.Errorf("SanitizeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// What SanitizeText returns, DecideTicket takes.
	s := fixture(t, StatusOpen)
	if _, err := DecideTicket(s, ReceiveMessage{MessageID: 900, Body: SanitizeText("oi\x00\xfe")}, t0); err != nil {
		t.Errorf("sanitised body refused: %v", err)
	}
}
