package meta

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/meta/graphfake"
)

// The Send API takes no idempotency key: a text or attachment send whose request
// reached Meta and whose answer was lost is ErrOutcomeUnknown, not temporary (the
// connection actor does not retry it), and logged; answers that say the message was
// not accepted stay temporary.
func TestSendOutcomeUnknownIsNotRetried(t *testing.T) {
	r := newRig(t)
	fb, _ := r.connect()
	ctx := context.Background()
	conn, _ := r.Conns.Get(ctx, 1, fb)
	ch, _ := r.svc.NewChannel(conn)
	if err := ch.Start(ctx, &recSink{}); err != nil {
		t.Fatal(err)
	}
	route := "POST /" + pageID + "/messages"
	file, err := r.Media.Save(ctx, 1, strings.NewReader(string(pngBytes)), "a.png", "image/png")
	if err != nil {
		t.Fatal(err)
	}
	text := engine.OutboundMessage{MessageID: 1, To: "fb:24000000000001", Body: "uma vez só"}
	image := engine.OutboundMessage{MessageID: 2, To: "fb:24000000000001", MediaType: engine.MediaImage, MediaPath: file.Path}
	send := func(m engine.OutboundMessage, timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := ch.Send(ctx, m)
		return err
	}
	for _, m := range []engine.OutboundMessage{text, image} {
		for _, f := range []graphfake.Failure{
			{Hang: true},
			{Status: 504, Raw: "<html>504</html>"},
			{Status: 200, Raw: `{"recipient_id":"24000000000001"}`},
		} {
			before := len(r.graph.Requests(route))
			r.graph.Fail(route, f)
			err := send(m, 300*time.Millisecond)
			if err == nil || errors.Is(err, engine.ErrChannelTemporary) || engine.CodeOf(err) != ErrOutcomeUnknown {
				t.Fatalf("%s %+v: want a non-temporary %s, got %v", m.MediaType, f, ErrOutcomeUnknown, err)
			}
			if n := len(r.graph.Requests(route)) - before; n != 1 {
				t.Fatalf("%s %+v: %d requests, want 1", m.MediaType, f, n)
			}
		}
	}
	if !strings.Contains(r.Logs.String(), "meta send outcome unknown") {
		t.Fatalf("not logged: %s", r.Logs.String())
	}
	for _, f := range []graphfake.Failure{
		{Status: 500, Code: 2, Message: "Service temporarily unavailable"},
		{Status: 400, Code: 613, Message: "Calls to this api have exceeded the rate limit."},
	} {
		r.graph.Fail(route, f)
		if err := send(text, 5*time.Second); !errors.Is(err, engine.ErrChannelTemporary) {
			t.Fatalf("%+v: want temporary, got %v", f, err)
		}
	}
	// Reads are not sends: a gateway timeout on a profile lookup is plain temporary.
	r.graph.Fail("GET /24000000000009", graphfake.Failure{Status: 504, Raw: "gateway"})
	var ans map[string]any
	err = r.svc.graph.JSON(ctx, "GET", "/24000000000009", nil, pageToken, nil, &ans)
	if err == nil || IsOutcomeUnknown(err) || !errors.Is(Classify("read", err), engine.ErrChannelTemporary) {
		t.Fatalf("read through a gateway timeout: %v", err)
	}
}
