package telegram

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/telegram/botfake"
)

// The Bot API takes no idempotency key: a send whose request reached it and whose
// answer was lost is not temporary (never retried, never twice in the chat) but
// ERR_CHANNEL_OUTCOME_UNKNOWN, logged. Answers that say the message was not sent stay
// temporary.
func TestSendOutcomeUnknownIsNotRetried(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, ch := r.create()
	if err := ch.Start(context.Background(), r.Actors.Sink(conn.ID)); err != nil {
		t.Fatal(err)
	}
	msg := engine.OutboundMessage{MessageID: 3, To: "tg:424242", Body: "uma vez só"}
	send := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := ch.Send(ctx, msg)
		return err
	}
	for _, f := range []botfake.Failure{
		{Hang: true},
		{Code: 504, Raw: "<html>504 Gateway Time-out</html>"},
		{Code: 502, Raw: "<html>502 Bad Gateway</html>"},
		{Code: 200, Raw: "<html>ok</html>"},
		{Code: 200, Raw: `{"ok":true,"result":{"date":1700000000}}`},
	} {
		before := len(r.bot.Calls("sendMessage"))
		r.bot.Fail("sendMessage", f)
		err := send(300 * time.Millisecond)
		if err == nil || errors.Is(err, engine.ErrChannelTemporary) || engine.CodeOf(err) != errOutcomeUnknown {
			t.Fatalf("%+v: want a non-temporary %s, got %v", f, errOutcomeUnknown, err)
		}
		if n := len(r.bot.Calls("sendMessage")) - before; n != 1 {
			t.Fatalf("%+v: %d calls, want 1", f, n)
		}
	}
	if !strings.Contains(r.Logs.String(), "telegram send outcome unknown") {
		t.Fatalf("not logged: %s", r.Logs.String())
	}
	for _, f := range []botfake.Failure{
		{Code: 429, Desc: "Too Many Requests: retry after 3", RetryAfter: 3},
		{Code: 502, Desc: "Bad Gateway"}, // the Bot API's own JSON: it says so
		{Code: 503, Raw: "Service Unavailable"},
	} {
		r.bot.Fail("sendMessage", f)
		if err := send(5 * time.Second); !errors.Is(err, engine.ErrChannelTemporary) {
			t.Fatalf("%+v: want temporary, got %v", f, err)
		}
	}
	if err := send(0); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("expired context: want temporary, got %v", err)
	}
	// Calls that send nothing (getMe, getUpdates…) keep the plain classification.
	r.bot.Fail("getMe", botfake.Failure{Code: 504, Raw: "gateway"})
	if _, err := r.svc.client(botToken).getMe(context.Background()); err == nil || isOutcomeUnknown(err) {
		t.Fatalf("getMe through a gateway timeout: %v", err)
	}
}
