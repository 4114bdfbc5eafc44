package engine

import (
	"maps"
	"slices"
	"time"
)

// TicketState is the ticket aggregate: everything DecideTicket needs to judge a
// command, folded from the ticket's events by EvolveTicket. It is also the snapshot
// the journal stores (it marshals to JSON).
//
// Invariants kept by decide/evolve (checked by the property test):
//   - a ticket that exists has Status pending, open or closed; the zero value (Status
//     "") is a ticket that was never opened;
//   - open ⇒ UserID ≠ 0: an open ticket always has its attendant;
//   - pending ⇒ UserID = 0: a pending ticket waits for anybody of its queue;
//   - closed ⇒ UnreadMessages = 0: resolving reads the conversation, and a closed
//     ticket takes no inbound messages (the connection opens a new ticket), so the
//     notification list never holds closed tickets. UserID stays the attendant who
//     resolved it, for the history and the "resolved by" of the list;
//   - Deleted ⇒ every command answers ErrNoTicketFound;
//   - Version is the number of events folded in.
//
// Ownership: a TicketState belongs to one goroutine (the ticket actor). EvolveTicket
// updates the message index in place; see EvolveTicket.
type TicketState struct {
	ID             ID        `json:"id"`
	CompanyID      ID        `json:"companyId"`
	UUID           string    `json:"uuid"`
	Status         string    `json:"status"` // "" until opened
	UserID         ID        `json:"userId,omitempty"`
	QueueID        ID        `json:"queueId,omitempty"`
	ConnectionID   ID        `json:"whatsappId"`
	ContactID      ID        `json:"contactId"`
	Channel        string    `json:"channel"`
	IsGroup        bool      `json:"isGroup"`
	UnreadMessages int       `json:"unreadMessages"`
	TagIDs         []ID      `json:"tagIds,omitempty"` // sorted, unique
	LastMessage    string    `json:"lastMessage"`
	Protocol       string    `json:"protocol"`
	CreatedAt      time.Time `json:"createdAt"`
	// UpdatedAt is the time of the last lifecycle change or conversation message
	// (received or sent). Acks, reads, tags, whispers and message deletions leave it,
	// so the age badge keeps measuring how long the conversation has waited.
	UpdatedAt time.Time `json:"updatedAt"`
	Deleted   bool      `json:"deleted,omitempty"`
	Version   int64     `json:"version"`
	// RatingAsked: the satisfaction question of the last resolution was sent and not
	// answered yet. Rated: the customer answered one (a ticket is rated at most once).
	RatingAsked bool `json:"ratingAsked,omitempty"`
	Rated       bool `json:"rated,omitempty"`

	// The reception bot (engine/bot_decide.go): LastInbound is the provider id of the
	// latest customer message, BotReplyTo the one the bot last answered, BotLevel the
	// menu the customer is in (0: the first), BotDone whether the bot has finished
	// with the ticket; AbsenceAt is when the last absence message went out, cleared
	// when an attendant writes or accepts.
	LastInbound string    `json:"lastInbound,omitempty"`
	BotReplyTo  string    `json:"botReplyTo,omitempty"`
	BotLevel    ID        `json:"botLevel,omitempty"`
	BotDone     bool      `json:"botDone,omitempty"`
	AbsenceAt   time.Time `json:"absenceAt,omitzero"`

	// Messages indexes the ticket's messages by id: enough to de-duplicate and to
	// judge acks and deletions, not the messages themselves (those live in the
	// journal's events and the message read model).
	Messages map[ID]TicketMessageMeta `json:"messages,omitempty"`
	// ProviderIDs maps a channel's message id (inbound messages and echoes of messages
	// sent from the channel's own app) to our message id, to de-duplicate redeliveries
	// that come back with a fresh message id.
	ProviderIDs map[string]ID `json:"providerIds,omitempty"`

	// Invites maps each user with a pending invitation to who invited them;
	// Guests are the users who accepted one, sorted (ticket_invite.go).
	Invites map[ID]ID `json:"invites,omitempty"`
	Guests  []ID      `json:"guests,omitempty"`
}

// TicketMessageMeta is what the ticket remembers of one message.
type TicketMessageMeta struct {
	FromMe   bool `json:"fromMe,omitempty"`
	SenderID ID   `json:"senderId,omitempty"` // the attendant who wrote it; 0 for inbound and automatic messages
	Whisper  bool `json:"whisper,omitempty"`  // internal note, never sent
	Deleted  bool `json:"deleted,omitempty"`
	Ack      int  `json:"ack,omitempty"`
	Failed   bool `json:"failed,omitempty"` // refused for good by the channel
}

// Exists reports whether the ticket was opened and not deleted: the only tickets
// commands other than OpenTicket may act on.
func (s TicketState) Exists() bool { return s.Status != "" && !s.Deleted }

// HasMessage reports whether a message with id is on the ticket.
func (s TicketState) HasMessage(id ID) bool {
	_, ok := s.Messages[id]
	return ok
}

// Clone returns a deep copy that shares nothing with s.
func (s TicketState) Clone() TicketState {
	c := s
	c.TagIDs = slices.Clone(s.TagIDs)
	c.Messages = maps.Clone(s.Messages)
	c.ProviderIDs = maps.Clone(s.ProviderIDs)
	c.Invites = maps.Clone(s.Invites)
	c.Guests = slices.Clone(s.Guests)
	return c
}

// Ticket is the entity view of the state. Tags carry only their ids and User, Queue
// and Contact are not filled: read models join those in.
func (s TicketState) Ticket() Ticket {
	tags := make([]Tag, len(s.TagIDs))
	for i, id := range s.TagIDs {
		tags[i] = Tag{ID: id, CompanyID: s.CompanyID}
	}
	return Ticket{
		ID:             s.ID,
		UUID:           s.UUID,
		CompanyID:      s.CompanyID,
		Status:         s.Status,
		UserID:         s.UserID,
		ContactID:      s.ContactID,
		IsGroup:        s.IsGroup,
		UnreadMessages: s.UnreadMessages,
		QueueID:        s.QueueID,
		Guests:         slices.Clone(s.Guests),
		ConnectionID:   s.ConnectionID,
		Channel:        s.Channel,
		Tags:           tags,
		LastMessage:    s.LastMessage,
		Protocol:       s.Protocol,
		CreatedAt:      s.CreatedAt,
		UpdatedAt:      s.UpdatedAt,
	}
}
