package dashboard

import (
	"strings"
)

// maxCents bounds a parsed value (about 92 trillion): anything longer is not money
// anybody typed, and the sums must not overflow.
const maxCents = 1 << 53

// ParseMoney reads an opportunity's value as typed on the contact — "R$ 1.200,00",
// "1200", "1,200.50", "890,5" — into cents. The last '.' or ',' followed by one or two
// digits is the decimal separator; other separators group thousands; any currency
// sign or blank is ignored. A value with no digit, with a minus sign, or too big is
// not money: (0, false).
func ParseMoney(s string) (int64, bool) {
	if len(s) > 64 || strings.Contains(s, "-") {
		return 0, false
	}
	// Keep digits and separators only.
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == '.', r == ',':
			b.WriteRune(r)
		}
	}
	v := b.String()
	v = strings.Trim(v, ".,")
	if v == "" {
		return 0, false
	}
	intPart, frac := v, ""
	if i := strings.LastIndexAny(v, ".,"); i >= 0 && len(v)-i-1 <= 2 {
		intPart, frac = v[:i], v[i+1:]
	}
	intPart = strings.NewReplacer(".", "", ",", "").Replace(intPart)
	if len(frac) == 1 {
		frac += "0"
	}
	if frac == "" {
		frac = "00"
	}
	var cents int64
	for _, c := range intPart + frac {
		cents = cents*10 + int64(c-'0')
		if cents > maxCents {
			return 0, false
		}
	}
	return cents, true
}
