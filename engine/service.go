package engine

import "context"

// TicketCommander runs ticket commands wherever their actors live. The REST API and
// the socket gateway reach tickets only through it (actors implement it).
type TicketCommander interface {
	// Do runs cmd on ticket id as p, after AuthorizeTicket. It returns the ticket's
	// state afterwards and the journal position of the last event it appended (0 when
	// nothing changed): wait for that position before reading the read models.
	Do(ctx context.Context, p Principal, id ID, cmd TicketCommand) (TicketState, int64, error)
	// Open opens a ticket for a contact on a connection on behalf of p (POST /tickets).
	// ErrOtherOpenTicket when the contact has a pending or open ticket there.
	Open(ctx context.Context, p Principal, in OpenTicketInput) (TicketState, int64, error)
}

// OpenTicketInput is POST /tickets.
type OpenTicketInput struct {
	ContactID    ID     `json:"contactId"`
	UserID       ID     `json:"userId"`
	Status       string `json:"status"`
	QueueID      ID     `json:"queueId"`
	ConnectionID ID     `json:"whatsappId"` // the connection; the tenant's default when 0
}
