package waba

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"atende/engine"
)

// The WhatsApp Cloud API web-hook body (object "whatsapp_business_account", field
// "messages"): entry[].changes[].value holds the receiving number's metadata, the
// senders' profiles, the messages and the statuses of messages we sent.
type notification struct {
	Object string  `json:"object"`
	Entry  []entry `json:"entry"`
}

type entry struct {
	ID      string   `json:"id"` // the WhatsApp business account id
	Changes []change `json:"changes"`
}

type change struct {
	Field string `json:"field"`
	Value value  `json:"value"`
}

type value struct {
	MessagingProduct string `json:"messaging_product"`
	Metadata         struct {
		DisplayPhoneNumber string `json:"display_phone_number"`
		PhoneNumberID      string `json:"phone_number_id"`
	} `json:"metadata"`
	Contacts []struct {
		Profile struct {
			Name string `json:"name"`
		} `json:"profile"`
		WaID string `json:"wa_id"`
	} `json:"contacts"`
	Messages []message `json:"messages"`
	Statuses []status  `json:"statuses"`
}

type message struct {
	From      string `json:"from"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Text      *struct {
		Body string `json:"body"`
	} `json:"text"`
	Image    *mediaRef `json:"image"`
	Audio    *mediaRef `json:"audio"`
	Video    *mediaRef `json:"video"`
	Document *mediaRef `json:"document"`
	Sticker  *mediaRef `json:"sticker"`
	Button   *struct {
		Text    string `json:"text"`
		Payload string `json:"payload"`
	} `json:"button"`
	Interactive *struct {
		Type        string `json:"type"`
		ButtonReply *struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"button_reply"`
		ListReply *struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"list_reply"`
	} `json:"interactive"`
	Location *struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
		Name      string  `json:"name"`
		Address   string  `json:"address"`
	} `json:"location"`
	Reaction *struct {
		MessageID string `json:"message_id"`
		Emoji     string `json:"emoji"`
	} `json:"reaction"`
	Context *struct {
		From string `json:"from"`
		ID   string `json:"id"`
	} `json:"context"`
}

type mediaRef struct {
	ID       string `json:"id"`
	MimeType string `json:"mime_type"`
	SHA256   string `json:"sha256"`
	Caption  string `json:"caption"`
	Filename string `json:"filename"`
}

type status struct {
	ID          string `json:"id"`
	Status      string `json:"status"` // sent, delivered, read, failed
	Timestamp   string `json:"timestamp"`
	RecipientID string `json:"recipient_id"`
	Errors      []struct {
		Code  int    `json:"code"`
		Title string `json:"title"`
	} `json:"errors"`
}

// errNotWABA is a body that is JSON but not a WhatsApp Cloud API notification.
var errNotWABA = errors.New("waba: not a whatsapp_business_account notification")

// parseNotification decodes a web-hook body. Wrong types, truncated JSON and other
// objects are errors; unknown fields are ignored.
func parseNotification(body []byte) (*notification, error) {
	var n notification
	if err := json.Unmarshal(body, &n); err != nil {
		return nil, fmt.Errorf("waba: decode web-hook: %w", err)
	}
	if n.Object != "whatsapp_business_account" {
		return nil, errNotWABA
	}
	return &n, nil
}

// inbound is one parsed message, its media still to fetch.
type inbound struct {
	msg   engine.InboundMessage
	media *mediaRef // nil for text
}

// inbounds translates the messages of a change value. Messages without an id or a
// sender are skipped (a provider never sends them; a forger gains nothing).
func (v *value) inbounds() []inbound {
	names := map[string]string{}
	for _, c := range v.Contacts {
		names[c.WaID] = c.Profile.Name
	}
	var out []inbound
	for _, m := range v.Messages {
		if m.ID == "" || m.From == "" || len(m.ID) > 256 || len(m.From) > 64 {
			continue
		}
		in := engine.InboundMessage{ProviderID: m.ID, At: unix(m.Timestamp),
			From: engine.ChannelContact{Number: m.From, Name: names[m.From]}}
		if m.Context != nil {
			in.QuotedProviderID = m.Context.ID
		}
		var md *mediaRef
		switch m.Type {
		case "text":
			if m.Text != nil {
				in.Body = m.Text.Body
			}
		case "image":
			md, in.MediaType = m.Image, engine.MediaImage
		case "sticker":
			md, in.MediaType = m.Sticker, engine.MediaImage
		case "audio":
			md, in.MediaType = m.Audio, engine.MediaAudio
		case "video":
			md, in.MediaType = m.Video, engine.MediaVideo
		case "document":
			md, in.MediaType = m.Document, engine.MediaDocument
		case "button":
			if m.Button != nil {
				in.Body = m.Button.Text
			}
		case "interactive":
			if i := m.Interactive; i != nil && i.ButtonReply != nil {
				in.Body = i.ButtonReply.Title
			} else if i != nil && i.ListReply != nil {
				in.Body = i.ListReply.Title
			}
		case "location":
			if l := m.Location; l != nil {
				in.Body = strings.TrimSpace(strings.Join([]string{l.Name, l.Address,
					fmt.Sprintf("https://maps.google.com/?q=%.6f,%.6f", l.Latitude, l.Longitude)}, "\n"))
			}
		case "reaction":
			if r := m.Reaction; r != nil {
				in.Body, in.QuotedProviderID = r.Emoji, r.MessageID
			}
		}
		if in.Body == "" && in.MediaType == "" {
			in.Body = "[" + m.Type + "]"
		}
		if in.MediaType != "" {
			if md == nil || md.ID == "" {
				in.MediaType = ""
				md = nil
			} else {
				in.Body, in.MediaName = md.Caption, md.Filename
			}
		}
		out = append(out, inbound{msg: in, media: md})
	}
	return out
}

// ackOf maps a status to a receipt ack; ok false for failed and unknown statuses.
func ackOf(s string) (int, bool) {
	switch s {
	case "sent", "delivered":
		return engine.AckSent, true
	case "read":
		return engine.AckRead, true
	}
	return 0, false
}

func unix(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0).UTC()
}
