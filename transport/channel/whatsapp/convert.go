package whatsapp

import (
	"strings"
	"time"
	"unicode/utf8"

	"go.mau.fi/whatsmeow"
	"go.mau.fi/whatsmeow/proto/waE2E"
	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"atende/engine"
)

// Limits on what an inbound message may carry into the engine.
const (
	// MaxBodyBytes caps a message body or caption (WhatsApp itself stops at 65,536
	// characters); longer bodies are cut at a rune boundary.
	MaxBodyBytes = 64 << 10
	// maxIDBytes caps provider ids (WhatsApp's are 16–32 characters).
	maxIDBytes = 128
	// maxNameBytes caps a push name.
	maxNameBytes = 256
)

// inKind says what a WhatsApp message means for the engine.
type inKind int

const (
	inSkip    inKind = iota // nothing to record (status broadcasts, reactions, unknown types)
	inMessage               // a message to record (text or media)
	inRevoke                // the sender deleted one of their messages (revokedID)
)

// inbound is a message converted from events.Message; media (when set) still has to be
// downloaded and stored before msg goes to the sink.
type inbound struct {
	kind      inKind
	msg       engine.InboundMessage
	media     whatsmeow.DownloadableMessage
	mime      string
	size      uint64
	revokedID string
}

// convertMessage translates a whatsmeow message event. It never panics on missing
// parts: an event without an id, a chat or content is skipped.
func convertMessage(e *events.Message) inbound {
	if e == nil || e.Message == nil {
		return inbound{}
	}
	info := e.Info
	id := string(info.ID)
	if id == "" || len(id) > maxIDBytes || !utf8.ValidString(id) {
		return inbound{}
	}
	if info.Chat.IsEmpty() || info.Chat.IsBroadcastList() || info.Chat.Server == types.NewsletterServer {
		return inbound{}
	}
	number := contactNumber(info.MessageSource)
	if number == "" {
		return inbound{}
	}
	m := e.Message
	if pm := m.GetProtocolMessage(); pm != nil {
		rid := pm.GetKey().GetID()
		if pm.GetType() != waE2E.ProtocolMessage_REVOKE || rid == "" || len(rid) > maxIDBytes || !utf8.ValidString(rid) {
			return inbound{}
		}
		// The sender deleted their message for everyone: the engine marks it deleted
		// (RevokeMessage); FromMe is a deletion made on the connection's own phone.
		at := info.Timestamp
		if at.IsZero() {
			at = time.Now()
		}
		return inbound{kind: inRevoke, revokedID: rid, msg: engine.InboundMessage{
			ProviderID: id, RevokedProviderID: rid, FromMe: info.IsFromMe, At: at,
			From: engine.ChannelContact{Number: number, IsGroup: info.IsGroup},
		}}
	}
	out := inbound{kind: inMessage, msg: engine.InboundMessage{
		ProviderID: id,
		FromMe:     info.IsFromMe,
		At:         info.Timestamp,
		From: engine.ChannelContact{
			Number:  number,
			IsGroup: info.IsGroup,
		},
	}}
	if out.msg.At.IsZero() {
		out.msg.At = time.Now()
	}
	// The push name is the sender's: it names a one-to-one contact, never a group,
	// and an echo of our own message carries our name, not the customer's.
	if !info.IsGroup && !info.IsFromMe {
		out.msg.From.Name = clip(info.PushName, maxNameBytes)
	}
	var ctxInfo *waE2E.ContextInfo
	switch {
	case m.Conversation != nil:
		out.msg.Body = m.GetConversation()
	case m.ExtendedTextMessage != nil:
		out.msg.Body = m.GetExtendedTextMessage().GetText()
		ctxInfo = m.GetExtendedTextMessage().GetContextInfo()
	case m.ImageMessage != nil:
		im := m.GetImageMessage()
		out.msg.MediaType, out.media, out.mime, out.size = engine.MediaImage, im, im.GetMimetype(), im.GetFileLength()
		out.msg.Body, ctxInfo = im.GetCaption(), im.GetContextInfo()
	case m.AudioMessage != nil:
		am := m.GetAudioMessage()
		out.msg.MediaType, out.media, out.mime, out.size = engine.MediaAudio, am, am.GetMimetype(), am.GetFileLength()
		ctxInfo = am.GetContextInfo()
	case m.VideoMessage != nil:
		vm := m.GetVideoMessage()
		out.msg.MediaType, out.media, out.mime, out.size = engine.MediaVideo, vm, vm.GetMimetype(), vm.GetFileLength()
		out.msg.Body, ctxInfo = vm.GetCaption(), vm.GetContextInfo()
	case m.DocumentMessage != nil:
		dm := m.GetDocumentMessage()
		out.msg.MediaType, out.media, out.mime, out.size = engine.MediaDocument, dm, dm.GetMimetype(), dm.GetFileLength()
		out.msg.Body, ctxInfo = dm.GetCaption(), dm.GetContextInfo()
		out.msg.MediaName = clip(dm.GetFileName(), maxNameBytes)
	case m.GetDocumentWithCaptionMessage().GetMessage().GetDocumentMessage() != nil:
		dm := m.GetDocumentWithCaptionMessage().GetMessage().GetDocumentMessage()
		out.msg.MediaType, out.media, out.mime, out.size = engine.MediaDocument, dm, dm.GetMimetype(), dm.GetFileLength()
		out.msg.Body, ctxInfo = dm.GetCaption(), dm.GetContextInfo()
		out.msg.MediaName = clip(dm.GetFileName(), maxNameBytes)
	default:
		return inbound{} // reactions, stickers, polls, locations, contacts…: not in the product
	}
	out.msg.Body = clip(out.msg.Body, MaxBodyBytes)
	if q := ctxInfo.GetStanzaID(); q != "" {
		out.msg.QuotedProviderID = clip(q, maxIDBytes)
	}
	if out.media != nil && (out.media.GetDirectPath() == "" || len(out.media.GetMediaKey()) == 0) {
		// Nothing to download: the message keeps its caption only.
		out.media, out.msg.MediaType, out.msg.MediaName = nil, "", ""
	}
	if out.msg.MediaType == "" && strings.TrimSpace(out.msg.Body) == "" {
		return inbound{}
	}
	return out
}

// contactNumber is the customer side of a conversation: the group's id for groups,
// otherwise the phone number, preferring the phone-number form over a LID (hidden
// user id) when WhatsApp sent both.
func contactNumber(src types.MessageSource) string {
	chat := src.Chat
	if src.IsGroup {
		if chat.Server != types.GroupServer {
			return ""
		}
		return clip(chat.User, maxIDBytes)
	}
	if chat.Server == types.HiddenUserServer {
		alt := src.SenderAlt
		if src.IsFromMe {
			alt = src.RecipientAlt
		}
		if alt.Server == types.DefaultUserServer && alt.User != "" {
			return clip(alt.User, maxIDBytes)
		}
	}
	if chat.Server != types.DefaultUserServer && chat.Server != types.HiddenUserServer {
		return ""
	}
	return clip(chat.User, maxIDBytes)
}

// receiptAck maps a receipt type to the ack of spec section 3 (1 sent, 3 read, 4
// played); 0 means the receipt carries nothing for the engine. WhatsApp's "delivered"
// has no value of its own (there is no 2): it confirms at least "sent".
func receiptAck(t types.ReceiptType) int {
	switch t {
	case types.ReceiptTypeDelivered, types.ReceiptTypeSender:
		return engine.AckSent
	case types.ReceiptTypeRead:
		return engine.AckRead
	case types.ReceiptTypePlayed:
		return engine.AckPlayed
	}
	return 0
}

// convertReceipt lists the receipts an events.Receipt carries for our messages.
// Receipts our own other devices send (read-self, played-self, echoes) are skipped.
func convertReceipt(e *events.Receipt) []engine.Receipt {
	if e == nil || e.IsFromMe {
		return nil
	}
	ack := receiptAck(e.Type)
	if ack == 0 {
		return nil
	}
	out := make([]engine.Receipt, 0, len(e.MessageIDs))
	for _, id := range e.MessageIDs {
		if id == "" || len(id) > maxIDBytes || !utf8.ValidString(id) {
			continue
		}
		out = append(out, engine.Receipt{ProviderID: id, Ack: ack})
	}
	return out
}

// clip cuts s to at most n bytes of valid UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// jidFor is the WhatsApp address of a ChannelContact.Number: a phone number (at most
// 15 digits, E.164) or a group id (longer, or with the old "creator-timestamp" dash).
func jidFor(number string) (types.JID, bool) {
	if number == "" || len(number) > 64 {
		return types.EmptyJID, false
	}
	dash := false
	for i, r := range number {
		switch {
		case r >= '0' && r <= '9':
		case r == '-' && i > 0 && !dash:
			dash = true
		default:
			return types.EmptyJID, false
		}
	}
	if dash || len(number) > 15 {
		return types.NewJID(number, types.GroupServer), true
	}
	return types.NewJID(number, types.DefaultUserServer), true
}
