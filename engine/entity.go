package engine

import (
	"encoding/json"
	"time"
)

// ID identifies a row of any entity. IDs are positive; zero means "none" (a ticket
// without a user, a ticket without a queue). JSON numbers stay below 2^53 so browsers
// read them exactly.
type ID = int64

// Ticket statuses (spec section 4).
const (
	StatusPending = "pending"
	StatusOpen    = "open"
	StatusClosed  = "closed"
)

// Channels a connection (and so a ticket) may speak (spec section 3).
const (
	ChannelWhatsApp  = "whatsapp"
	ChannelWABA      = "waba"
	ChannelFacebook  = "facebook"
	ChannelInstagram = "instagram"
	ChannelTelegram  = "telegram"
	ChannelSocket    = "socket" // the web chat
)

// Connection statuses (spec section 4).
const (
	ConnDisconnected = "DISCONNECTED"
	ConnOpening      = "OPENING"
	ConnQRCode       = "qrcode"
	ConnPairing      = "PAIRING"
	ConnConnected    = "CONNECTED"
	ConnTimeout      = "TIMEOUT"
	ConnStalled      = "STALLED"
)

// Message acks (spec section 3): 0 pending, 1 sent, 3 read, 4 read/played.
const (
	AckPending = 0
	AckSent    = 1
	AckRead    = 3
	AckPlayed  = 4
)

// Message media types (spec section 3). An empty MediaType is a plain text message.
const (
	MediaImage    = "image"
	MediaAudio    = "audio"
	MediaVideo    = "video"
	MediaCallLog  = "call_log"
	MediaImport   = "import_log"
	MediaAction   = "action"
	MediaWhisper  = "whisper"
	MediaChatGPT  = "chatgpt"
	MediaDocument = "document" // "other file" of the brief
)

// Ticket is one customer conversation on one connection.
type Ticket struct {
	ID             ID        `json:"id"`
	UUID           string    `json:"uuid"`
	CompanyID      ID        `json:"companyId"`
	Status         string    `json:"status"`
	UserID         ID        `json:"userId,omitempty"`
	User           *UserRef  `json:"user,omitempty"`
	ContactID      ID        `json:"contactId"`
	Contact        *Contact  `json:"contact,omitempty"`
	IsGroup        bool      `json:"isGroup"`
	UnreadMessages int       `json:"unreadMessages"`
	QueueID        ID        `json:"queueId,omitempty"`
	Queue          *QueueRef `json:"queue,omitempty"`
	ConnectionID   ID        `json:"whatsappId"`
	// Whatsapp names the ticket's connection, as whaticket's ticket carries it
	// (nil when the connection is gone).
	Whatsapp *WhatsappRef `json:"whatsapp,omitempty"`
	Channel  string       `json:"channel"`
	Tags     []Tag        `json:"tags"`
	// Guests are the users who accepted an invitation to the ticket, sorted
	// (engine/ticket_invite.go): they see it as its holder does (SeesTicket).
	Guests      []ID      `json:"guests,omitempty"`
	LastMessage string    `json:"lastMessage"`
	Protocol    string    `json:"protocol"` // human-facing number, e.g. 20261122-000042
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// UserRef is the part of a user a ticket shows.
type UserRef struct {
	ID   ID     `json:"id"`
	Name string `json:"name"`
}

// WhatsappRef is the part of a connection a ticket shows.
type WhatsappRef struct {
	ID   ID     `json:"id"`
	Name string `json:"name"`
}

// QueueRef is the part of a queue a ticket shows.
type QueueRef struct {
	ID    ID     `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Message is one message of a ticket, inbound or outbound.
type Message struct {
	ID        ID             `json:"id"`
	CompanyID ID             `json:"companyId"`
	TicketID  ID             `json:"ticketId"`
	ContactID ID             `json:"contactId,omitempty"`
	Contact   *Contact       `json:"contact,omitempty"`
	SenderID  ID             `json:"senderId,omitempty"` // the attendant who sent it, when fromMe
	Body      string         `json:"body"`
	Read      bool           `json:"read"`
	FromMe    bool           `json:"fromMe"`
	MediaURL  string         `json:"mediaUrl,omitempty"`
	MediaType string         `json:"mediaType,omitempty"`
	QuotedMsg *QuotedMessage `json:"quotedMsg,omitempty"`
	Ack       int            `json:"ack"`
	IsDeleted bool           `json:"isDeleted"`
	// Failed: the channel refused this message of ours for good (ticket.message_failed);
	// it stays at ack 0 and is never sent again.
	Failed bool `json:"failed,omitempty"`
	// ProviderID is the channel's own id of the message (WhatsApp key id, Graph mid…);
	// inbound messages are de-duplicated on it per connection.
	ProviderID string `json:"providerId,omitempty"`
	// Translation is the latest translation of Body (PUT /messages/{id}), into
	// TranslationLanguage (cn, es, gb); empty when never translated.
	Translation         string    `json:"translation,omitempty"`
	TranslationLanguage string    `json:"translationLanguage,omitempty"`
	CreatedAt           time.Time `json:"createdAt"`
	UpdatedAt           time.Time `json:"updatedAt"`
}

// QuotedMessage is the message a reply quotes.
type QuotedMessage struct {
	ID          ID     `json:"id"`
	FromMe      bool   `json:"fromMe"`
	Body        string `json:"body"`
	ContactName string `json:"contactName,omitempty"`
}

// MarshalJSON writes the quote with its author's name twice: as contactName, and as
// contact.name, where whaticket's chat reads the name of a quoted customer.
func (q QuotedMessage) MarshalJSON() ([]byte, error) {
	type plain QuotedMessage
	v := struct {
		plain
		Contact *struct {
			Name string `json:"name"`
		} `json:"contact,omitempty"`
	}{plain: plain(q)}
	if q.ContactName != "" {
		v.Contact = &struct {
			Name string `json:"name"`
		}{q.ContactName}
	}
	return json.Marshal(v)
}

// Contact types (spec section 3).
const (
	ContactBusiness   = "business"
	ContactEnterprise = "enterprise"
	ContactGroup      = "group"
	ContactUser       = "user"
)

// Contact is a customer (or a group) reachable on some channel.
type Contact struct {
	ID            ID             `json:"id"`
	CompanyID     ID             `json:"companyId"`
	Name          string         `json:"name"`
	Number        string         `json:"number"`
	Email         string         `json:"email"`
	ProfilePicURL string         `json:"profilePicUrl"`
	DisplayPic    string         `json:"displayPic"`
	Type          string         `json:"type,omitempty"`
	IsGroup       bool           `json:"isGroup"`
	ExtraInfo     []ExtraInfo    `json:"extraInfo"`
	SalesOpps     []SalesOpp     `json:"salesOpps"`
	AppraisalData *AppraisalData `json:"appraisalData,omitempty"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
}

// ExtraInfo is a free name/value pair on a contact. The name "location" holds
// coordinates shown on a map.
type ExtraInfo struct {
	ID    ID     `json:"id"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Sales opportunity closing statuses. Nil means open.
const (
	OppLost = 0
	OppWon  = 1
)

// SalesOpp is a sales opportunity of a contact.
type SalesOpp struct {
	ID            ID     `json:"id"`
	Name          string `json:"name"`
	Value         string `json:"value"`
	Stage         string `json:"stage"`
	ClosingStatus *int   `json:"closingStatus"` // nil open, 1 won, 0 lost
}

// AppraisalData sums a contact's satisfaction answers (spec section 9).
type AppraisalData struct {
	TotalSum   int `json:"totalsum"`
	TotalCount int `json:"totalcount"`
}

// Connection is one channel account: a WhatsApp number, a page, a bot, a web chat.
type Connection struct {
	ID              ID      `json:"id"`
	CompanyID       ID      `json:"companyId"`
	Name            string  `json:"name"`
	Number          string  `json:"number"`
	Status          string  `json:"status"`
	Channel         string  `json:"channel"`
	IsDefault       bool    `json:"isDefault"`
	OutChannel      bool    `json:"outChannel"`
	DailyMax        int     `json:"dailyMax"`
	GreetingMessage string  `json:"greetingMessage"`
	FarewellMessage string  `json:"farewellMessage"`
	GreetingMedia   string  `json:"greetingMediaUrl,omitempty"`
	FarewellMedia   string  `json:"farewellMediaUrl,omitempty"`
	Queues          []Queue `json:"queues"`
	QRCode          string  `json:"qrcode"`
	// Token is the public id a web chat widget embeds to reach this connection.
	Token     string    `json:"token,omitempty"`
	Retries   int       `json:"retries"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Profiles (spec section 6).
const (
	ProfileUser     = "user"
	ProfileUserPlus = "userplus"
	ProfileSuperv   = "superv"
	ProfileManager  = "manager"
	ProfileAdmin    = "admin"
	ProfileSuper    = "super"
)

// User is a member of staff. PasswordHash never leaves the server.
type User struct {
	ID           ID        `json:"id"`
	CompanyID    ID        `json:"companyId"`
	Name         string    `json:"name"`
	Email        string    `json:"email"`
	PasswordHash string    `json:"-"`
	Profile      string    `json:"profile"`
	Queues       []Queue   `json:"queues"`
	ConnectionID ID        `json:"whatsappId,omitempty"`
	TokenVersion int       `json:"-"` // bumped to revoke every session of the user
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// QueueIDs lists the ids of the user's queues.
func (u User) QueueIDs() []ID {
	ids := make([]ID, len(u.Queues))
	for i, q := range u.Queues {
		ids[i] = q.ID
	}
	return ids
}

// Queue groups tickets for a team. StartWork and EndWork are "HH:MM" or empty.
type Queue struct {
	ID                 ID     `json:"id"`
	CompanyID          ID     `json:"companyId,omitempty"`
	Name               string `json:"name"`
	Color              string `json:"color"`
	GreetingMessage    string `json:"greetingMessage"`
	StartWork          string `json:"startWork"`
	EndWork            string `json:"endWork"`
	AbsenceMessage     string `json:"absenceMessage"`
	NPS                bool   `json:"nps"`
	EncouragingMessage string `json:"encouragingMessage"`
	// RatingQuestion is the queue's own satisfaction question; empty sends the
	// default (QueueRatingQuestion).
	RatingQuestion string    `json:"ratingQuestion"`
	URL            string    `json:"url"`
	CreatedAt      time.Time `json:"createdAt,omitzero"`
	UpdatedAt      time.Time `json:"updatedAt,omitzero"`
}

// Tag labels tickets.
type Tag struct {
	ID        ID     `json:"id"`
	CompanyID ID     `json:"companyId,omitempty"`
	Name      string `json:"name"`
	Color     string `json:"color"`
}

// QuickAnswer is a canned reply chosen with '/shortcut' in the composer.
type QuickAnswer struct {
	ID        ID        `json:"id"`
	CompanyID ID        `json:"companyId"`
	Shortcut  string    `json:"shortcut"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Setting keys (spec section 2, Settings).
const (
	SettingSideMenu     = "sideMenu"     // "enabled" | "disabled"
	SettingUserCreation = "userCreation" // "enabled" | "disabled"
	SettingAcceptCalls  = "acceptCalls"  // "enabled" | "disabled"
	SettingTimeZone     = "timeZone"     // an IANA zone name; TenantTimeZone by default
)

// Setting is one tenant-wide key/value.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// HistoryEntry is one line of a ticket's audit history (spec section 3), built from
// the ticket's events.
type HistoryEntry struct {
	ID           ID        `json:"id"`
	CreatedAt    time.Time `json:"createdAt"`
	OldUserName  string    `json:"oldusername"`
	NewUserName  string    `json:"newusername"`
	Action       string    `json:"action"`
	OldQueueName string    `json:"oldqueuename"`
	NewQueueName string    `json:"newqueuename"`
}
