package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"atende/engine"
	"atende/transport/channel/cloud"
)

// Channel is one "facebook" or "instagram" connection. The Messenger Platform has no
// session: Start reads the credentials and reports CONNECTED; inbound arrives through
// the Service's web-hook. Send is safe for concurrent use.
type Channel struct {
	// static after construction
	svc  *Service
	conn engine.Connection

	session Session // the page token while started
}

var _ engine.Channel = (*Channel)(nil)

// Start implements engine.Channel.
func (c *Channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	if err := c.session.Open(ctx, c.svc.deps.Credentials, c.conn); err != nil {
		return err
	}
	return sink.Status(ctx, engine.StatusChange{Status: engine.ConnConnected})
}

// Stop implements engine.Channel.
func (c *Channel) Stop(context.Context) error {
	c.session.Close()
	return nil
}

// sender is the page that sends: the page itself, or the page an Instagram account
// is linked to.
func (c *Channel) sender() (string, string, error) {
	cred, err := c.session.Credentials(c.conn)
	if err != nil {
		return "", "", err
	}
	if cred.Provider == engine.ProviderInstagram {
		return cred.AccountID, cred.Token, nil
	}
	return cred.ExternalID, cred.Token, nil
}

var attachmentTypes = map[string]string{
	engine.MediaImage: "image", engine.MediaAudio: "audio", engine.MediaVideo: "video", engine.MediaDocument: "file",
}

// Send implements engine.Channel with the Send API: POST /{page-id}/messages with
// recipient, messaging_type RESPONSE and a text or an uploaded attachment (multipart
// filedata). It answers the message_id.
func (c *Channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	pageID, token, err := c.sender()
	if err != nil {
		return "", err
	}
	to := strings.TrimPrefix(strings.TrimPrefix(m.To, PrefixFacebook), PrefixInstagram)
	if to == "" {
		return "", engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("meta: empty recipient"))
	}
	recipient := map[string]string{"id": to}
	var ans struct {
		RecipientID string `json:"recipient_id"`
		MessageID   string `json:"message_id"`
	}
	if m.MediaType == "" {
		err = c.svc.graph.SendJSON(ctx, "/"+pageID+"/messages", token,
			map[string]any{"recipient": recipient, "messaging_type": "RESPONSE", "message": map[string]string{"text": m.Body}}, &ans)
	} else {
		typ, ok := attachmentTypes[m.MediaType]
		if !ok {
			return "", engine.Wrap(engine.ErrChannelRefused, fmt.Errorf("meta: media type %q", m.MediaType))
		}
		f, info, oerr := cloud.OpenMedia(ctx, c.svc.deps.Media, c.conn.CompanyID, m.MediaPath, "meta")
		if oerr != nil {
			return "", oerr
		}
		defer f.Close()
		rcpt, _ := json.Marshal(recipient)
		msg, _ := json.Marshal(map[string]any{"attachment": map[string]any{"type": typ, "payload": map[string]bool{"is_reusable": false}}})
		name := m.MediaName
		if name == "" {
			name = info.Name
		}
		err = c.svc.graph.SendMultipart(ctx, "/"+pageID+"/messages", token,
			map[string]string{"recipient": string(rcpt), "messaging_type": "RESPONSE", "message": string(msg)},
			"filedata", name, info.MIME, f, &ans)
		if err == nil && m.Body != "" {
			// A caption travels as a second message; the attachment's id is the answer.
			var cap struct {
				MessageID string `json:"message_id"`
			}
			if cerr := c.svc.graph.SendJSON(ctx, "/"+pageID+"/messages", token,
				map[string]any{"recipient": recipient, "messaging_type": "RESPONSE", "message": map[string]string{"text": m.Body}}, &cap); cerr != nil {
				c.svc.log.Warn().Err(cerr).Int64("conn_id", c.conn.ID).Msg("caption not sent")
			}
		}
	}
	if err == nil && ans.MessageID == "" {
		err = &OutcomeUnknownError{Err: errors.New("answer without message_id")}
	}
	if err != nil {
		if IsOutcomeUnknown(err) {
			// The Send API takes no idempotency key: a retry could deliver it twice.
			c.svc.log.Error().Err(err).Int64("conn_id", c.conn.ID).
				Msg("meta send outcome unknown: not retried, it could reach the customer twice")
		}
		return "", Classify("meta send", err)
	}
	return ans.MessageID, nil
}

// WipeCredentials implements engine.CredentialWiper (DELETE /whatsappcreds): the page
// token is forgotten; POST /facebook restores it.
func (c *Channel) WipeCredentials(ctx context.Context) error {
	c.session.Close()
	return c.svc.deps.Credentials.Delete(ctx, c.conn.ID)
}
