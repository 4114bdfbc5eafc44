package engine

import "context"

// ConnectionStore keeps a tenant's channel connections (spec: Connection/whatsapp).
// Every method taking a companyID touches only that tenant's rows; another tenant's
// connection is ErrNoWappFound.
type ConnectionStore interface {
	List(ctx context.Context, companyID ID) ([]Connection, error)
	Get(ctx context.Context, companyID, id ID) (Connection, error)
	// DefaultID is the id of the tenant's default connection; ErrNoDefWappFound when
	// it has none.
	DefaultID(ctx context.Context, companyID ID) (ID, error)
	// Lookup finds a connection by id alone, for the connection actor whose identity
	// is the id; the row tells the tenant.
	Lookup(ctx context.Context, id ID) (Connection, error)
	// ByToken finds a web chat connection by the public token its widget embeds.
	ByToken(ctx context.Context, token string) (Connection, error)
	Create(ctx context.Context, companyID ID, in ConnectionInput) (Connection, error)
	Update(ctx context.Context, companyID, id ID, in ConnectionInput) (Connection, error)
	Delete(ctx context.Context, companyID, id ID) error
	// SetStatus records the session state the connection actor observed.
	SetStatus(ctx context.Context, id ID, s StatusChange) error
	// All lists every connection of every tenant, for activating them at start.
	All(ctx context.Context) ([]Connection, error)
}

// TicketGuard remembers, per connection and contact, the ticket their conversation
// currently lives in. It backs the rule "never two open or pending tickets for the
// same contact and connection": the connection actor opens a new ticket only by
// swapping the guard from the ticket it saw to the new one, so two activations of
// one connection (a split of membership) cannot both open one.
type TicketGuard interface {
	// Current returns the ticket of (connection, contact); 0 when there is none.
	Current(ctx context.Context, connectionID, contactID ID) (ID, error)
	// Swap sets the ticket to next if it still is prev (0: none). ok is false, with
	// the ticket it holds now, when someone else swapped first.
	Swap(ctx context.Context, companyID, connectionID, contactID, prev, next ID) (ok bool, now ID, err error)
}

// IDAllocator hands out fresh ids for event-sourced entities ("ticket", "message").
type IDAllocator interface {
	Next(ctx context.Context, name string) (ID, error)
}

// PendingOutbound is a message of ours that no channel has accepted yet (ack 0).
type PendingOutbound struct {
	TicketID  ID
	MessageID ID
	ContactID ID
	Body      string
	MediaType string
	MediaURL  string
	QuotedID  ID
}

// Outbox finds what a connection still has to send: messages recorded by tickets
// (the journal is the outbox) whose send never completed, e.g. because the node that
// held the connection died between the append and the send.
type Outbox interface {
	// PendingOutbound lists at most limit unsent messages of connectionID, oldest first.
	PendingOutbound(ctx context.Context, connectionID ID, limit int) ([]PendingOutbound, error)
}
