package waba

import (
	"context"
	"errors"
	"fmt"

	"atende/engine"
	"atende/transport/channel/cloud"
	"atende/transport/channel/meta"
)

// Channel is one "waba" connection. The Cloud API has no session: Start reads the
// credentials and reports CONNECTED; inbound arrives through the Service's web-hook on
// any node. Send is safe for concurrent use.
type Channel struct {
	// static after construction
	svc  *Service
	conn engine.Connection

	session meta.Session // the token while started
}

var _ engine.Channel = (*Channel)(nil)

// Start implements engine.Channel.
func (c *Channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	if err := c.session.Open(ctx, c.svc.deps.Credentials, c.conn); err != nil {
		return err
	}
	return sink.Status(ctx, engine.StatusChange{Status: engine.ConnConnected, Number: c.conn.Number})
}

// Stop implements engine.Channel.
func (c *Channel) Stop(context.Context) error {
	c.session.Close()
	return nil
}

func (c *Channel) credentials() (engine.ChannelCredentials, error) {
	return c.session.Credentials(c.conn)
}

// sendAnswer is the Cloud API's answer to POST /{phone-number-id}/messages.
type sendAnswer struct {
	Messages []struct {
		ID string `json:"id"`
	} `json:"messages"`
}

// Send implements engine.Channel: text, or media uploaded first (POST
// /{phone-number-id}/media) and sent by id, replying to QuotedProviderID.
func (c *Channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	cred, err := c.credentials()
	if err != nil {
		return "", err
	}
	req := map[string]any{"messaging_product": "whatsapp", "recipient_type": "individual", "to": m.To}
	if m.QuotedProviderID != "" {
		req["context"] = map[string]string{"message_id": m.QuotedProviderID}
	}
	switch m.MediaType {
	case "":
		req["type"] = "text"
		req["text"] = map[string]any{"body": m.Body, "preview_url": false}
	case engine.MediaImage, engine.MediaAudio, engine.MediaVideo, engine.MediaDocument:
		id, err := c.upload(ctx, cred, m)
		if err != nil {
			return "", err
		}
		obj := map[string]string{"id": id}
		if m.Body != "" && m.MediaType != engine.MediaAudio {
			obj["caption"] = m.Body
		}
		if m.MediaType == engine.MediaDocument && m.MediaName != "" {
			obj["filename"] = m.MediaName
		}
		req["type"] = m.MediaType
		req[m.MediaType] = obj
	default:
		return "", engine.Wrap(engine.ErrChannelRefused, fmt.Errorf("waba: media type %q", m.MediaType))
	}
	return c.svc.send(ctx, cred, req)
}

// send posts one message. The Cloud API takes no idempotency key: a failure after the
// request was written (or a 2xx without a message id) may hide an accepted message,
// so it is ERR_SENDING_WAPP_MSG and not retried (meta.OutcomeUnknownError), and
// logged; failures that prove the message was not accepted stay temporary.
func (s *Service) send(ctx context.Context, cred engine.ChannelCredentials, req map[string]any) (string, error) {
	var ans sendAnswer
	err := s.graph.SendJSON(ctx, "/"+cred.ExternalID+"/messages", cred.Token, req, &ans)
	if err == nil && (len(ans.Messages) == 0 || ans.Messages[0].ID == "") {
		err = &meta.OutcomeUnknownError{Err: errors.New("answer without message id")}
	}
	if err != nil {
		if meta.IsOutcomeUnknown(err) {
			s.log.Error().Err(err).Int64("conn_id", cred.ConnectionID).Str("to", fmt.Sprint(req["to"])).
				Msg("waba send outcome unknown: not retried, it could reach the customer twice")
		}
		return "", meta.Classify("waba send", err)
	}
	return ans.Messages[0].ID, nil
}

func (c *Channel) upload(ctx context.Context, cred engine.ChannelCredentials, m engine.OutboundMessage) (string, error) {
	f, info, err := cloud.OpenMedia(ctx, c.svc.deps.Media, c.conn.CompanyID, m.MediaPath, "waba")
	if err != nil {
		return "", err
	}
	defer f.Close()
	name := m.MediaName
	if name == "" {
		name = info.Name
	}
	var ans struct {
		ID string `json:"id"`
	}
	err = c.svc.graph.Multipart(ctx, "/"+cred.ExternalID+"/media", cred.Token,
		map[string]string{"messaging_product": "whatsapp", "type": info.MIME}, "file", name, info.MIME, f, &ans)
	if err != nil {
		return "", meta.Classify("waba upload", err)
	}
	if ans.ID == "" {
		return "", fmt.Errorf("waba upload: answer without id: %w", engine.ErrChannelTemporary)
	}
	return ans.ID, nil
}

// WipeCredentials implements engine.CredentialWiper (DELETE /whatsappcreds): the
// token is forgotten; registering the number again (POST /wacloudapi) restores it.
func (c *Channel) WipeCredentials(ctx context.Context) error {
	c.session.Close()
	return c.svc.deps.Credentials.Delete(ctx, c.conn.ID)
}
