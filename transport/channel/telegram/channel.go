package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/cloud"
)

// Channel is one "telegram" connection, owned by its connection actor. In polling
// mode Start runs the only getUpdates loop of the bot in the whole cluster (the actor
// is unique); in web-hook mode Start registers the web-hook and inbound arrives on
// any node through Service's handler. Send is safe for concurrent use.
type Channel struct {
	// static after construction
	svc  *Service
	conn engine.Connection
	log  zerolog.Logger

	mu     sync.Mutex // guards the fields below
	cred   *engine.ChannelCredentials
	cancel context.CancelFunc // stops the poll loop
	done   chan struct{}      // closed when the poll loop returned
}

var _ engine.Channel = (*Channel)(nil)

// Start implements engine.Channel: it checks the token (getMe) and starts inbound.
func (c *Channel) Start(ctx context.Context, sink engine.ChannelSink) error {
	cred, err := c.svc.deps.Credentials.Get(ctx, c.conn.ID)
	if err != nil {
		return fmt.Errorf("telegram connection %d: %w", c.conn.ID, err)
	}
	cl := c.svc.client(cred.Token)
	me, err := cl.getMe(ctx)
	if err != nil {
		return classify("telegram getMe", err)
	}
	if c.svc.cfg.Mode == ModeWebhook {
		err = cl.call(ctx, "setWebhook", map[string]any{"url": c.svc.cfg.PublicURL + "/telegram/webhook/" + strconv.FormatInt(c.conn.ID, 10),
			"secret_token": cred.Secret, "allowed_updates": []string{"message"}}, nil)
	} else {
		// getUpdates is refused (409) while a web-hook is set.
		err = cl.call(ctx, "deleteWebhook", map[string]any{"drop_pending_updates": false}, nil)
	}
	if err != nil {
		return classify("telegram inbound setup", err)
	}
	c.mu.Lock()
	c.cred = &cred
	if c.svc.cfg.Mode == ModePolling && c.cancel == nil {
		if c.svc.root.Err() != nil {
			c.mu.Unlock()
			return errors.New("telegram: adapter closed")
		}
		pctx, cancel := context.WithCancel(c.svc.root)
		done := make(chan struct{})
		if !c.svc.loops.Go(func() {
			defer close(done)
			c.poll(pctx, cred, sink)
		}) {
			cancel()
			c.mu.Unlock()
			return errors.New("telegram: adapter closed")
		}
		c.cancel, c.done = cancel, done
	}
	c.mu.Unlock()
	return sink.Status(ctx, engine.StatusChange{Status: engine.ConnConnected, Number: "@" + me.Username})
}

// Stop implements engine.Channel: it ends the poll loop and waits for it.
func (c *Channel) Stop(context.Context) error {
	c.mu.Lock()
	cancel, done := c.cancel, c.done
	c.cancel, c.done, c.cred = nil, nil, nil
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if done != nil {
		<-done
	}
	return nil
}

// poll long-polls getUpdates. The offset moves past an update only once it is
// recorded, so a failed record is fetched again (and de-duplicated downstream).
func (c *Channel) poll(ctx context.Context, cred engine.ChannelCredentials, sink engine.ChannelSink) {
	cl := c.svc.client(cred.Token)
	var offset int64
	for ctx.Err() == nil {
		var ups []json.RawMessage
		err := cl.call(ctx, "getUpdates", map[string]any{"offset": offset, "allowed_updates": []string{"message"},
			"timeout": int(c.svc.cfg.PollTimeout / time.Second)}, &ups)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			delay := c.svc.cfg.RetryDelay
			var ae *apiError
			if errors.As(err, &ae) {
				if ae.Parameters.RetryAfter > 0 {
					delay = time.Duration(ae.Parameters.RetryAfter) * time.Second
				}
				if ae.Code == http.StatusUnauthorized || ae.Code == http.StatusNotFound {
					c.log.Error().Err(err).Msg("bot token refused: polling stopped")
					_ = sink.Status(ctx, engine.StatusChange{Status: engine.ConnDisconnected, Reason: "ERR_CHANNEL_CREDENTIALS"})
					return
				}
			}
			c.log.Warn().Err(err).Dur("retry_in", delay).Msg("getUpdates failed")
			sleep(ctx, delay)
			continue
		}
		for _, raw := range ups {
			u, err := parseUpdate(raw)
			if err != nil {
				c.log.Warn().Err(err).Msg("update skipped")
				var probe struct {
					UpdateID int64 `json:"update_id"`
				}
				if json.Unmarshal(raw, &probe) == nil && probe.UpdateID >= offset {
					offset = probe.UpdateID + 1
				}
				continue
			}
			dctx, cancel := context.WithTimeout(ctx, c.svc.cfg.CallTimeout)
			err = c.svc.deliver(dctx, cred, sink, u)
			cancel()
			if err != nil {
				c.log.Warn().Err(err).Int64("update_id", u.UpdateID).Msg("update not recorded: fetching it again")
				sleep(ctx, c.svc.cfg.RetryDelay)
				break
			}
			offset = u.UpdateID + 1
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (c *Channel) credentials() (engine.ChannelCredentials, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cred == nil {
		return engine.ChannelCredentials{}, fmt.Errorf("telegram connection %d not started: %w", c.conn.ID, engine.ErrChannelTemporary)
	}
	return *c.cred, nil
}

// mediaMethods maps a media type to the Bot API method and its file field.
var mediaMethods = map[string][2]string{
	engine.MediaImage:    {"sendPhoto", "photo"},
	engine.MediaAudio:    {"sendAudio", "audio"},
	engine.MediaVideo:    {"sendVideo", "video"},
	engine.MediaDocument: {"sendDocument", "document"},
}

// Send implements engine.Channel: sendMessage for text, sendPhoto/sendAudio/
// sendVideo/sendDocument (multipart) for media, replying with reply_parameters.
func (c *Channel) Send(ctx context.Context, m engine.OutboundMessage) (string, error) {
	cred, err := c.credentials()
	if err != nil {
		return "", err
	}
	chatID, ok := chatOf(m.To)
	if !ok {
		return "", engine.Wrap(engine.ErrWappInvalidContact, fmt.Errorf("telegram: %q is not a chat", m.To))
	}
	var reply map[string]any
	if mid, ok := messageOf(m.QuotedProviderID); ok {
		reply = map[string]any{"message_id": mid, "allow_sending_without_reply": true}
	}
	cl := c.svc.client(cred.Token)
	var sent message
	if m.MediaType == "" {
		req := map[string]any{"chat_id": chatID, "text": m.Body}
		if reply != nil {
			req["reply_parameters"] = reply
		}
		err = cl.send(ctx, "sendMessage", req, &sent)
	} else {
		mm, ok := mediaMethods[m.MediaType]
		if !ok {
			return "", engine.Wrap(engine.ErrChannelRefused, fmt.Errorf("telegram: media type %q", m.MediaType))
		}
		f, info, oerr := cloud.OpenMedia(ctx, c.svc.deps.Media, c.conn.CompanyID, m.MediaPath, "telegram")
		if oerr != nil {
			return "", oerr
		}
		defer f.Close()
		fields := map[string]string{"chat_id": strconv.FormatInt(chatID, 10)}
		if m.Body != "" {
			fields["caption"] = m.Body
		}
		if reply != nil {
			b, _ := json.Marshal(reply)
			fields["reply_parameters"] = string(b)
		}
		name := m.MediaName
		if name == "" {
			name = info.Name
		}
		err = cl.upload(ctx, mm[0], fields, mm[1], name, f, &sent)
	}
	if err == nil && sent.MessageID == 0 {
		err = &outcomeUnknownError{Err: errors.New("answer without message id")}
	}
	if err != nil {
		if isOutcomeUnknown(err) {
			// The Bot API takes no idempotency key: a retry could deliver it twice.
			c.log.Error().Err(err).Int64("chat_id", chatID).Msg("telegram send outcome unknown: not retried, it could reach the customer twice")
		}
		return "", classify("telegram send", err)
	}
	return providerID(chatID, sent.MessageID), nil
}

// WipeCredentials implements engine.CredentialWiper (DELETE /whatsappcreds): the web-
// hook is removed (best effort) and the bot token forgotten; POST /telegram with the
// token restores it. Called while the channel is stopped.
func (c *Channel) WipeCredentials(ctx context.Context) error {
	if cred, err := c.svc.deps.Credentials.Get(ctx, c.conn.ID); err == nil {
		if err := c.svc.client(cred.Token).call(ctx, "deleteWebhook", map[string]any{}, nil); err != nil {
			c.log.Warn().Err(err).Msg("deleteWebhook while wiping credentials")
		}
	}
	return c.svc.deps.Credentials.Delete(ctx, c.conn.ID)
}
