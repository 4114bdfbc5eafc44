package engine

import "time"

// TicketCommand is a request to change a ticket, judged by DecideTicket. Commands are
// plain values; every id and every time a decision needs comes in the command or in
// `now`, so a decision replays identically.
type TicketCommand interface {
	// CommandName is a stable name for logs and metrics, e.g. "ticket.accept".
	CommandName() string
	isTicketCommand()
}

// OpenTicket creates the ticket. Status is pending (UserID must be 0) or open (UserID
// required). The ticket and message ids, the uuid and the protocol are allocated by the
// caller.
type OpenTicket struct {
	TicketID     ID
	UUID         string
	CompanyID    ID
	ContactID    ID
	ConnectionID ID
	Channel      string
	QueueID      ID // optional
	UserID       ID // required when Status is open, zero when pending
	Status       string
	IsGroup      bool
	Protocol     string // optional human-facing number
	// First is the customer's message that made the connection open the ticket:
	// recorded with the opening, in the same append, so that a customer's first
	// message reaches its ticket in one command. Only the channel side sets it.
	First *ReceiveMessage `json:",omitempty"`
	// Greet is the reception bot's answer to First (the greeting or first menu),
	// recorded in the same append: a new customer's message and its greeting reach
	// the ticket in one command. Requires First.
	Greet *BotStep `json:",omitempty"`
}

// Accept takes a pending ticket: it becomes open, assigned to UserID (the current user).
type Accept struct{ UserID ID }

// Resolve closes an open ticket.
type Resolve struct{}

// Return puts an open ticket back to pending, with no user.
type Return struct{}

// Reopen opens a closed ticket again, assigned to UserID (the current user).
type Reopen struct{ UserID ID }

// Transfer moves a pending or open ticket. With a user the ticket becomes open for that
// user (in QueueID if given, else in its current queue); without one it becomes pending
// with no user, in QueueID if given. ConnectionID, when given, moves it to another
// connection. At least one of the three must be given.
type Transfer struct {
	UserID       ID
	QueueID      ID
	ConnectionID ID
}

// Delete removes the ticket. Afterwards every command answers ErrNoTicketFound.
type Delete struct{}

// ReceiveMessage records an inbound customer message. It is refused on a closed ticket:
// the connection opens a new ticket for the contact instead.
type ReceiveMessage struct {
	MessageID  ID
	ProviderID string // the channel's id; redeliveries with a known one are ignored
	Body       string
	MediaType  string
	MediaURL   string
	QuotedID   ID // optional; may name a message of an earlier ticket
}

// SendMessage records an attendant's reply to the customer. Only on an open ticket.
type SendMessage struct {
	MessageID ID
	SenderID  ID // the attendant
	Body      string
	MediaType string
	MediaURL  string
	QuotedID  ID
}

// SendAutomaticMessage records a message from our side that no attendant typed in
// Atende: the greeting, farewell, absence and rating messages the server sends, and
// echoes of messages the business sent from the channel's own app (those carry a
// ProviderID). Accepted on pending, open and closed tickets (a farewell follows the
// resolve). It does not count as unread.
type SendAutomaticMessage struct {
	MessageID  ID
	ProviderID string
	Body       string
	MediaType  string
	MediaURL   string
	QuotedID   ID
	// Ack is the receipt a message of the past already has (history brought in by an
	// import, with the channel's id): it is recorded with the message instead of
	// as an acknowledgement event of its own. A message sent now has none.
	Ack int
}

// AddWhisper records an internal note (media type whisper). It is never sent to the
// customer, is not unread, and does not change the ticket's last message. Only on an
// open ticket, like the composer it comes from.
type AddWhisper struct {
	MessageID ID
	SenderID  ID
	Body      string
	// MediaType is MediaWhisper (also when empty) or MediaChatGPT: an AI assistant's
	// answer to the attendant, kept apart like a note and never sent to the customer.
	MediaType string
}

// AckMessage records a delivery receipt for one of our messages. Acks only move
// forward (0 pending, 1 sent, 3 read, 4 played); an older ack arriving late is
// ignored.
type AckMessage struct {
	MessageID ID
	Ack       int
	// ProviderID, optional, is the channel's id of the sent message: recorded with
	// the first ack that moves the message, so receipts, quotes and deletions that
	// name it find the message after the connection's memory is gone.
	ProviderID string `json:",omitempty"`
}

// DeleteMessage marks a message deleted. Only the attendant who wrote it may.
type DeleteMessage struct {
	MessageID ID
	ByUserID  ID
}

// RevokeMessage records that the channel's side deleted a message for everyone (a
// WhatsApp sender's "delete for everyone"): the message with ProviderID becomes
// deleted, with ByUserID 0 in the event (0 = deleted by the customer or by the
// provider, not by an attendant). FromMe says who revoked: the customer (false) may
// revoke only their own messages, the connection's own device (true) only ours. An
// unknown provider id, a message of the other side and a message already deleted
// change nothing. Channel side only.
type RevokeMessage struct {
	ProviderID string
	FromMe     bool `json:",omitempty"`
}

// FailMessage records that the channel refused one of our messages for good (a
// permanent error, not ErrChannelTemporary): the message stays at ack 0 but is failed,
// so the outbox never sends it again. Reason is for the logs and the audit (clipped
// to 512 characters). Channel side only; a message already acked or failed changes
// nothing.
type FailMessage struct {
	MessageID ID
	Reason    string `json:",omitempty"`
}

// MarkRead sets the ticket's unread count to zero.
type MarkRead struct{}

// SetTags replaces the ticket's tag set (the tag picker sends the whole set).
type SetTags struct{ TagIDs []ID }

// AskRating sends the satisfaction question (Body, an automatic message with id
// MessageID) to the customer of a resolved ticket whose queue asks for ratings (the
// queue's nps flag). Only on a closed ticket not rated yet; asking again is a no-op.
// The customer's answer "1", "2" or "3" to it becomes a TicketRated (see
// ReceiveMessage).
type AskRating struct {
	MessageID ID
	Body      string
}

// BotStep records the reception bot's answer to the customer message ReplyTo (its
// provider id: the idempotency key) — an automatic message Body (id MessageID), a
// move to QueueID and/or UserID, and the bot's new menu Level (Done: the bot has
// finished with this ticket). FromLevel is the level the step was decided on. The
// ticket records a step at most once per customer message and only while it still
// stands: for its latest customer message, at FromLevel, on a pending ticket; any
// other step is a no-op (engine/bot_decide.go decides steps, docs/bots.md).
type BotStep struct {
	ReplyTo   string
	MessageID ID
	Body      string
	MediaType string // the connection's greeting image (MediaURL), Body its caption
	MediaURL  string
	FromLevel ID
	Level     ID
	Done      bool
	Absent    bool      // Body carries the queue's absence message
	At        time.Time // when the bot decided (its clock): the absence message's time
	QueueID   ID
	UserID    ID
}

func (OpenTicket) CommandName() string           { return "ticket.open" }
func (Accept) CommandName() string               { return "ticket.accept" }
func (Resolve) CommandName() string              { return "ticket.resolve" }
func (Return) CommandName() string               { return "ticket.return" }
func (Reopen) CommandName() string               { return "ticket.reopen" }
func (Transfer) CommandName() string             { return "ticket.transfer" }
func (Delete) CommandName() string               { return "ticket.delete" }
func (ReceiveMessage) CommandName() string       { return "ticket.receive_message" }
func (SendMessage) CommandName() string          { return "ticket.send_message" }
func (SendAutomaticMessage) CommandName() string { return "ticket.send_automatic_message" }
func (AddWhisper) CommandName() string           { return "ticket.add_whisper" }
func (AckMessage) CommandName() string           { return "ticket.ack_message" }
func (DeleteMessage) CommandName() string        { return "ticket.delete_message" }
func (RevokeMessage) CommandName() string        { return "ticket.revoke_message" }
func (FailMessage) CommandName() string          { return "ticket.fail_message" }
func (MarkRead) CommandName() string             { return "ticket.mark_read" }
func (SetTags) CommandName() string              { return "ticket.set_tags" }
func (AskRating) CommandName() string            { return "ticket.ask_rating" }
func (BotStep) CommandName() string              { return "ticket.bot_step" }

func (OpenTicket) isTicketCommand()           {}
func (Accept) isTicketCommand()               {}
func (Resolve) isTicketCommand()              {}
func (Return) isTicketCommand()               {}
func (Reopen) isTicketCommand()               {}
func (Transfer) isTicketCommand()             {}
func (Delete) isTicketCommand()               {}
func (ReceiveMessage) isTicketCommand()       {}
func (SendMessage) isTicketCommand()          {}
func (SendAutomaticMessage) isTicketCommand() {}
func (AddWhisper) isTicketCommand()           {}
func (AckMessage) isTicketCommand()           {}
func (DeleteMessage) isTicketCommand()        {}
func (RevokeMessage) isTicketCommand()        {}
func (FailMessage) isTicketCommand()          {}
func (MarkRead) isTicketCommand()             {}
func (SetTags) isTicketCommand()              {}
func (AskRating) isTicketCommand()            {}
func (BotStep) isTicketCommand()              {}

// knownCommand reports whether cmd is one of the command values above (not a pointer
// to one, nor some other type).
func knownCommand(cmd TicketCommand) bool {
	switch cmd.(type) {
	case OpenTicket, Accept, Resolve, Return, Reopen, Transfer, Delete, ReceiveMessage,
		SendMessage, SendAutomaticMessage, AddWhisper, AckMessage, DeleteMessage, RevokeMessage, FailMessage, MarkRead, SetTags, AskRating,
		BotStep, Invite, AcceptInvite, DeclineInvite, TranslateMessage:
		return true
	}
	return false
}
