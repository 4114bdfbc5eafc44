package engine

import (
	"context"
	"strconv"
	"time"
)

// The internal chat: one-to-one and group conversations between staff of a tenant.
// A chat is an aggregate like a ticket: its commands are authorised by AuthorizeChat,
// decided by DecideChat into ChatEvents appended to the journal stream chat/<id>, and
// folded by EvolveChat (the chat actor's state and the chats read model alike).

// Limits of the internal chat (Atende's choices; the spec states none).
const (
	ChatTitleMax        = 100 // characters of a chat's title
	ChatMaxParticipants = 100 // users of one chat, its owner included
	ChatPageSize        = 20  // chats per page of GET /chats
	ChatMessagePageSize = 30  // messages per page of GET /chats/{id}/messages
)

// ChatStream is the journal stream of chat id.
func ChatStream(id ID) string { return "chat/" + strconv.FormatInt(id, 10) }

// ChatState is a chat as its actor folds it. Participants are sorted and include the
// owner; Unreads counts, per participant, the messages posted by others since that
// participant last read the chat.
type ChatState struct {
	ID           ID         `json:"id"`
	UUID         string     `json:"uuid"`
	CompanyID    ID         `json:"companyId"`
	OwnerID      ID         `json:"ownerId"`
	Title        string     `json:"title"`
	Participants []ID       `json:"participants"`
	Unreads      map[ID]int `json:"unreads"`
	LastMessage  string     `json:"lastMessage"`
	Messages     int64      `json:"messages"`
	// Recent are the ids of the last chatRecentIDs messages, so that a retried post
	// (a call that timed out after the append) decides to nothing.
	Recent    []ID      `json:"recent,omitempty"`
	Deleted   bool      `json:"deleted"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Version   int64     `json:"version"`
}

// Exists reports whether the chat was created and not deleted.
func (s ChatState) Exists() bool { return s.ID != 0 && !s.Deleted }

// HasParticipant reports whether user id takes part in the chat.
func (s ChatState) HasParticipant(id ID) bool {
	for _, p := range s.Participants {
		if p == id {
			return true
		}
	}
	return false
}

// ChatUser is one participant of a chat as the API shows it (whaticket's ChatUser).
type ChatUser struct {
	ChatID  ID       `json:"chatId"`
	UserID  ID       `json:"userId"`
	Unreads int      `json:"unreads"`
	User    *UserRef `json:"user,omitempty"`
}

// Chat is a chat as GET /chats lists it: whaticket's record (id, uuid, title,
// ownerId, lastMessage, users with their unread counts, owner).
type Chat struct {
	ID          ID         `json:"id"`
	UUID        string     `json:"uuid"`
	CompanyID   ID         `json:"companyId"`
	Title       string     `json:"title"`
	OwnerID     ID         `json:"ownerId"`
	Owner       *UserRef   `json:"owner,omitempty"`
	LastMessage string     `json:"lastMessage"`
	Users       []ChatUser `json:"users"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// UnreadsOf is the unread count of user id in the chat (0 when not a participant).
func (c Chat) UnreadsOf(id ID) int {
	for _, u := range c.Users {
		if u.UserID == id {
			return u.Unreads
		}
	}
	return 0
}

// ChatMessage is one message of a chat (whaticket's ChatMessage). MediaPath is the
// stored file's path; answers carry MediaURL, a signed link to it, for the browser.
type ChatMessage struct {
	ID        ID        `json:"id"`
	ChatID    ID        `json:"chatId"`
	SenderID  ID        `json:"senderId"`
	Message   string    `json:"message"`
	MediaPath string    `json:"mediaPath"`
	MediaName string    `json:"mediaName"`
	MediaType string    `json:"mediaType,omitempty"`
	MediaURL  string    `json:"mediaUrl,omitempty"`
	Sender    *UserRef  `json:"sender,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// ChatQuery selects a page of the chats a user takes part in, newest update first.
// Search matches the title, the last message or a participant's name, case and
// accents ignored.
type ChatQuery struct {
	Search string
	Offset int
	Limit  int // ≤ 0 means ChatPageSize
}

// ChatQueries reads the chats read model. Every method reads only companyID's rows;
// a chat of another tenant, or deleted, is ErrNotFound.
type ChatQueries interface {
	// ListChats returns a page of the chats userID takes part in, how many match in
	// all, and whether more follow.
	ListChats(ctx context.Context, companyID, userID ID, q ChatQuery) (page []Chat, count int, hasMore bool, err error)
	// GetChat returns one chat by id.
	GetChat(ctx context.Context, companyID, id ID) (Chat, error)
	// ListChatMessages returns page (1 = newest) of the chat's messages, oldest to
	// newest within the page, how many there are and whether older pages follow.
	ListChatMessages(ctx context.Context, companyID, chatID ID, page int) (msgs []ChatMessage, count int, hasMore bool, err error)
}

// ChatCommander runs chat commands on the chat's actor, wherever it lives.
type ChatCommander interface {
	// Chat runs cmd on chat id for p; the reply is the state after it and the
	// journal position of its last event (0 when it changed nothing).
	Chat(ctx context.Context, p Principal, id ID, cmd ChatCommand) (ChatState, int64, error)
	// ChatState reads chat id as participant p sees it (AuthorizeChat's rules for
	// reading: ErrNotFound outside the tenant, ErrNoPermission for a non-participant).
	ChatState(ctx context.Context, p Principal, id ID) (ChatState, error)
}
