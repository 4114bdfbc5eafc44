package engine

import "time"

// AgeColor is the colour of a ticket's age badge (spec sections 4 and 9).
type AgeColor string

// Age badge colours.
const (
	AgeGreen  AgeColor = "green"
	AgeYellow AgeColor = "yellow"
	AgeOrange AgeColor = "orange"
	AgeRed    AgeColor = "red"
)

// Age badge thresholds, in whole minutes (spec section 9: 2, 4, 5).
const (
	AgeGreenMaxMinutes  = 2
	AgeYellowMaxMinutes = 4
	AgeOrangeMaxMinutes = 5
)

// TicketAge is the time since a ticket's last update. now is the server's time; a
// client computes it as its own clock plus the stored client-to-server difference
// before calling (or passing) it. A last update in the future (clock skew) is age 0.
func TicketAge(updatedAt, now time.Time) time.Duration {
	d := now.Sub(updatedAt)
	if d < 0 {
		return 0
	}
	return d
}

// TicketAgeColor is the badge colour for age. The badge shows days, hours and whole
// minutes, so the colour is chosen on whole elapsed minutes (floor): up to 2 minutes
// green (2m59s is still "2 min"), up to 4 yellow, up to 5 orange, beyond red.
func TicketAgeColor(age time.Duration) AgeColor {
	minutes := int64(age / time.Minute)
	switch {
	case minutes <= AgeGreenMaxMinutes:
		return AgeGreen
	case minutes <= AgeYellowMaxMinutes:
		return AgeYellow
	case minutes <= AgeOrangeMaxMinutes:
		return AgeOrange
	default:
		return AgeRed
	}
}

// AgeParts splits an age into the days, hours and minutes the badge shows.
func AgeParts(age time.Duration) (days, hours, minutes int) {
	if age < 0 {
		age = 0
	}
	total := int64(age / time.Minute)
	return int(total / (24 * 60)), int(total / 60 % 24), int(total % 60)
}
