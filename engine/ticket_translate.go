package engine

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Translation of a message (spec section 2: "any message can be translated"; section
// 7: PUT /messages/{id} with the language). The translation itself comes from the
// tenant's AI endpoint; the ticket records it so that every screen showing the
// conversation shows it under the message, and a reload keeps it.

// TranslateMessage records Body as the translation of message MessageID into Language
// (one of TranslationLanguage's codes). A later translation replaces the earlier one.
// Any staff member who may work on the ticket may translate any of its messages, in
// any status; a deleted message is not translated.
type TranslateMessage struct {
	MessageID ID
	ByUserID  ID
	Language  string
	Body      string
}

func (TranslateMessage) CommandName() string { return "ticket.translate_message" }
func (TranslateMessage) isTicketCommand()    {}

// EvTicketMessageTranslated is the event type of TicketMessageTranslated.
const EvTicketMessageTranslated = "ticket.message_translated"

// TicketMessageTranslated: Body is message MessageID translated into Language.
type TicketMessageTranslated struct {
	MessageID ID        `json:"messageId"`
	ByUserID  ID        `json:"byUserId"`
	Language  string    `json:"language"`
	Body      string    `json:"body"`
	At        time.Time `json:"at"`
}

func (TicketMessageTranslated) Type() string            { return EvTicketMessageTranslated }
func (e TicketMessageTranslated) OccurredAt() time.Time { return e.At }
func (TicketMessageTranslated) isTicketEvent()          {}

func decideTranslate(s TicketState, c TranslateMessage, at time.Time) ([]TicketEvent, error) {
	f := fieldErrors{}
	f.id("messageId", c.MessageID, true)
	f.id("byUserId", c.ByUserID, true)
	if _, ok := TranslationLanguage(c.Language); !ok {
		f.add("language", MsgInvalidValue)
	}
	switch {
	case !StorableText(c.Body):
		f.add("body", MsgInvalidValue)
	case strings.TrimSpace(c.Body) == "":
		f.add("body", MsgRequired)
	case utf8.RuneCountInString(c.Body) > MaxAIAnswerRunes:
		f.add("body", MsgTooLong)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	m, ok := s.Messages[c.MessageID]
	if !ok || m.Deleted {
		return nil, Wrap(ErrNoMessageFound, fmt.Errorf("%s: message %d not on ticket %d", c.CommandName(), c.MessageID, s.ID))
	}
	return one(TicketMessageTranslated{MessageID: c.MessageID, ByUserID: c.ByUserID, Language: c.Language, Body: c.Body, At: at})
}
