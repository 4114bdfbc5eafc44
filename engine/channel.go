package engine

import (
	"context"
	"time"
)

// The channel seam: every messaging channel (WhatsApp, WABA, Facebook, Instagram,
// Telegram, the web chat, the deterministic fake) is a Channel. A Channel is owned by
// the connection actor of its connection — exactly one per connection in the whole
// cluster — which starts it with a sink and is its only caller.
//
// Adapters translate the provider's wire format into these values and back; they hold
// no ticket logic. Sink methods return only once the input is durably recorded, so an
// adapter acknowledges a provider's delivery (webhook 200, receipt) only after a nil
// error — and a provider's redelivery is harmless, because inbound messages are
// de-duplicated on ProviderID.

// InboundMessage is a message a customer (or the connection's own phone, FromMe)
// sent on the channel.
type InboundMessage struct {
	// ProviderID is the channel's id of the message, unique per connection; required.
	ProviderID string
	// From identifies the customer (or the group) the conversation is with.
	From ChannelContact
	// FromMe marks a message sent from the connection's own device or app (an echo),
	// recorded as an outbound message of the ticket.
	FromMe    bool
	Body      string
	MediaType string // "" for text; MediaImage, MediaAudio, MediaVideo, MediaDocument
	// MediaPath is where the adapter stored the downloaded media, relative to the
	// media folder; MediaName the original file name.
	MediaPath string
	MediaName string
	// QuotedProviderID is the provider id of the message this one replies to.
	QuotedProviderID string
	// RevokedProviderID, when set, makes this not a new message but a deletion: the
	// sender deleted for everyone their message with that provider id (FromMe: the
	// connection's own device did). Only From, FromMe and At count then; ProviderID
	// (the revocation's own id) is optional. The message is marked deleted where it
	// was stored (RevokeMessage); an unknown id changes nothing.
	RevokedProviderID string `json:",omitempty"`
	At                time.Time
}

// DropMedia keeps an inbound message whose file could not be kept: without its
// media, its body saying what it was ("[image]") when it had no caption.
func (m *InboundMessage) DropMedia() {
	if m.Body == "" && m.MediaType != "" {
		m.Body = "[" + m.MediaType + "]"
	}
	m.MediaType, m.MediaName, m.MediaPath = "", "", ""
}

// ChannelContact is the customer side of a conversation as the channel knows it.
type ChannelContact struct {
	// Number is the channel-specific address: digits for WhatsApp numbers, a page-
	// scoped id for Messenger, "webchat:<visitor>" for the web chat.
	Number        string
	Name          string
	ProfilePicURL string
	IsGroup       bool
}

// Receipt reports the delivery state of an outbound message.
type Receipt struct {
	ProviderID string
	Ack        int // AckSent, AckRead, AckPlayed
}

// StatusChange reports a connection's session state: one of the Conn… statuses, with
// the QR code to show while Status is ConnQRCode (empty otherwise).
type StatusChange struct {
	Status string
	QRCode string
	Number string // the paired number, when the channel learns it
	Reason string // for the logs and the status tooltip
}

// ChannelSink receives what a channel hears. Implementations are safe for concurrent
// use; calls may block briefly while the input is recorded but never on the channel.
type ChannelSink interface {
	Inbound(ctx context.Context, m InboundMessage) error
	Receipt(ctx context.Context, r Receipt) error
	Status(ctx context.Context, s StatusChange) error
}

// OutboundMessage is a message to send to a customer.
type OutboundMessage struct {
	MessageID ID     // our id; adapters that accept a client id use it for idempotency
	To        string // ChannelContact.Number of the conversation
	Body      string
	MediaType string
	MediaPath string // relative to the media folder
	MediaName string
	// QuotedProviderID is the provider id of the message being replied to.
	QuotedProviderID string
}

// Channel is one connection's session with its provider.
type Channel interface {
	// Start connects and begins delivering to sink. It returns once the session is
	// running (or failed to start); status changes arrive through sink.Status.
	Start(ctx context.Context, sink ChannelSink) error
	// Send delivers m and returns the provider's id of the sent message. Errors that
	// are worth retrying wrap ErrChannelTemporary.
	Send(ctx context.Context, m OutboundMessage) (providerID string, err error)
	// Stop ends the session; Start may be called again afterwards.
	Stop(ctx context.Context) error
}

// ChannelFactory builds the Channel of a connection (by its Channel field).
type ChannelFactory interface {
	NewChannel(conn Connection) (Channel, error)
}

// ErrChannelTemporary marks a send failure that may succeed when retried (provider
// unreachable, rate limited, session reconnecting).
var ErrChannelTemporary = &Error{Code: ErrSendingWappMsg}

// ChannelEnder is implemented by channels whose sessions reach past the node that
// runs them (the web chat's visitors are on every node). Stop lets go of the
// channel on this node — a hand-over, a drain — and its sessions carry on with the
// next owner; End stops it for good, because a person stopped the connection.
type ChannelEnder interface {
	End(ctx context.Context) error
}

// CredentialWiper is implemented by channels that keep session credentials of their
// own (WhatsApp's device keys): WipeCredentials forgets them, so the next Start pairs
// afresh (DELETE /whatsappcreds). It may be called while the channel is stopped.
type CredentialWiper interface {
	WipeCredentials(ctx context.Context) error
}

// PhoneContact is one entry of a channel session's address book.
type PhoneContact struct {
	Number string `json:"number"` // digits, country code included
	Name   string `json:"name"`   // the name the phone knows; the number when it knows none
}

// ContactLister is implemented by channels whose session holds an address book (a
// paired WhatsApp phone syncs its contacts to the device): POST /contacts/import
// reads it. A session that is not paired answers ErrWappNotInitialized.
type ContactLister interface {
	PhoneContacts(ctx context.Context) ([]PhoneContact, error)
}

// ProviderLocator finds a message of a connection by the channel's id of it, in the
// durable record (the message read model): what a connection actor asks when its
// memory does not know a provider id — after a restart or a hand-over to another
// node — for receipts, quoted replies, revokes, and before storing an inbound message
// in a new ticket. Provider ids of inbound messages, echoes and (once the channel
// accepted them) our own sent messages are found, on live and deleted tickets of the
// connection. The read model trails the journal by a moment, so a miss is no proof.
type ProviderLocator interface {
	ByProviderID(ctx context.Context, connectionID ID, providerID string) (ticketID, messageID ID, found bool, err error)
}

// IdempotentSender is implemented by channels whose provider de-duplicates a re-send
// of one of our messages: sending the same OutboundMessage.MessageID again (after a
// crash, a timeout, a hand-over) reaches the customer at most once. WhatsApp fixes
// the provider's message id per MessageID before the first attempt; the web chat's
// frames carry the MessageID and the widget shows an id once. Channels that wrap
// another (the lease) pass it through.
//
// A channel that does not implement it, or answers false, is treated as unable to
// de-duplicate: the connection actor records an attempt (SendAttemptLog) before
// the first Send and, after a restart, fails rather than re-sends a message whose
// attempt is recorded but whose outcome never was (ErrChannelOutcomeUnknown).
type IdempotentSender interface {
	ResendIsIdempotent() bool
}

// ResendIsIdempotent tells whether ch de-duplicates re-sends (IdempotentSender).
func ResendIsIdempotent(ch Channel) bool {
	s, ok := ch.(IdempotentSender)
	return ok && s.ResendIsIdempotent()
}

// SendAttemptLog is the durable record of sends handed to channels that cannot
// de-duplicate a re-send: a row per (connection, message) written before the first
// attempt, so that the next activation of the connection can tell a message never
// tried (send it) from one whose outcome was lost in a crash (do not send it again).
type SendAttemptLog interface {
	// RecordAttempt notes that messageID of connectionID is about to be handed to the
	// channel; recording it again changes nothing. It must be durable on return.
	RecordAttempt(ctx context.Context, connectionID, messageID ID, at time.Time) error
	// ForgetAttempt removes the record: the attempt failed in a way that shows the
	// provider did not take the message (ErrChannelTemporary), so a re-send is safe.
	ForgetAttempt(ctx context.Context, connectionID, messageID ID) error
	// Attempted returns which of messageIDs have a recorded attempt.
	Attempted(ctx context.Context, connectionID ID, messageIDs []ID) (map[ID]bool, error)
	// Prune removes attempts recorded before before whose message no longer waits to
	// be sent (acked, failed, deleted); it returns how many it removed.
	Prune(ctx context.Context, connectionID ID, before time.Time) (int64, error)
}
