package engine

import (
	"strconv"
	"strings"
	"time"
)

// EvConnectionStatus is the journal event type of a connection's session state
// change, in stream ConnectionStream(id); its data is a ConnectionStatusChanged.
const EvConnectionStatus = "connection.status_changed"

// ConnectionStream is the journal stream of a connection's status changes.
func ConnectionStream(id ID) string { return "connection/" + strconv.FormatInt(id, 10) }

// TicketStreamPrefix starts the journal stream of every ticket: "ticket/<id>".
const TicketStreamPrefix = "ticket/"

// TicketStream is the journal stream of a ticket.
func TicketStream(id ID) string { return TicketStreamPrefix + strconv.FormatInt(id, 10) }

// ParseTicketStream is the ticket of a journal stream name, the inverse of
// TicketStream: "ticket/" and a positive id in canonical decimal (no sign, no
// leading zero), so that one ticket has one stream. Every projection that folds
// ticket events reads stream names with it.
func ParseTicketStream(stream string) (ID, bool) {
	rest, ok := strings.CutPrefix(stream, TicketStreamPrefix)
	if !ok || rest == "" || rest[0] < '1' || rest[0] > '9' {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// ConnectionStatusChanged is the data of an EvConnectionStatus event.
type ConnectionStatusChanged struct {
	ConnectionID ID        `json:"connectionId"`
	Status       string    `json:"status"`
	QRCode       string    `json:"qrcode"`
	Number       string    `json:"number,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	At           time.Time `json:"at"`
}
