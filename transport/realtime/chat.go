package realtime

import (
	"context"
	"fmt"

	"atende/engine"
	"atende/transport/socket"
)

// EventChat is the socket event of the internal chat (whaticket's "company chat").
const EventChat = "chat"

// Actions of the chat event besides create, update and delete.
const ActionNewMessage = "new-message"

// chatEvent maps a chat journal event to the "chat" socket event, sent to the user
// rooms of the chat's participants only (and, for an edit, of the users it took
// out, so that the chat leaves their lists):
//
//	chat.created         {action:"create", record, chat}
//	chat.updated         {action:"update", record, chat}
//	chat.message_posted  {action:"new-message", newMessage, chat}
//	chat.read            {action:"update", record, chat}  to the reader only
//	chat.deleted         {action:"delete", id}
//
// chat is the read model's view (participants with names and unread counts); when
// the read model no longer has the chat (deleted since), the event's own fields.
func (p *Publisher) chatEvent(ctx context.Context, rec engine.RecordedEvent) (*socket.Event, error) {
	ev, err := engine.DecodeChatEvent(rec.Type, rec.Data)
	if err != nil {
		return nil, err
	}
	users := ev.Participants
	if ev.Type == engine.EvChatUpdated {
		users = append(append([]engine.ID{}, ev.Participants...), ev.Removed...)
	}
	if ev.Type == engine.EvChatRead {
		users = []engine.ID{ev.UserID}
	}
	if len(users) == 0 {
		return nil, nil
	}
	rooms := make([]socket.Room, len(users))
	for i, u := range users {
		rooms[i] = socket.UserRoom(u)
	}
	if ev.Type == engine.EvChatDeleted {
		body, err := payload(map[string]any{"action": ActionDelete, "id": ev.ChatID})
		if err != nil {
			return nil, err
		}
		return &socket.Event{Rooms: rooms, Name: EventChat, Payload: body}, nil
	}
	chat := engine.Chat{ID: ev.ChatID, CompanyID: rec.CompanyID, Title: ev.Title, UpdatedAt: ev.At, LastMessage: ev.Body}
	if p.cfg.Chats != nil {
		c, err := p.cfg.Chats.GetChat(ctx, rec.CompanyID, ev.ChatID)
		switch {
		case err == nil:
			chat = c
		case engine.CodeOf(err) != engine.ErrNotFound:
			return nil, fmt.Errorf("read chat %d: %w", ev.ChatID, err)
		}
	}
	var body []byte
	switch ev.Type {
	case engine.EvChatCreated:
		body, err = payload(map[string]any{"action": ActionCreate, "record": chat, "chat": chat})
	case engine.EvChatUpdated, engine.EvChatRead:
		body, err = payload(map[string]any{"action": ActionUpdate, "record": chat, "chat": chat})
	case engine.EvChatMessagePosted:
		m := engine.ChatMessage{ID: ev.MessageID, ChatID: ev.ChatID, SenderID: ev.UserID, Message: ev.Body,
			MediaPath: ev.MediaPath, MediaName: ev.MediaName, MediaType: ev.MediaType,
			CreatedAt: ev.At, Sender: &engine.UserRef{ID: ev.UserID}}
		if m.MediaPath != "" && p.cfg.SignMedia != nil {
			m.MediaURL = p.cfg.SignMedia(rec.CompanyID, m.MediaPath)
		}
		for _, u := range chat.Users {
			if u.UserID == ev.UserID && u.User != nil {
				m.Sender.Name = u.User.Name
			}
		}
		body, err = payload(map[string]any{"action": ActionNewMessage, "newMessage": m, "chat": chat})
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &socket.Event{Rooms: rooms, Name: EventChat, Payload: body}, nil
}
