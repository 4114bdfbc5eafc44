package telegram

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/channeltest"
	"atende/transport/ingest"
)

// TestWebhookShedsLoadWith503RetryAfter: Telegram's web-hook delivering to a node
// whose admission control has no place left is answered 503 ERR_UNAVAILABLE with
// Retry-After (Telegram delivers a refused update again), as is one whose connection
// actor did not answer in time; once a place is free, the same update is taken, and
// stored once.
func TestWebhookShedsLoadWith503RetryAfter(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, _ := r.create()
	ctx := context.Background()
	cred, _ := r.Creds.Get(ctx, conn.ID)
	lim := r.Admit(ingest.Config{MaxInFlight: 1, MaxQueued: -1, RetryAfter: 3 * time.Second})
	post := func(body string) (int, string, string) {
		t.Helper()
		a := channeltest.PostAnswer(t, r.Srv.URL+"/telegram/webhook/"+itoa(conn.ID), []byte(body),
			"X-Telegram-Bot-Api-Secret-Token", cred.Secret)
		return a.Status, a.RetryAfter, a.Body
	}
	update := func(n int) string {
		return `{"update_id":` + strconv.Itoa(n) + `,` + strings.Replace(textUpdate[1:], `"message_id":11`, `"message_id":`+strconv.Itoa(100+n), 1)
	}

	// Every place taken (by a message of another connection): refused at once.
	release, err := lim.Enter(ctx, conn.ID+1)
	if err != nil {
		t.Fatal(err)
	}
	status, retry, body := post(update(1))
	if status != http.StatusServiceUnavailable || retry != "3" || body != `{"error":"ERR_UNAVAILABLE","retryAfter":3}` {
		t.Fatalf("over the limit: %d Retry-After %q %s", status, retry, body)
	}
	if _, _, stored := r.Actors.For(conn.ID).Snapshot(); stored != 0 {
		t.Fatalf("a refused update reached the actor (%d stored)", stored)
	}
	release()

	// A place, but the actor's answer timed out: the same retryable answer.
	sink := r.Actors.For(conn.ID)
	sink.Mu.Lock()
	sink.FailN, sink.FailWith = 1, engine.Wrap(engine.ErrUnavailable, errors.New("connection actor: future: timeout"))
	sink.Mu.Unlock()
	if status, retry, _ := post(update(1)); status != http.StatusServiceUnavailable || retry != "3" {
		t.Fatalf("actor timed out: %d Retry-After %q", status, retry)
	}

	// Telegram delivers it again, and again after a lost answer: stored once.
	for range 2 {
		if status, retry, body := post(update(1)); status != http.StatusOK || retry != "" {
			t.Fatalf("re-delivery: %d Retry-After %q %s", status, retry, body)
		}
	}
	if _, _, stored := sink.Snapshot(); stored != 1 {
		t.Fatalf("stored %d times", stored)
	}
	s := lim.Stats()
	if s.InFlight != 0 || s.RefusedBusy != 1 || s.Stalled != 1 {
		t.Fatalf("limiter stats %+v", s)
	}
	if !strings.Contains(r.Logs.String(), "inbound overload (busy)") {
		t.Fatalf("refusal not logged as overload: %s", r.Logs.String())
	}
}
