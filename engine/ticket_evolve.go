package engine

import (
	"slices"
	"strings"
	"time"
)

// EvolveTicket folds one event into the state and returns the new state, with Version
// one higher. It trusts the event (decide already judged it) and never fails; an event
// that names an unknown message only moves the version.
//
// Like append, EvolveTicket may update the message index of its argument in place, so
// treat the argument as consumed: s = EvolveTicket(s, ev). Clone a state you need to
// keep. Events must be values, as DecideTicket and DecodeTicketEvent return them.
func EvolveTicket(s TicketState, ev TicketEvent) TicketState {
	switch e := ev.(type) {
	case TicketOpened:
		s = TicketState{
			ID: e.TicketID, CompanyID: e.CompanyID, UUID: e.UUID, Status: e.Status,
			UserID: e.UserID, QueueID: e.QueueID, ConnectionID: e.ConnectionID,
			ContactID: e.ContactID, Channel: e.Channel, IsGroup: e.IsGroup,
			Protocol: e.Protocol, CreatedAt: e.At, UpdatedAt: e.At,
			Version: s.Version,
		}
	case TicketAccepted:
		s.Status, s.UserID, s.UpdatedAt = StatusOpen, e.UserID, e.At
		s.AbsenceAt = time.Time{}
	case TicketResolved:
		s.Status, s.UnreadMessages, s.UpdatedAt = StatusClosed, 0, e.At
	case TicketReturned:
		s.Status, s.UserID, s.UpdatedAt = StatusPending, 0, e.At
	case TicketReopened:
		s.Status, s.UserID, s.UpdatedAt = StatusOpen, e.ToUserID, e.At
		s.RatingAsked = false // the question of the closing no longer stands
	case TicketTransferred:
		s.Status, s.UserID, s.QueueID, s.ConnectionID = e.ToStatus, e.ToUserID, e.ToQueueID, e.ToConnectionID
		s.UpdatedAt = e.At
	case TicketDeleted:
		s.Deleted, s.UpdatedAt = true, e.At
	case TicketMessageReceived:
		s.putMessage(e.MessageID, e.ProviderID, TicketMessageMeta{})
		s.LastInbound = e.ProviderID
		s.UnreadMessages++
		s.LastMessage = lastMessagePreview(e.Body, e.MediaType)
		s.UpdatedAt = e.At
	case TicketMessageSent:
		s.putMessage(e.MessageID, e.ProviderID, TicketMessageMeta{FromMe: true, SenderID: e.SenderID, Ack: e.Ack})
		if e.SenderID != 0 {
			s.AbsenceAt = time.Time{} // an attendant answered: the next burst is told again
		}
		s.LastMessage = lastMessagePreview(e.Body, e.MediaType)
		s.UpdatedAt = e.At
	case TicketWhisperAdded:
		s.putMessage(e.MessageID, "", TicketMessageMeta{FromMe: true, SenderID: e.SenderID, Whisper: true})
	case TicketMessageAcked:
		if m, ok := s.Messages[e.MessageID]; ok && e.Ack > m.Ack {
			m.Ack = e.Ack
			s.Messages[e.MessageID] = m
			if e.ProviderID != "" {
				s.putMessage(e.MessageID, e.ProviderID, m)
			}
		}
	case TicketMessageFailed:
		if m, ok := s.Messages[e.MessageID]; ok {
			m.Failed = true
			s.Messages[e.MessageID] = m
		}
	case TicketMessageDeleted:
		if m, ok := s.Messages[e.MessageID]; ok {
			m.Deleted = true
			s.Messages[e.MessageID] = m
		}
	case TicketRead:
		s.UnreadMessages = 0
	case TicketRatingAsked:
		s.RatingAsked = true
	case TicketBotStepped:
		s.BotReplyTo, s.BotLevel, s.BotDone = e.ReplyTo, e.Level, e.Done
		if e.Absent {
			s.AbsenceAt = e.AbsentAt
			if s.AbsenceAt.IsZero() {
				s.AbsenceAt = e.At
			}
		}
	case TicketRated:
		// The answer is not work for anybody: a closed ticket keeps nothing unread.
		s.Rated, s.RatingAsked, s.UnreadMessages = true, false, 0
	case TicketTagsSet:
		s.TagIDs = nil // an empty set is nil, as a snapshot reads it back
		if len(e.TagIDs) > 0 {
			s.TagIDs = slices.Clone(e.TagIDs)
		}
	default:
		s.evolveInvite(ev)
	}
	s.Version++
	return s
}

func (s *TicketState) putMessage(id ID, providerID string, m TicketMessageMeta) {
	if s.Messages == nil {
		s.Messages = make(map[ID]TicketMessageMeta)
	}
	s.Messages[id] = m
	if providerID != "" {
		if s.ProviderIDs == nil {
			s.ProviderIDs = make(map[string]ID)
		}
		s.ProviderIDs[providerID] = id
	}
}

// lastMessagePreview is what the ticket list shows for a message: its text, or its
// media type when it has none (the web app translates the media type).
func lastMessagePreview(body, mediaType string) string {
	if strings.TrimSpace(body) == "" {
		return mediaType
	}
	return body
}

// FoldTicket replays events onto s, in order.
func FoldTicket(s TicketState, events []TicketEvent) TicketState {
	for _, ev := range events {
		s = EvolveTicket(s, ev)
	}
	return s
}
