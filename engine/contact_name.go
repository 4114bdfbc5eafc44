package engine

import (
	"strings"
	"unicode"
)

// VisitorNamePrefix starts the name of a contact whose channel told no name. Texts the
// server writes are pt-BR, the product's language (the queue menu's too).
const VisitorNamePrefix = "Visitante"

// ContactFallbackName is the name of a contact whose channel gave none (or one too
// short to keep). A provider's id ("webchat:CyRS…", "fb:2400…", "ig:…", "tg:…")
// is no name for a person: such a contact is "Visitante" and the id's last four
// letters or digits, so attendants tell visitors apart without reading ids. A phone
// number (no "prefix:") stays its own name, as whaticket names WhatsApp contacts.
func ContactFallbackName(number string) string {
	_, id, found := strings.Cut(number, ":")
	if !found {
		return number
	}
	var tail []rune
	for _, r := range id {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			tail = append(tail, r)
		}
	}
	if len(tail) == 0 {
		return VisitorNamePrefix
	}
	return VisitorNamePrefix + " " + string(tail[max(0, len(tail)-4):])
}
