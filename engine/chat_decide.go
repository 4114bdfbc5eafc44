package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ChatCommand is a request to change a chat. CommandName is its wire name.
type ChatCommand interface {
	CommandName() string
}

// CreateChat opens a chat of OwnerID with Users (the owner is added when missing).
// A chat of more than two people is a group and needs a Title.
type CreateChat struct {
	ChatID    ID     `json:"chatId"`
	UUID      string `json:"uuid"`
	CompanyID ID     `json:"companyId"`
	OwnerID   ID     `json:"ownerId"`
	Title     string `json:"title"`
	Users     []ID   `json:"users"`
}

// EditChat changes a chat's title and/or participants (nil: unchanged). The owner
// stays a participant whatever Users says.
type EditChat struct {
	Title *string `json:"title,omitempty"`
	Users *[]ID   `json:"users,omitempty"`
}

// DeleteChat removes the chat for everyone.
type DeleteChat struct{}

// PostChatMessage adds a message of SenderID: text, or a stored media file
// (MediaPath, as the media store answered it) with an optional caption.
type PostChatMessage struct {
	MessageID ID     `json:"messageId"`
	SenderID  ID     `json:"senderId"`
	Body      string `json:"body"`
	MediaPath string `json:"mediaPath,omitempty"`
	MediaName string `json:"mediaName,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
}

// ReadChat clears UserID's unread count.
type ReadChat struct {
	UserID ID `json:"userId"`
}

func (CreateChat) CommandName() string      { return "chat.create" }
func (EditChat) CommandName() string        { return "chat.edit" }
func (DeleteChat) CommandName() string      { return "chat.delete" }
func (PostChatMessage) CommandName() string { return "chat.post" }
func (ReadChat) CommandName() string        { return "chat.read" }

// Chat event types, as stored in the journal.
const (
	EvChatCreated       = "chat.created"
	EvChatUpdated       = "chat.updated"
	EvChatDeleted       = "chat.deleted"
	EvChatMessagePosted = "chat.message_posted"
	EvChatRead          = "chat.read"
)

// ChatEvent is a fact about a chat. Type is its journal type and is not part of the
// payload. Participants is the chat's participant list after the event (for
// chat.deleted: before it), so a reader of one event knows whom it concerns;
// Removed lists the users a chat.updated took out.
type ChatEvent struct {
	Type         string    `json:"-"`
	ChatID       ID        `json:"chatId"`
	UUID         string    `json:"uuid,omitempty"`
	CompanyID    ID        `json:"companyId,omitempty"`
	OwnerID      ID        `json:"ownerId,omitempty"`
	Title        string    `json:"title,omitempty"`
	Participants []ID      `json:"participants,omitempty"`
	Removed      []ID      `json:"removed,omitempty"`
	UserID       ID        `json:"userId,omitempty"` // sender of a message, reader of chat.read
	MessageID    ID        `json:"messageId,omitempty"`
	Body         string    `json:"body,omitempty"`
	MediaPath    string    `json:"mediaPath,omitempty"`
	MediaName    string    `json:"mediaName,omitempty"`
	MediaType    string    `json:"mediaType,omitempty"`
	At           time.Time `json:"at"`
}

// EncodeChatEvent returns the journal type and payload of ev.
func EncodeChatEvent(ev ChatEvent) (string, []byte, error) {
	switch ev.Type {
	case EvChatCreated, EvChatUpdated, EvChatDeleted, EvChatMessagePosted, EvChatRead:
	default:
		return "", nil, fmt.Errorf("encode chat event %q: %w", ev.Type, ErrUnknownEventType)
	}
	b, err := json.Marshal(ev)
	return ev.Type, b, err
}

// DecodeChatEvent rebuilds a chat event from its journal type and payload.
func DecodeChatEvent(typ string, data []byte) (ChatEvent, error) {
	ev := ChatEvent{Type: typ}
	if _, _, err := EncodeChatEvent(ev); err != nil {
		return ChatEvent{}, err
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return ChatEvent{}, fmt.Errorf("decode chat event %q: %w", typ, err)
	}
	ev.Type = typ
	return ev, nil
}

// AuthorizeChat decides whether p may run cmd on the chat s: any known profile may
// chat (chats:use); a chat of another tenant, or one that does not exist, is
// ErrNotFound; reading and posting need p to take part (else ErrNoPermission);
// editing and deleting need p to own the chat.
func AuthorizeChat(p Principal, s ChatState, cmd ChatCommand) error {
	if !p.Valid() || !p.Can(ActUseChat) {
		return E(ErrNoPermission)
	}
	if c, ok := cmd.(CreateChat); ok {
		if c.CompanyID != p.CompanyID || c.OwnerID != p.UserID {
			return E(ErrNoPermission)
		}
		return nil
	}
	if !s.Exists() || s.CompanyID != p.CompanyID {
		return E(ErrNotFound)
	}
	if !s.HasParticipant(p.UserID) {
		return E(ErrNoPermission)
	}
	switch c := cmd.(type) {
	case EditChat, DeleteChat:
		if s.OwnerID != p.UserID {
			return E(ErrNoPermission)
		}
	case PostChatMessage:
		if c.SenderID != p.UserID {
			return E(ErrNoPermission)
		}
	case ReadChat:
		if c.UserID != p.UserID {
			return E(ErrNoPermission)
		}
	}
	return nil
}

// chatParticipants is users with the owner added, duplicates dropped, sorted.
func chatParticipants(owner ID, users []ID, f fieldErrors) []ID {
	out := []ID{owner}
	for _, u := range users {
		if u <= 0 {
			f.add("users", MsgInvalidValue)
			continue
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	slices.Sort(out)
	switch {
	case len(out) < 2:
		f.add("users", MsgRequired)
	case len(out) > ChatMaxParticipants:
		f.add("users", MsgTooLong)
	}
	return out
}

// chatTitle validates a title: single line, up to ChatTitleMax; required for groups.
func chatTitle(title string, participants int, f fieldErrors) string {
	t := strings.TrimSpace(title)
	f.text("title", t, participants > 2, 1, ChatTitleMax)
	return t
}

// DecideChat turns a command into the events it causes (none when it changes
// nothing). It validates the command against the state; users of the command are
// assumed to be staff of the chat's tenant (the caller checks them).
func DecideChat(s ChatState, cmd ChatCommand, now time.Time) ([]ChatEvent, error) {
	now = now.UTC().Truncate(time.Microsecond)
	switch c := cmd.(type) {
	case CreateChat:
		if s.ID != 0 {
			return nil, E(ErrInvalidTransition)
		}
		f := fieldErrors{}
		f.id("chatId", c.ChatID, true)
		f.id("ownerId", c.OwnerID, true)
		parts := chatParticipants(c.OwnerID, c.Users, f)
		title := chatTitle(c.Title, len(parts), f)
		if err := f.err(); err != nil {
			return nil, err
		}
		return []ChatEvent{{Type: EvChatCreated, ChatID: c.ChatID, UUID: c.UUID, CompanyID: c.CompanyID,
			OwnerID: c.OwnerID, Title: title, Participants: parts, At: now}}, nil
	case EditChat:
		title, parts := s.Title, s.Participants
		f := fieldErrors{}
		if c.Users != nil {
			parts = chatParticipants(s.OwnerID, *c.Users, f)
		}
		if c.Title != nil {
			title = *c.Title
		}
		title = chatTitle(title, len(parts), f)
		if err := f.err(); err != nil {
			return nil, err
		}
		if title == s.Title && slices.Equal(parts, s.Participants) {
			return nil, nil
		}
		var removed []ID
		for _, p := range s.Participants {
			if !slices.Contains(parts, p) {
				removed = append(removed, p)
			}
		}
		return []ChatEvent{{Type: EvChatUpdated, ChatID: s.ID, Title: title, Participants: parts, Removed: removed, At: now}}, nil
	case DeleteChat:
		return []ChatEvent{{Type: EvChatDeleted, ChatID: s.ID, Participants: s.Participants, At: now}}, nil
	case PostChatMessage:
		body := strings.TrimSpace(c.Body)
		f := fieldErrors{}
		f.id("messageId", c.MessageID, true)
		switch {
		case body == "" && c.MediaPath == "":
			f.add("message", MsgRequired)
		case body == "":
		case !multiLine(body):
			f.add("message", MsgInvalidValue)
		case runeLen(body) > MaxMessageBody:
			f.add("message", MsgTooLong)
		}
		if err := f.err(); err != nil {
			return nil, err
		}
		if slices.Contains(s.Recent, c.MessageID) {
			return nil, nil // a retry of a post already appended
		}
		if c.MediaPath != "" {
			f.text("mediaName", c.MediaName, false, 0, 255)
			if !StorableText(c.MediaPath) || !StorableText(c.MediaType) {
				f.add("medias", MsgInvalidValue)
			}
			if err := f.err(); err != nil {
				return nil, err
			}
		}
		return []ChatEvent{{Type: EvChatMessagePosted, ChatID: s.ID, UserID: c.SenderID, MessageID: c.MessageID,
			Body: body, MediaPath: c.MediaPath, MediaName: c.MediaName, MediaType: c.MediaType,
			Participants: s.Participants, At: now}}, nil
	case ReadChat:
		if s.Unreads[c.UserID] == 0 {
			return nil, nil
		}
		return []ChatEvent{{Type: EvChatRead, ChatID: s.ID, UserID: c.UserID, Participants: s.Participants, At: now}}, nil
	}
	return nil, Wrap(ErrValidation, errors.New("unknown chat command"))
}

// chatRecentIDs is how many message ids a chat remembers to refuse a retried post.
const chatRecentIDs = 64

// EvolveChat folds one event into the state.
func EvolveChat(s ChatState, ev ChatEvent) ChatState {
	s.Version++
	s.Unreads = maps.Clone(s.Unreads)
	if s.Unreads == nil {
		s.Unreads = map[ID]int{}
	}
	switch ev.Type {
	case EvChatCreated:
		s.ID, s.UUID, s.CompanyID, s.OwnerID, s.Title = ev.ChatID, ev.UUID, ev.CompanyID, ev.OwnerID, ev.Title
		s.Participants = slices.Clone(ev.Participants)
		s.CreatedAt = ev.At
	case EvChatUpdated:
		s.Title = ev.Title
		s.Participants = slices.Clone(ev.Participants)
		for _, r := range ev.Removed {
			delete(s.Unreads, r)
		}
	case EvChatDeleted:
		s.Deleted = true
	case EvChatMessagePosted:
		s.LastMessage = ev.Body
		if s.LastMessage == "" {
			s.LastMessage = ev.MediaName
		}
		s.Messages++
		s.Recent = append(slices.Clone(s.Recent), ev.MessageID)
		if len(s.Recent) > chatRecentIDs {
			s.Recent = s.Recent[len(s.Recent)-chatRecentIDs:]
		}
		for _, p := range s.Participants {
			if p != ev.UserID {
				s.Unreads[p]++
			}
		}
	case EvChatRead:
		// Reading is not news: the chat keeps its place in the lists.
		delete(s.Unreads, ev.UserID)
		return s
	}
	s.UpdatedAt = ev.At
	return s
}
