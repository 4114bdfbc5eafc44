package httpapi

import (
	"context"
	"time"

	"atende/engine"
)

// Waiter blocks until the read models have applied a journal position (the
// projection runner implements it), so that a handler reads its own writes.
type Waiter interface {
	WaitFor(ctx context.Context, position int64) error
}

// TicketDeps are the collaborators of the ticket and message routes (tickets.go,
// messages.go, ticket_tags.go). It is embedded in Deps, so its fields read as
// deps.Tickets, deps.TicketQueries… directly.
//
// cmd/atende sets every field. When both Tickets and TicketQueries are nil the ticket
// routes are not registered at all (tests of other routes need not build them) and
// New logs a warning; otherwise a route whose own collaborator is nil answers 503
// ERR_UNAVAILABLE.
type TicketDeps struct {
	// Tickets runs ticket commands on the actors (actors.Commander).
	Tickets engine.TicketCommander
	// TicketQueries reads the ticket and message read models (readmodel.Queries).
	// When it also implements engine.MessageLocator, DELETE /messages/{id} finds the
	// message's ticket through it.
	// When it also implements engine.InviteQueries, GET /ticketinvite lists the
	// caller's pending invitations (503 otherwise).
	TicketQueries engine.TicketQueries
	// Journal is read for the ticket history (stream "ticket/<id>").
	Journal engine.Journal
	// IDs allocates message ids ("message").
	IDs engine.IDAllocator
	// Media stores uploaded files and signs the media URLs of the messages answered.
	// Nil: uploads answer 503 and media URLs are answered as stored.
	Media engine.MediaStore
	// Waiter is the projection runner. After a command the handler waits (at most
	// WaitTimeout) for the command's journal position before reading the read model
	// back. Nil skips waiting: answers then overlay the actor's state on the read
	// model's ticket.
	Waiter Waiter
	// VideoCalls starts video calls (POST /tickets/{ticketId}/video-call); nil: that
	// route answers 503.
	VideoCalls VideoCalls

	// WaitTimeout bounds one wait for the read models; 0 means DefaultWaitTimeout.
	// On timeout the answer is built from the actor's state (see ticketAfter).
	WaitTimeout time.Duration
	// MaxUploadBytes caps a whole multipart POST /messages/{ticketId} body (every
	// file and field); 0 means DefaultMaxUploadBytes. Each file is also held to the
	// media store's limit for its type.
	MaxUploadBytes int64
	// MediaURLTTL is how long the signed media URLs of answered messages work; 0
	// means DefaultMediaURLTTL. Clients get fresh ones each time they load messages.
	MediaURLTTL time.Duration
}

// Defaults of TicketDeps.
const (
	DefaultWaitTimeout    = 2 * time.Second
	DefaultMaxUploadBytes = 256 << 20
	DefaultMediaURLTTL    = 12 * time.Hour
)

func (d TicketDeps) waitTimeout() time.Duration {
	if d.WaitTimeout > 0 {
		return d.WaitTimeout
	}
	return DefaultWaitTimeout
}

func (d TicketDeps) maxUploadBytes() int64 {
	if d.MaxUploadBytes > 0 {
		return d.MaxUploadBytes
	}
	return DefaultMaxUploadBytes
}

func (d TicketDeps) mediaURLTTL() time.Duration {
	if d.MediaURLTTL > 0 {
		return d.MediaURLTTL
	}
	return DefaultMediaURLTTL
}

// ticketsWired reports whether the ticket routes are to be registered at all.
func (d TicketDeps) ticketsWired() bool { return d.Tickets != nil || d.TicketQueries != nil }

// unwiredTicketDeps names the nil collaborators, for the warning New logs.
func (d TicketDeps) unwiredTicketDeps() (missing []string) {
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"Tickets", d.Tickets != nil},
		{"TicketQueries", d.TicketQueries != nil},
		{"Journal", d.Journal != nil},
		{"IDs", d.IDs != nil},
		{"Media", d.Media != nil},
		{"Waiter", d.Waiter != nil},
	} {
		if !f.ok {
			missing = append(missing, f.name)
		}
	}
	return missing
}
