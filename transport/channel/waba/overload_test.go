package waba

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"atende/transport/channel/channeltest"
	"atende/transport/ingest"
)

// TestWebhookShedsLoadWith503RetryAfter: a Cloud API notification (two messages
// and a status) that reaches a node with no place left in its admission control is
// answered 503 ERR_UNAVAILABLE with Retry-After, and nothing of it is recorded;
// Meta delivers it again once the node has room, and it is recorded whole, each
// message once.
func TestWebhookShedsLoadWith503RetryAfter(t *testing.T) {
	r, logs := newRig(t)
	id := r.register()
	lim := r.Admit(ingest.Config{MaxInFlight: 1, MaxQueued: -1, RetryAfter: 4 * time.Second})
	body := notify(`[{"from":"5565988887777","id":"wamid.S1","timestamp":"1700000000","type":"text","text":{"body":"um"}},
		{"from":"5565988887777","id":"wamid.S2","timestamp":"1700000001","type":"text","text":{"body":"dois"}}]`,
		`[{"id":"wamid.O1","status":"read","timestamp":"1700000002","recipient_id":"5565988887777"}]`)
	post := func() (int, string, string) {
		t.Helper()
		a := channeltest.PostAnswer(t, r.Srv.URL+"/waba/webhook", []byte(body),
			"Content-Type", "application/json", "X-Hub-Signature-256", metaSign(body))
		return a.Status, a.RetryAfter, a.Body
	}

	release, err := lim.Enter(context.Background(), id+1) // another connection holds the node's one place
	if err != nil {
		t.Fatal(err)
	}
	status, retry, answer := post()
	if status != http.StatusServiceUnavailable || retry != "4" || answer != `{"error":"ERR_UNAVAILABLE","retryAfter":4}` {
		t.Fatalf("over the limit: %d Retry-After %q %s", status, retry, answer)
	}
	sink := r.Actors.For(id)
	if in, rc, _ := sink.Snapshot(); len(in) != 0 || len(rc) != 0 {
		t.Fatalf("a refused notification was recorded: %+v %+v", in, rc)
	}
	release()

	if status, retry, answer := post(); status != http.StatusOK || retry != "" {
		t.Fatalf("re-delivery: %d Retry-After %q %s", status, retry, answer)
	}
	in, rc, stored := sink.Snapshot()
	if stored != 2 || len(in) != 2 || in[0].ProviderID != "wamid.S1" || in[1].ProviderID != "wamid.S2" || len(rc) != 1 {
		t.Fatalf("recorded %+v, receipts %+v, stored %d", in, rc, stored)
	}
	if s := lim.Stats(); s.InFlight != 0 || s.RefusedBusy != 1 || s.Admitted != 4 {
		t.Fatalf("limiter stats %+v", s)
	}
	if !strings.Contains(logs.String(), "inbound overload (busy)") {
		t.Fatalf("refusal not logged as overload: %s", logs.String())
	}
}
