package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Field messages of validation errors. The first four are the spec's (section 5) and
// are matched by the web app's translations word for word; the rest are Atende's own,
// for rules the brief states without a wording.
const (
	MsgRequired      = "Required"
	MsgTooShort      = "Too Short!"
	MsgTooLong       = "Too Long!"
	MsgInvalidEmail  = "Invalid email"
	MsgInvalidNumber = "Invalid number"
	MsgInvalidColor  = "Invalid color"
	MsgInvalidTime   = "Invalid time"
	MsgInvalidValue  = "Invalid value"
)

// fieldErrors collects the failures of one validation, first message per field wins.
type fieldErrors map[string]string

func (f fieldErrors) add(field, msg string) {
	if _, ok := f[field]; !ok {
		f[field] = msg
	}
}

// err is nil when nothing failed, else an *Error with code ErrValidation and every field.
func (f fieldErrors) err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: ErrValidation, Fields: f}
}

// id checks a reference: negative is invalid, zero is "none" (Required if required).
func (f fieldErrors) id(field string, id ID, required bool) {
	switch {
	case id < 0:
		f.add(field, MsgInvalidValue)
	case id == 0 && required:
		f.add(field, MsgRequired)
	}
}

// text checks a single-line text that is already trimmed: required or not, and a
// length window in characters (runes). min 0 means no minimum.
func (f fieldErrors) text(field, v string, required bool, min, max int) {
	switch {
	case v == "":
		if required {
			f.add(field, MsgRequired)
		}
	case !singleLine(v):
		f.add(field, MsgInvalidValue)
	case runeLen(v) < min:
		f.add(field, MsgTooShort)
	case runeLen(v) > max:
		f.add(field, MsgTooLong)
	}
}

// longText checks a multi-line text (greetings, quick answer messages).
func (f fieldErrors) longText(field, v string, required bool, max int) {
	switch {
	case v == "":
		if required {
			f.add(field, MsgRequired)
		}
	case !multiLine(v):
		f.add(field, MsgInvalidValue)
	case runeLen(v) > max:
		f.add(field, MsgTooLong)
	}
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// singleLine: valid UTF-8 with no control characters (C0, DEL, C1) and no Unicode
// line or paragraph separators. Everything else — any script, emoji, quotes,
// semicolons — is text.
func singleLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// multiLine: valid UTF-8 whose only control characters are tab, newline and carriage
// return.
func multiLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return false
		}
	}
	return true
}

// StorableText: what both databases can store in a text column: valid UTF-8 without
// NUL. Message bodies from customers are held to this only; stores answer "not
// found" for a lookup key that is not (PostgreSQL would refuse the query).
func StorableText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// SanitizeText makes a provider's text storable: invalid UTF-8 becomes U+FFFD and NUL
// characters are dropped. Channel adapters pass inbound bodies through it, because
// DecideTicket refuses text a database could not store.
func SanitizeText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "")
}

// isHexColor: '#' and six hex digits.
func isHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < 7; i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isHHMM: "HH:MM", 00:00 to 23:59.
func isHHMM(s string) bool {
	if len(s) != 5 || s[2] != ':' {
		return false
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	return h < 24 && m < 60
}

// ValidEmail reports whether s (already trimmed) is a plain ASCII address
// local@domain: local part 1–64 of letters, digits and !#$%&'*+/=?^_`{|}~.- with no
// leading, trailing or doubled dot; domain of two or more dot-separated labels of
// letters, digits and inner hyphens (1–63 each), the last not all digits; 254
// characters at most. Display names, quoted local parts, IP literals and non-ASCII
// addresses (write the domain in punycode) are refused.
func ValidEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.IndexByte(s, '@')
	if at <= 0 || at != strings.LastIndexByte(s, '@') {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return false
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		if isAlnum(c) || strings.IndexByte("!#$%&'*+/=?^_`{|}~.-", c) >= 0 {
			continue
		}
		return false
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			if !isAlnum(l[i]) && l[i] != '-' {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	return strings.TrimLeft(tld, "0123456789") != ""
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// NormalizePhone cleans a phone number as typed: surrounding space trimmed, one
// leading '+' dropped, and spaces, dashes and parentheses removed. ok is false when
// anything other than ASCII digits remains (or nothing does, from a non-blank input).
// "+55 (65) 99999-0000" becomes "5565999990000".
func NormalizePhone(s string) (digits string, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	s = strings.TrimPrefix(s, "+")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	if b.Len() == 0 {
		return "", false
	}
	return b.String(), true
}
