package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// TicketEvent is a fact about a ticket, produced by DecideTicket and folded by
// EvolveTicket. Events are plain JSON-serialisable values; Type names them in the
// journal and must never change once written (add a new type instead).
type TicketEvent interface {
	Type() string
	// OccurredAt is the decision's `now` (UTC, microseconds).
	OccurredAt() time.Time
	isTicketEvent()
}

// Ticket event types, as stored in the journal.
const (
	EvTicketOpened          = "ticket.opened"
	EvTicketAccepted        = "ticket.accepted"
	EvTicketResolved        = "ticket.resolved"
	EvTicketReturned        = "ticket.returned"
	EvTicketReopened        = "ticket.reopened"
	EvTicketTransferred     = "ticket.transferred"
	EvTicketDeleted         = "ticket.deleted"
	EvTicketMessageReceived = "ticket.message_received"
	EvTicketMessageSent     = "ticket.message_sent"
	EvTicketWhisperAdded    = "ticket.whisper_added"
	EvTicketMessageAcked    = "ticket.message_acked"
	EvTicketMessageDeleted  = "ticket.message_deleted"
	EvTicketMessageFailed   = "ticket.message_failed"
	EvTicketRead            = "ticket.read"
	EvTicketTagsSet         = "ticket.tags_set"
	EvTicketRatingAsked     = "ticket.rating_asked"
	EvTicketRated           = "ticket.rated"
	EvTicketBotStepped      = "ticket.bot_stepped"
)

// TicketOpened: the ticket was created.
type TicketOpened struct {
	TicketID     ID        `json:"ticketId"`
	UUID         string    `json:"uuid"`
	CompanyID    ID        `json:"companyId"`
	ContactID    ID        `json:"contactId"`
	ConnectionID ID        `json:"whatsappId"`
	Channel      string    `json:"channel"`
	QueueID      ID        `json:"queueId"`
	UserID       ID        `json:"userId"`
	Status       string    `json:"status"`
	IsGroup      bool      `json:"isGroup"`
	Protocol     string    `json:"protocol"`
	At           time.Time `json:"at"`
}

// TicketAccepted: a pending ticket became open for UserID. QueueID is the ticket's
// queue at the time (unchanged), for the history.
type TicketAccepted struct {
	UserID  ID        `json:"userId"`
	QueueID ID        `json:"queueId"`
	At      time.Time `json:"at"`
}

// TicketResolved: an open ticket was closed by its attendant UserID; unread became 0.
type TicketResolved struct {
	UserID  ID        `json:"userId"`
	QueueID ID        `json:"queueId"`
	At      time.Time `json:"at"`
}

// TicketReturned: an open ticket went back to pending; FromUserID lost it.
type TicketReturned struct {
	FromUserID ID        `json:"fromUserId"`
	QueueID    ID        `json:"queueId"`
	At         time.Time `json:"at"`
}

// TicketReopened: a closed ticket (last held by FromUserID) became open for ToUserID.
type TicketReopened struct {
	FromUserID ID        `json:"fromUserId"`
	ToUserID   ID        `json:"toUserId"`
	QueueID    ID        `json:"queueId"`
	At         time.Time `json:"at"`
}

// TicketTransferred: the ticket moved between users, queues and/or connections.
type TicketTransferred struct {
	FromUserID       ID        `json:"fromUserId"`
	ToUserID         ID        `json:"toUserId"`
	FromQueueID      ID        `json:"fromQueueId"`
	ToQueueID        ID        `json:"toQueueId"`
	FromConnectionID ID        `json:"fromWhatsappId"`
	ToConnectionID   ID        `json:"toWhatsappId"`
	FromStatus       string    `json:"fromStatus"`
	ToStatus         string    `json:"toStatus"`
	At               time.Time `json:"at"`
}

// TicketDeleted: the ticket was deleted while held by UserID in QueueID.
type TicketDeleted struct {
	UserID  ID        `json:"userId"`
	QueueID ID        `json:"queueId"`
	At      time.Time `json:"at"`
}

// TicketMessageReceived: an inbound customer message.
type TicketMessageReceived struct {
	MessageID  ID        `json:"messageId"`
	ProviderID string    `json:"providerId,omitempty"`
	Body       string    `json:"body"`
	MediaType  string    `json:"mediaType,omitempty"`
	MediaURL   string    `json:"mediaUrl,omitempty"`
	QuotedID   ID        `json:"quotedId,omitempty"`
	At         time.Time `json:"at"`
}

// TicketMessageSent: a message from our side to the customer, by attendant SenderID or,
// when Automatic, by the server or the channel's own app (SenderID 0). It starts at
// ack 0 (pending).
type TicketMessageSent struct {
	MessageID  ID     `json:"messageId"`
	SenderID   ID     `json:"senderId,omitempty"`
	Automatic  bool   `json:"automatic,omitempty"`
	ProviderID string `json:"providerId,omitempty"`
	Body       string `json:"body"`
	MediaType  string `json:"mediaType,omitempty"`
	MediaURL   string `json:"mediaUrl,omitempty"`
	QuotedID   ID     `json:"quotedId,omitempty"`
	// Ack is the receipt the message already had when it was recorded (history
	// imported with it); 0 for a message sent now, acknowledged by later events.
	Ack int       `json:"ack,omitempty"`
	At  time.Time `json:"at"`
}

// TicketWhisperAdded: an internal note by SenderID (media type whisper).
type TicketWhisperAdded struct {
	MessageID ID     `json:"messageId"`
	SenderID  ID     `json:"senderId"`
	Body      string `json:"body"`
	// MediaType is MediaChatGPT for an AI assistant's answer; empty is a whisper
	// (events written before AI answers existed have none).
	MediaType string    `json:"mediaType,omitempty"`
	At        time.Time `json:"at"`
}

// Media is the message's media type: MediaWhisper or MediaChatGPT.
func (e TicketWhisperAdded) Media() string {
	if e.MediaType == MediaChatGPT {
		return MediaChatGPT
	}
	return MediaWhisper
}

// TicketMessageAcked: a message's ack moved forward to Ack. ProviderID, when set, is
// the channel's id of the message (recorded with its first ack).
type TicketMessageAcked struct {
	MessageID  ID        `json:"messageId"`
	Ack        int       `json:"ack"`
	ProviderID string    `json:"providerId,omitempty"`
	At         time.Time `json:"at"`
}

// TicketMessageFailed: the channel refused one of our messages for good; it is never
// sent again.
type TicketMessageFailed struct {
	MessageID ID        `json:"messageId"`
	Reason    string    `json:"reason,omitempty"`
	At        time.Time `json:"at"`
}

// TicketMessageDeleted: a message was deleted by its author ByUserID; ByUserID 0
// means the channel's side deleted it (the customer's "delete for everyone", or the
// connection's own phone).
type TicketMessageDeleted struct {
	MessageID ID        `json:"messageId"`
	ByUserID  ID        `json:"byUserId"`
	At        time.Time `json:"at"`
}

// TicketRead: the unread count (Count before) went to zero.
type TicketRead struct {
	Count int       `json:"count"`
	At    time.Time `json:"at"`
}

// TicketTagsSet: the tag set became TagIDs (sorted, unique).
type TicketTagsSet struct {
	TagIDs []ID      `json:"tagIds"`
	At     time.Time `json:"at"`
}

// TicketRatingAsked: the satisfaction question (message MessageID, recorded by the
// TicketMessageSent before it) went to the customer of the resolved ticket.
type TicketRatingAsked struct {
	MessageID ID        `json:"messageId"`
	At        time.Time `json:"at"`
}

// TicketRated: the customer answered the satisfaction question with Score (1 to 3).
// ContactID, QueueID and UserID are the ticket's at the time: the contact whose
// appraisalData the answer adds to, and the queue and attendant the dashboard credits.
type TicketRated struct {
	Score     int       `json:"score"`
	ContactID ID        `json:"contactId"`
	QueueID   ID        `json:"queueId"`
	UserID    ID        `json:"userId"`
	At        time.Time `json:"at"`
}

// TicketBotStepped: the reception bot answered customer message ReplyTo (a provider
// id) and is now at menu Level (Done: finished with the ticket); Absent: its message
// was the queue's absence message. The message and any move are recorded by the
// TicketMessageSent and TicketTransferred before it, in the same append.
type TicketBotStepped struct {
	ReplyTo string `json:"replyTo"`
	Level   ID     `json:"level"`
	Done    bool   `json:"done,omitempty"`
	Absent  bool   `json:"absent,omitempty"`
	// AbsentAt is the bot's time of an absence message (the bot reads business hours
	// and the repeat interval on its own clock).
	AbsentAt time.Time `json:"absentAt,omitzero"`
	At       time.Time `json:"at"`
}

func (TicketBotStepped) Type() string            { return EvTicketBotStepped }
func (e TicketBotStepped) OccurredAt() time.Time { return e.At }
func (TicketBotStepped) isTicketEvent()          {}

func (TicketRatingAsked) Type() string            { return EvTicketRatingAsked }
func (TicketRated) Type() string                  { return EvTicketRated }
func (e TicketRatingAsked) OccurredAt() time.Time { return e.At }
func (e TicketRated) OccurredAt() time.Time       { return e.At }
func (TicketRatingAsked) isTicketEvent()          {}
func (TicketRated) isTicketEvent()                {}

func (TicketOpened) Type() string          { return EvTicketOpened }
func (TicketAccepted) Type() string        { return EvTicketAccepted }
func (TicketResolved) Type() string        { return EvTicketResolved }
func (TicketReturned) Type() string        { return EvTicketReturned }
func (TicketReopened) Type() string        { return EvTicketReopened }
func (TicketTransferred) Type() string     { return EvTicketTransferred }
func (TicketDeleted) Type() string         { return EvTicketDeleted }
func (TicketMessageReceived) Type() string { return EvTicketMessageReceived }
func (TicketMessageSent) Type() string     { return EvTicketMessageSent }
func (TicketWhisperAdded) Type() string    { return EvTicketWhisperAdded }
func (TicketMessageAcked) Type() string    { return EvTicketMessageAcked }
func (TicketMessageDeleted) Type() string  { return EvTicketMessageDeleted }
func (TicketMessageFailed) Type() string   { return EvTicketMessageFailed }
func (TicketRead) Type() string            { return EvTicketRead }
func (TicketTagsSet) Type() string         { return EvTicketTagsSet }

func (e TicketOpened) OccurredAt() time.Time          { return e.At }
func (e TicketAccepted) OccurredAt() time.Time        { return e.At }
func (e TicketResolved) OccurredAt() time.Time        { return e.At }
func (e TicketReturned) OccurredAt() time.Time        { return e.At }
func (e TicketReopened) OccurredAt() time.Time        { return e.At }
func (e TicketTransferred) OccurredAt() time.Time     { return e.At }
func (e TicketDeleted) OccurredAt() time.Time         { return e.At }
func (e TicketMessageReceived) OccurredAt() time.Time { return e.At }
func (e TicketMessageSent) OccurredAt() time.Time     { return e.At }
func (e TicketWhisperAdded) OccurredAt() time.Time    { return e.At }
func (e TicketMessageAcked) OccurredAt() time.Time    { return e.At }
func (e TicketMessageDeleted) OccurredAt() time.Time  { return e.At }
func (e TicketMessageFailed) OccurredAt() time.Time   { return e.At }
func (e TicketRead) OccurredAt() time.Time            { return e.At }
func (e TicketTagsSet) OccurredAt() time.Time         { return e.At }

func (TicketOpened) isTicketEvent()          {}
func (TicketAccepted) isTicketEvent()        {}
func (TicketResolved) isTicketEvent()        {}
func (TicketReturned) isTicketEvent()        {}
func (TicketReopened) isTicketEvent()        {}
func (TicketTransferred) isTicketEvent()     {}
func (TicketDeleted) isTicketEvent()         {}
func (TicketMessageReceived) isTicketEvent() {}
func (TicketMessageSent) isTicketEvent()     {}
func (TicketWhisperAdded) isTicketEvent()    {}
func (TicketMessageAcked) isTicketEvent()    {}
func (TicketMessageDeleted) isTicketEvent()  {}
func (TicketMessageFailed) isTicketEvent()   {}
func (TicketRead) isTicketEvent()            {}
func (TicketTagsSet) isTicketEvent()         {}

// ticketEventDecoders is the registry: one decoder per type. Never modified after init.
var ticketEventDecoders = map[string]func([]byte) (TicketEvent, error){
	EvTicketOpened:            decodeAs[TicketOpened],
	EvTicketAccepted:          decodeAs[TicketAccepted],
	EvTicketResolved:          decodeAs[TicketResolved],
	EvTicketReturned:          decodeAs[TicketReturned],
	EvTicketReopened:          decodeAs[TicketReopened],
	EvTicketTransferred:       decodeAs[TicketTransferred],
	EvTicketDeleted:           decodeAs[TicketDeleted],
	EvTicketMessageReceived:   decodeAs[TicketMessageReceived],
	EvTicketMessageSent:       decodeAs[TicketMessageSent],
	EvTicketWhisperAdded:      decodeAs[TicketWhisperAdded],
	EvTicketMessageAcked:      decodeAs[TicketMessageAcked],
	EvTicketMessageDeleted:    decodeAs[TicketMessageDeleted],
	EvTicketMessageFailed:     decodeAs[TicketMessageFailed],
	EvTicketRead:              decodeAs[TicketRead],
	EvTicketTagsSet:           decodeAs[TicketTagsSet],
	EvTicketRatingAsked:       decodeAs[TicketRatingAsked],
	EvTicketRated:             decodeAs[TicketRated],
	EvTicketBotStepped:        decodeAs[TicketBotStepped],
	EvTicketInvited:           decodeAs[TicketInvited],
	EvTicketInviteAccepted:    decodeAs[TicketInviteAccepted],
	EvTicketInviteDeclined:    decodeAs[TicketInviteDeclined],
	EvTicketMessageTranslated: decodeAs[TicketMessageTranslated],
}

func decodeAs[E TicketEvent](data []byte) (TicketEvent, error) {
	var ev E
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// ErrUnknownEventType is returned (wrapped) by DecodeTicketEvent for a type that is
// not in the registry.
var ErrUnknownEventType = errors.New("unknown event type")

// TicketEventTypes lists every registered ticket event type, sorted.
func TicketEventTypes() []string {
	out := make([]string, 0, len(ticketEventDecoders))
	for t := range ticketEventDecoders {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// EncodeTicketEvent gives the journal type and JSON payload of ev.
func EncodeTicketEvent(ev TicketEvent) (typ string, data []byte, err error) {
	if ev == nil {
		return "", nil, errors.New("encode ticket event: nil event")
	}
	typ = ev.Type()
	if _, ok := ticketEventDecoders[typ]; !ok {
		return "", nil, fmt.Errorf("encode ticket event %q: %w", typ, ErrUnknownEventType)
	}
	data, err = json.Marshal(ev)
	if err != nil {
		return "", nil, fmt.Errorf("encode ticket event %q: %w", typ, err)
	}
	return typ, data, nil
}

// DecodeTicketEvent rebuilds the event of journal type typ from its JSON payload.
// Fields it does not know are ignored, so older code reads newer payloads.
func DecodeTicketEvent(typ string, data []byte) (TicketEvent, error) {
	dec, ok := ticketEventDecoders[typ]
	if !ok {
		return nil, fmt.Errorf("decode ticket event %q: %w", typ, ErrUnknownEventType)
	}
	ev, err := dec(data)
	if err != nil {
		return nil, fmt.Errorf("decode ticket event %q: %w", typ, err)
	}
	return ev, nil
}
