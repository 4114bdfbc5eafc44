package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limits on ticket commands.
const (
	MaxMessageBody   = 65536 // characters of a message body (WhatsApp's own limit)
	MaxTicketTags    = 100   // tags on one ticket
	maxProtocolRunes = 64
	maxURLRunes      = 4096
	// maxFailReasonRunes clips the reason a failed send records.
	maxFailReasonRunes = 512
)

// Media types a customer message may carry. Whisper and chatgpt are ours only.
var inboundMediaTypes = map[string]bool{
	"": true, MediaImage: true, MediaAudio: true, MediaVideo: true, MediaDocument: true,
	MediaCallLog: true, MediaImport: true, MediaAction: true,
}

// Media types a message we send may carry. A whisper goes through AddWhisper.
var outboundMediaTypes = map[string]bool{
	"": true, MediaImage: true, MediaAudio: true, MediaVideo: true, MediaDocument: true,
	MediaChatGPT: true,
}

// Media types that are a file: they need a media URL.
var fileMediaTypes = map[string]bool{MediaImage: true, MediaAudio: true, MediaVideo: true, MediaDocument: true}

var ticketChannels = map[string]bool{
	ChannelWhatsApp: true, ChannelWABA: true, ChannelFacebook: true,
	ChannelInstagram: true, ChannelTelegram: true, ChannelSocket: true,
}

// validAcks are the ack values of spec section 3 (there is no 2).
var validAcks = map[int]bool{AckPending: true, AckSent: true, AckRead: true, AckPlayed: true}

// DecideTicket judges cmd against the ticket state s at time now and returns the
// events that record it. It is pure: the same (s, cmd, now) always gives the same
// answer, and s is not modified. Event times are now in UTC, truncated to
// microseconds (what both databases keep).
//
// No events and a nil error means the command changes nothing: a message id (or
// provider id) already on the ticket, an ack older than the one recorded, a message
// already deleted, a read of a ticket with nothing unread, the same tag set, a
// transfer to where the ticket already is. Retries are therefore safe.
//
// Errors are *Error: ErrNoTicketFound for a command on a ticket never opened or
// deleted; ErrInvalidTransition for a command the ticket's status does not allow;
// ErrValidation (with Fields) for a malformed command; ErrNoMessageFound for an ack or
// deletion of an unknown message; ErrNoPermission for deleting a message one did not
// write. Who may send which command is AuthorizeTicket's business, not this one's.
//
// Commands must be passed by value (Accept{…}, not &Accept{…}).
func DecideTicket(s TicketState, cmd TicketCommand, now time.Time) ([]TicketEvent, error) {
	at := now.UTC().Truncate(time.Microsecond)
	if cmd == nil {
		return nil, Wrap(ErrInternal, errors.New("decide ticket: nil command"))
	}
	if c, ok := cmd.(OpenTicket); ok {
		return decideOpen(s, c, at)
	}
	if !s.Exists() {
		return nil, Wrap(ErrNoTicketFound, fmt.Errorf("%s: ticket %d does not exist", cmd.CommandName(), s.ID))
	}
	switch c := cmd.(type) {
	case Accept:
		if err := requireID("userId", c.UserID); err != nil {
			return nil, err
		}
		if s.Status != StatusPending {
			return nil, invalidTransition(s, cmd)
		}
		return one(TicketAccepted{UserID: c.UserID, QueueID: s.QueueID, At: at})
	case Resolve:
		if s.Status != StatusOpen {
			return nil, invalidTransition(s, cmd)
		}
		return one(TicketResolved{UserID: s.UserID, QueueID: s.QueueID, At: at})
	case Return:
		if s.Status != StatusOpen {
			return nil, invalidTransition(s, cmd)
		}
		return one(TicketReturned{FromUserID: s.UserID, QueueID: s.QueueID, At: at})
	case Reopen:
		if err := requireID("userId", c.UserID); err != nil {
			return nil, err
		}
		if s.Status != StatusClosed {
			return nil, invalidTransition(s, cmd)
		}
		return one(TicketReopened{FromUserID: s.UserID, ToUserID: c.UserID, QueueID: s.QueueID, At: at})
	case Transfer:
		return decideTransfer(s, c, at)
	case Delete:
		return one(TicketDeleted{UserID: s.UserID, QueueID: s.QueueID, At: at})
	case ReceiveMessage:
		return decideReceive(s, c, at)
	case SendMessage:
		return decideSend(s, c, at)
	case SendAutomaticMessage:
		return decideSendAutomatic(s, c, at)
	case AddWhisper:
		return decideWhisper(s, c, at)
	case AckMessage:
		return decideAck(s, c, at)
	case DeleteMessage:
		return decideDeleteMessage(s, c, at)
	case TranslateMessage:
		return decideTranslate(s, c, at)
	case RevokeMessage:
		return decideRevoke(s, c, at)
	case FailMessage:
		return decideFail(s, c, at)
	case MarkRead:
		if s.UnreadMessages == 0 {
			return nil, nil
		}
		return one(TicketRead{Count: s.UnreadMessages, At: at})
	case SetTags:
		return decideSetTags(s, c, at)
	case AskRating:
		return decideAskRating(s, c, at)
	case BotStep:
		return decideBotStep(s, c, at)
	case Invite:
		return decideInvite(s, c, at)
	case AcceptInvite:
		return decideAnswerInvite(s, c, c.UserID, c.Name, true, at)
	case DeclineInvite:
		return decideAnswerInvite(s, c, c.UserID, c.Name, false, at)
	default:
		return nil, Wrap(ErrInternal, fmt.Errorf("decide ticket: unsupported command %T", cmd))
	}
}

func one(ev TicketEvent) ([]TicketEvent, error) { return []TicketEvent{ev}, nil }

func invalidTransition(s TicketState, cmd TicketCommand) *Error {
	return Wrap(ErrInvalidTransition, fmt.Errorf("%s: ticket %d is %s", cmd.CommandName(), s.ID, s.Status))
}

// requireID is a one-field validation: id must be positive.
func requireID(field string, id ID) error {
	f := fieldErrors{}
	f.id(field, id, true)
	return f.err()
}

func decideOpen(s TicketState, c OpenTicket, at time.Time) ([]TicketEvent, error) {
	if s.Deleted {
		return nil, Wrap(ErrNoTicketFound, fmt.Errorf("%s: ticket %d was deleted", c.CommandName(), s.ID))
	}
	if s.Status != "" {
		return nil, invalidTransition(s, c)
	}
	f := fieldErrors{}
	f.id("ticketId", c.TicketID, true)
	f.id("companyId", c.CompanyID, true)
	f.id("contactId", c.ContactID, true)
	f.id("whatsappId", c.ConnectionID, true)
	f.id("queueId", c.QueueID, false)
	f.id("userId", c.UserID, false)
	switch {
	case strings.TrimSpace(c.UUID) == "":
		f.add("uuid", MsgRequired)
	case !singleLine(c.UUID) || len(c.UUID) > 64:
		f.add("uuid", MsgInvalidValue)
	}
	switch {
	case c.Channel == "":
		f.add("channel", MsgRequired)
	case !ticketChannels[c.Channel]:
		f.add("channel", MsgInvalidValue)
	}
	switch c.Status {
	case StatusOpen:
		if c.UserID == 0 {
			f.add("userId", MsgRequired)
		}
	case StatusPending:
		if c.UserID != 0 {
			f.add("userId", MsgInvalidValue) // a pending ticket has no user
		}
	case "":
		f.add("status", MsgRequired)
	default:
		f.add("status", MsgInvalidValue) // a ticket is never born closed
	}
	if !singleLine(c.Protocol) {
		f.add("protocol", MsgInvalidValue)
	} else if runeLen(c.Protocol) > maxProtocolRunes {
		f.add("protocol", MsgTooLong)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	opened := TicketOpened{
		TicketID: c.TicketID, UUID: c.UUID, CompanyID: c.CompanyID, ContactID: c.ContactID,
		ConnectionID: c.ConnectionID, Channel: c.Channel, QueueID: c.QueueID, UserID: c.UserID,
		Status: c.Status, IsGroup: c.IsGroup, Protocol: c.Protocol, At: at,
	}
	if c.First == nil {
		if c.Greet != nil {
			return nil, &Error{Code: ErrValidation, Fields: map[string]string{"first": MsgRequired}}
		}
		return one(opened)
	}
	// The first message, then the greeting, are judged on the ticket as it stands
	// after what comes before them; an invalid one refuses the whole opening, so
	// nothing is half-written.
	events := []TicketEvent{opened}
	s = EvolveTicket(s, opened)
	received, err := decideReceive(s, *c.First, at)
	if err != nil {
		return nil, err
	}
	events = append(events, received...)
	if c.Greet == nil {
		return events, nil
	}
	s = FoldTicket(s, received)
	greeted, err := decideBotStep(s, *c.Greet, at)
	if err != nil {
		return nil, err
	}
	return append(events, greeted...), nil
}

// decideTransfer: with a user the ticket becomes open for that user; without one it
// becomes pending with no user (also when only the connection is chosen, as the
// transfer dialog sends no user then). Queue and connection change only when given.
func decideTransfer(s TicketState, c Transfer, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("userId", c.UserID, false)
	f.id("queueId", c.QueueID, false)
	f.id("whatsappId", c.ConnectionID, false)
	if c.UserID == 0 && c.QueueID == 0 && c.ConnectionID == 0 {
		f.add("userId", MsgRequired)
		f.add("queueId", MsgRequired)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if s.Status != StatusPending && s.Status != StatusOpen {
		return nil, invalidTransition(s, c)
	}
	ev := TicketTransferred{
		FromUserID: s.UserID, ToUserID: c.UserID,
		FromQueueID: s.QueueID, ToQueueID: s.QueueID,
		FromConnectionID: s.ConnectionID, ToConnectionID: s.ConnectionID,
		FromStatus: s.Status, ToStatus: StatusPending,
		At: at,
	}
	if c.UserID != 0 {
		ev.ToStatus = StatusOpen
	}
	if c.QueueID != 0 {
		ev.ToQueueID = c.QueueID
	}
	if c.ConnectionID != 0 {
		ev.ToConnectionID = c.ConnectionID
	}
	if ev.FromUserID == ev.ToUserID && ev.FromQueueID == ev.ToQueueID &&
		ev.FromConnectionID == ev.ToConnectionID && ev.FromStatus == ev.ToStatus {
		return nil, nil // already there
	}
	return one(ev)
}

// checkMessage validates the parts common to every message command.
func checkMessage(f fieldErrors, id ID, body, mediaType, mediaURL string, allowed map[string]bool) {
	f.id("messageId", id, true)
	switch {
	case !StorableText(body):
		f.add("body", MsgInvalidValue)
	case runeLen(body) > MaxMessageBody:
		f.add("body", MsgTooLong)
	case strings.TrimSpace(body) == "" && mediaURL == "":
		f.add("body", MsgRequired)
	}
	if !allowed[mediaType] {
		f.add("mediaType", MsgInvalidValue)
	} else if fileMediaTypes[mediaType] && mediaURL == "" {
		f.add("mediaUrl", MsgRequired)
	}
	if !singleLine(mediaURL) || runeLen(mediaURL) > maxURLRunes {
		f.add("mediaUrl", MsgInvalidValue)
	}
}

func checkProviderID(f fieldErrors, pid string) {
	if !ValidProviderID(pid) {
		f.add("providerId", MsgInvalidValue)
	}
}

// ValidProviderID reports whether pid may be stored as a channel's message id: one
// line of valid UTF-8, at most 256 characters ("" is valid: none).
func ValidProviderID(pid string) bool { return singleLine(pid) && runeLen(pid) <= 256 }

// seen reports whether the message (by our id or the channel's) is already on s.
func seen(s TicketState, id ID, providerID string) bool {
	if s.HasMessage(id) {
		return true
	}
	if providerID == "" {
		return false
	}
	_, ok := s.ProviderIDs[providerID]
	return ok
}

// Validate reports what DecideTicket would refuse in the message itself, whatever
// the ticket: the connection checks a customer's first message before it claims a
// ticket for it.
func (c ReceiveMessage) Validate() error {
	f := fieldErrors{}
	checkMessage(f, c.MessageID, c.Body, c.MediaType, c.MediaURL, inboundMediaTypes)
	checkProviderID(f, c.ProviderID)
	f.id("quotedId", c.QuotedID, false)
	return f.err()
}

func decideReceive(s TicketState, c ReceiveMessage, at time.Time) ([]TicketEvent, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if seen(s, c.MessageID, c.ProviderID) {
		return nil, nil
	}
	received := TicketMessageReceived{
		MessageID: c.MessageID, ProviderID: c.ProviderID, Body: c.Body,
		MediaType: c.MediaType, MediaURL: c.MediaURL, QuotedID: c.QuotedID, At: at,
	}
	if s.Status == StatusClosed {
		// A closed ticket takes one message only: the answer to its rating question.
		// Anything else is refused, and the connection opens a new ticket with it.
		score, ok := ParseRating(c.Body)
		if !s.RatingAsked || s.Rated || c.MediaType != "" || !ok {
			return nil, invalidTransition(s, c)
		}
		return []TicketEvent{received, TicketRated{Score: score, ContactID: s.ContactID, QueueID: s.QueueID,
			UserID: s.UserID, At: at}}, nil
	}
	return one(received)
}

func decideSend(s TicketState, c SendMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	checkMessage(f, c.MessageID, c.Body, c.MediaType, c.MediaURL, outboundMediaTypes)
	f.id("senderId", c.SenderID, true)
	f.id("quotedId", c.QuotedID, false)
	if err := f.err(); err != nil {
		return nil, err
	}
	if s.HasMessage(c.MessageID) {
		return nil, nil
	}
	if s.Status != StatusOpen {
		return nil, invalidTransition(s, c)
	}
	return one(TicketMessageSent{
		MessageID: c.MessageID, SenderID: c.SenderID, Body: c.Body,
		MediaType: c.MediaType, MediaURL: c.MediaURL, QuotedID: c.QuotedID, At: at,
	})
}

// decideAskRating records the rating question as an automatic message and marks the
// ticket as waiting for the answer.
func decideAskRating(s TicketState, c AskRating, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	checkMessage(f, c.MessageID, c.Body, "", "", outboundMediaTypes)
	if err := f.err(); err != nil {
		return nil, err
	}
	if s.Status != StatusClosed {
		return nil, invalidTransition(s, c)
	}
	if s.RatingAsked || s.Rated || s.HasMessage(c.MessageID) {
		return nil, nil
	}
	return []TicketEvent{
		TicketMessageSent{MessageID: c.MessageID, Automatic: true, Body: c.Body, At: at},
		TicketRatingAsked{MessageID: c.MessageID, At: at},
	}, nil
}

func decideSendAutomatic(s TicketState, c SendAutomaticMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	checkMessage(f, c.MessageID, c.Body, c.MediaType, c.MediaURL, outboundMediaTypes)
	checkProviderID(f, c.ProviderID)
	f.id("quotedId", c.QuotedID, false)
	// Only a message the channel already has (its id) can carry a receipt.
	if c.Ack != AckPending && (!validAcks[c.Ack] || c.ProviderID == "") {
		f.add("ack", MsgInvalidValue)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if seen(s, c.MessageID, c.ProviderID) {
		return nil, nil
	}
	return one(TicketMessageSent{
		MessageID: c.MessageID, Automatic: true, ProviderID: c.ProviderID, Body: c.Body,
		MediaType: c.MediaType, MediaURL: c.MediaURL, QuotedID: c.QuotedID, Ack: c.Ack, At: at,
	})
}

func decideWhisper(s TicketState, c AddWhisper, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	checkMessage(f, c.MessageID, c.Body, "", "", outboundMediaTypes)
	f.id("senderId", c.SenderID, true)
	media := ""
	switch c.MediaType {
	case "", MediaWhisper:
	case MediaChatGPT:
		media = MediaChatGPT
	default:
		f.add("mediaType", MsgInvalidValue)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if s.HasMessage(c.MessageID) {
		return nil, nil
	}
	if s.Status != StatusOpen {
		return nil, invalidTransition(s, c)
	}
	return one(TicketWhisperAdded{MessageID: c.MessageID, SenderID: c.SenderID, Body: c.Body, MediaType: media, At: at})
}

// decideAck: receipts arrive late and out of order, so an ack that does not move the
// message forward is ignored rather than refused. Only our own, really sent messages
// carry receipts: an ack for a customer's message or a whisper is an invalid
// transition. Receipts are taken in every status (the customer may read the farewell
// after the ticket closed).
func decideAck(s TicketState, c AckMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("messageId", c.MessageID, true)
	if !validAcks[c.Ack] {
		f.add("ack", MsgInvalidValue)
	}
	checkProviderID(f, c.ProviderID)
	if err := f.err(); err != nil {
		return nil, err
	}
	m, ok := s.Messages[c.MessageID]
	if !ok {
		return nil, Wrap(ErrNoMessageFound, fmt.Errorf("%s: message %d not on ticket %d", c.CommandName(), c.MessageID, s.ID))
	}
	if !m.FromMe || m.Whisper {
		return nil, Wrap(ErrInvalidTransition, fmt.Errorf("%s: message %d takes no receipts", c.CommandName(), c.MessageID))
	}
	if c.Ack <= m.Ack {
		return nil, nil
	}
	ev := TicketMessageAcked{MessageID: c.MessageID, Ack: c.Ack, At: at}
	if _, taken := s.ProviderIDs[c.ProviderID]; !taken {
		ev.ProviderID = c.ProviderID // a provider id names one message only
	}
	return one(ev)
}

// decideDeleteMessage: only the attendant who wrote a message may delete it, in any
// status. Customer messages and automatic messages (no author) cannot be deleted.
// The permission is checked before idempotency, so a stranger learns nothing.
func decideDeleteMessage(s TicketState, c DeleteMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("messageId", c.MessageID, true)
	f.id("byUserId", c.ByUserID, true)
	if err := f.err(); err != nil {
		return nil, err
	}
	m, ok := s.Messages[c.MessageID]
	if !ok {
		return nil, Wrap(ErrNoMessageFound, fmt.Errorf("%s: message %d not on ticket %d", c.CommandName(), c.MessageID, s.ID))
	}
	if !m.FromMe || m.SenderID != c.ByUserID {
		return nil, Wrap(ErrNoPermission, fmt.Errorf("%s: message %d is not user %d's", c.CommandName(), c.MessageID, c.ByUserID))
	}
	if m.Deleted {
		return nil, nil
	}
	return one(TicketMessageDeleted{MessageID: c.MessageID, ByUserID: c.ByUserID, At: at})
}

// decideRevoke: the channel's side deleted a message for everyone. It names the
// message by the channel's id only; whatever cannot be matched (an id never recorded,
// or recorded on another ticket) changes nothing, so a channel may try tickets in
// turn and redeliver freely. Each side revokes only its own messages.
func decideRevoke(s TicketState, c RevokeMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	if c.ProviderID == "" {
		f.add("providerId", MsgRequired)
	}
	checkProviderID(f, c.ProviderID)
	if err := f.err(); err != nil {
		return nil, err
	}
	id, ok := s.ProviderIDs[c.ProviderID]
	if !ok {
		return nil, nil
	}
	m, ok := s.Messages[id]
	if !ok || m.Deleted || m.Whisper || m.FromMe != c.FromMe {
		return nil, nil
	}
	return one(TicketMessageDeleted{MessageID: id, ByUserID: 0, At: at})
}

// decideFail: the channel refused one of our messages for good. Only a message of
// ours still at ack 0 can fail; one the channel already accepted (or that failed
// before) is left as it is.
func decideFail(s TicketState, c FailMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("messageId", c.MessageID, true)
	if !StorableText(c.Reason) {
		f.add("reason", MsgInvalidValue)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	m, ok := s.Messages[c.MessageID]
	if !ok {
		return nil, Wrap(ErrNoMessageFound, fmt.Errorf("%s: message %d not on ticket %d", c.CommandName(), c.MessageID, s.ID))
	}
	if !m.FromMe || m.Whisper {
		return nil, Wrap(ErrInvalidTransition, fmt.Errorf("%s: message %d is not one we send", c.CommandName(), c.MessageID))
	}
	if m.Failed || m.Ack > AckPending {
		return nil, nil
	}
	reason := c.Reason
	if r := []rune(reason); len(r) > maxFailReasonRunes {
		reason = string(r[:maxFailReasonRunes])
	}
	return one(TicketMessageFailed{MessageID: c.MessageID, Reason: reason, At: at})
}

func decideSetTags(s TicketState, c SetTags, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	for _, id := range c.TagIDs {
		if id <= 0 {
			f.add("tags", MsgInvalidValue)
			break
		}
	}
	ids := NormalizeIDs(c.TagIDs)
	if len(ids) > MaxTicketTags {
		f.add("tags", MsgTooLong)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if slices.Equal(ids, s.TagIDs) {
		return nil, nil
	}
	return one(TicketTagsSet{TagIDs: ids, At: at})
}

// NormalizeIDs returns ids sorted, without duplicates, as a new slice (never nil).
func NormalizeIDs(ids []ID) []ID {
	out := slices.Clone(ids)
	if out == nil {
		out = []ID{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// decideBotStep records a bot step once: a step for a message already answered, for
// a message that is no longer the latest, decided on another level, or for a ticket
// that left pending (an attendant took it) is a no-op, not an error, since the
// connection decides steps concurrently with everything else that reaches the ticket.
func decideBotStep(s TicketState, c BotStep, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	checkProviderID(f, c.ReplyTo)
	if c.ReplyTo == "" {
		f.add("replyTo", MsgRequired)
	}
	f.id("level", c.Level, false)
	f.id("fromLevel", c.FromLevel, false)
	f.id("queueId", c.QueueID, false)
	f.id("userId", c.UserID, false)
	if c.Body != "" || c.MediaType != "" || c.MediaURL != "" {
		checkMessage(f, c.MessageID, c.Body, c.MediaType, c.MediaURL, outboundMediaTypes)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if s.BotReplyTo == c.ReplyTo || s.LastInbound != c.ReplyTo || s.BotLevel != c.FromLevel ||
		s.Status != StatusPending || s.HasMessage(c.MessageID) {
		return nil, nil
	}
	var out []TicketEvent
	if c.Body != "" || c.MediaURL != "" {
		out = append(out, TicketMessageSent{MessageID: c.MessageID, Automatic: true, Body: c.Body,
			MediaType: c.MediaType, MediaURL: c.MediaURL, At: at})
	}
	if c.QueueID != 0 || c.UserID != 0 {
		moved, err := decideTransfer(s, Transfer{UserID: c.UserID, QueueID: c.QueueID}, at)
		if err != nil {
			return nil, err
		}
		out = append(out, moved...)
	}
	stepped := TicketBotStepped{ReplyTo: c.ReplyTo, Level: c.Level, Done: c.Done, Absent: c.Absent, At: at}
	if c.Absent {
		stepped.AbsentAt = c.At.UTC().Truncate(time.Microsecond)
	}
	return append(out, stepped), nil
}
