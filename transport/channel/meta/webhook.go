package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"atende/engine"
)

// The Messenger Platform web-hook body, for object "page" (Facebook) and "instagram":
// entry[].id is the page (or Instagram account) and entry[].messaging[] its events.
type pageNotification struct {
	Object string      `json:"object"`
	Entry  []pageEntry `json:"entry"`
}

type pageEntry struct {
	ID        string      `json:"id"`
	Time      int64       `json:"time"`
	Messaging []messaging `json:"messaging"`
}

type messaging struct {
	Sender    struct{ ID string } `json:"sender"`
	Recipient struct{ ID string } `json:"recipient"`
	Timestamp int64               `json:"timestamp"` // milliseconds
	Message   *pageMessage        `json:"message"`
	Delivery  *struct {
		Mids      []string `json:"mids"`
		Watermark int64    `json:"watermark"`
	} `json:"delivery"`
	Read *struct {
		Mid       string `json:"mid"` // Instagram names the message read
		Watermark int64  `json:"watermark"`
	} `json:"read"`
}

type pageMessage struct {
	Mid     string `json:"mid"`
	Text    string `json:"text"`
	IsEcho  bool   `json:"is_echo"`
	AppID   int64  `json:"app_id"`
	ReplyTo *struct {
		Mid string `json:"mid"`
	} `json:"reply_to"`
	Attachments []struct {
		Type    string `json:"type"` // image, audio, video, file, fallback, template…
		Payload struct {
			URL string `json:"url"`
		} `json:"payload"`
	} `json:"attachments"`
	IsDeleted bool `json:"is_deleted"`
}

var errNotPage = errors.New("meta: not a page or instagram notification")

// parsePageNotification decodes a web-hook body of object "page" or "instagram".
func parsePageNotification(body []byte) (*pageNotification, error) {
	var n pageNotification
	if err := json.Unmarshal(body, &n); err != nil {
		return nil, fmt.Errorf("meta: decode web-hook: %w", err)
	}
	if n.Object != "page" && n.Object != "instagram" {
		return nil, errNotPage
	}
	return &n, nil
}

// Contact number prefixes keep page-scoped ids apart from phone numbers.
const (
	PrefixFacebook  = "fb:"
	PrefixInstagram = "ig:"
)

// pageInbound is one message to record, with the attachment URL to fetch ("" for
// text).
type pageInbound struct {
	msg engine.InboundMessage
	url string
}

// inbounds translates a messaging event into messages: one per attachment (the
// first keeps the mid, the others get "<mid>/<n>"), or one text. Echoes (is_echo)
// are the page's own messages, FromMe, addressed to the recipient; those sent by
// ownApp (our Send API calls) are skipped, the send already recorded them.
func (m *messaging) inbounds(prefix string, ownApp int64) []pageInbound {
	msg := m.Message
	if msg == nil || msg.Mid == "" || len(msg.Mid) > 512 || msg.IsDeleted {
		return nil
	}
	customer := m.Sender.ID
	if msg.IsEcho {
		if ownApp != 0 && msg.AppID == ownApp {
			return nil
		}
		customer = m.Recipient.ID
	}
	if customer == "" || len(customer) > 128 {
		return nil
	}
	base := engine.InboundMessage{ProviderID: msg.Mid, FromMe: msg.IsEcho,
		From: engine.ChannelContact{Number: prefix + customer}}
	if m.Timestamp > 0 {
		base.At = time.UnixMilli(m.Timestamp).UTC()
	}
	if msg.ReplyTo != nil {
		base.QuotedProviderID = msg.ReplyTo.Mid
	}
	var out []pageInbound
	for i, a := range msg.Attachments {
		in := base
		if i > 0 {
			in.ProviderID = msg.Mid + "/" + strconv.Itoa(i)
		}
		switch a.Type {
		case "image":
			in.MediaType = engine.MediaImage
		case "audio":
			in.MediaType = engine.MediaAudio
		case "video":
			in.MediaType = engine.MediaVideo
		case "file":
			in.MediaType = engine.MediaDocument
		}
		if in.MediaType == "" || a.Payload.URL == "" {
			in.MediaType = ""
			in.Body = "[" + a.Type + "]"
			out = append(out, pageInbound{msg: in})
			continue
		}
		if i == 0 {
			in.Body = msg.Text
		}
		out = append(out, pageInbound{msg: in, url: a.Payload.URL})
	}
	if len(out) == 0 {
		base.Body = msg.Text
		if base.Body == "" {
			base.Body = "[unsupported message]"
		}
		out = append(out, pageInbound{msg: base})
	}
	return out
}
