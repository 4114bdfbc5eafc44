package telegram

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// update is the Bot API's Update, with the fields the adapter reads.
type update struct {
	UpdateID int64    `json:"update_id"`
	Message  *message `json:"message"`
}

type chat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"` // private, group, supergroup, channel
	Title     string `json:"title"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

type file struct {
	FileID   string `json:"file_id"`
	FileName string `json:"file_name"`
	MimeType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
}

type message struct {
	MessageID      int64    `json:"message_id"`
	From           *user    `json:"from"`
	Chat           chat     `json:"chat"`
	Date           int64    `json:"date"`
	Text           string   `json:"text"`
	Caption        string   `json:"caption"`
	Photo          []file   `json:"photo"`
	Audio          *file    `json:"audio"`
	Voice          *file    `json:"voice"`
	Video          *file    `json:"video"`
	VideoNote      *file    `json:"video_note"`
	Document       *file    `json:"document"`
	Sticker        *file    `json:"sticker"`
	ReplyToMessage *message `json:"reply_to_message"`
}

// parseUpdate decodes one web-hook body.
func parseUpdate(body []byte) (*update, error) {
	var u update
	if err := json.Unmarshal(body, &u); err != nil {
		return nil, fmt.Errorf("telegram: decode update: %w", err)
	}
	return &u, nil
}

// providerID names a message uniquely for one bot: message ids are per chat.
func providerID(chatID, messageID int64) string {
	return strconv.FormatInt(chatID, 10) + ":" + strconv.FormatInt(messageID, 10)
}

// contactPrefix keeps Telegram chat ids apart from phone numbers in contacts.
const contactPrefix = "tg:"

// chatOf reads the chat id of a contact number ("tg:<id>").
func chatOf(number string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(number, contactPrefix), 10, 64)
	return n, err == nil && n != 0
}

// messageOf reads the message id of a provider id ("<chat>:<message>").
func messageOf(pid string) (int64, bool) {
	_, m, ok := strings.Cut(pid, ":")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(m, 10, 64)
	return n, err == nil && n > 0
}

// inboundOf translates a message; media is the file to fetch (nil for text). ok is
// false for what the adapter does not record (no message, no chat, channel posts,
// messages of bots).
func inboundOf(m *message) (in engine.InboundMessage, media *file, ok bool) {
	if m == nil || m.Chat.ID == 0 || m.MessageID <= 0 || m.Chat.Type == "channel" || m.From != nil && m.From.IsBot {
		return in, nil, false
	}
	in.ProviderID = providerID(m.Chat.ID, m.MessageID)
	in.At = time.Unix(m.Date, 0).UTC()
	name := strings.TrimSpace(m.Chat.FirstName + " " + m.Chat.LastName)
	if m.Chat.Title != "" {
		name = m.Chat.Title
	}
	if name == "" {
		name = m.Chat.Username
	}
	in.From = engine.ChannelContact{Number: contactPrefix + strconv.FormatInt(m.Chat.ID, 10), Name: name,
		IsGroup: m.Chat.Type == "group" || m.Chat.Type == "supergroup"}
	if m.ReplyToMessage != nil && m.ReplyToMessage.MessageID > 0 {
		in.QuotedProviderID = providerID(m.Chat.ID, m.ReplyToMessage.MessageID)
	}
	in.Body = m.Text
	switch {
	case len(m.Photo) > 0:
		media, in.MediaType = &m.Photo[len(m.Photo)-1], engine.MediaImage // the largest size
	case m.Voice != nil:
		media, in.MediaType = m.Voice, engine.MediaAudio
	case m.Audio != nil:
		media, in.MediaType = m.Audio, engine.MediaAudio
	case m.Video != nil:
		media, in.MediaType = m.Video, engine.MediaVideo
	case m.VideoNote != nil:
		media, in.MediaType = m.VideoNote, engine.MediaVideo
	case m.Document != nil:
		media, in.MediaType = m.Document, engine.MediaDocument
	case m.Sticker != nil:
		media, in.MediaType = m.Sticker, engine.MediaImage
	}
	if media != nil {
		if media.FileID == "" {
			media, in.MediaType = nil, ""
		} else {
			in.Body, in.MediaName = m.Caption, media.FileName
		}
	}
	if in.Body == "" && media == nil {
		in.Body = "[unsupported message]"
	}
	return in, media, true
}
