package engine

import (
	"strconv"
	"time"
)

// EvConnectionStatus is the journal event type of a connection's session state
// change, in stream ConnectionStream(id); its data is a ConnectionStatusChanged.
const EvConnectionStatus = "connection.status_changed"

// ConnectionStream is the journal stream of a connection's status changes.
func ConnectionStream(id ID) string { return "connection/" + strconv.FormatInt(id, 10) }

// TicketStream is the journal stream of a ticket.
func TicketStream(id ID) string { return "ticket/" + strconv.FormatInt(id, 10) }

// ConnectionStatusChanged is the data of an EvConnectionStatus event.
type ConnectionStatusChanged struct {
	ConnectionID ID        `json:"connectionId"`
	Status       string    `json:"status"`
	QRCode       string    `json:"qrcode"`
	Number       string    `json:"number,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	At           time.Time `json:"at"`
}
