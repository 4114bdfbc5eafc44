package waba

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/meta"
	"atende/transport/channel/meta/graphfake"
)

// The Cloud API takes no idempotency key. A send whose request reached it and whose
// answer was lost may have been accepted: it is not temporary (the connection actor
// does not retry it, so the customer never gets it twice) but ERR_CHANNEL_OUTCOME_UNKNOWN,
// logged. Failures that say the message was not accepted stay temporary.
func TestSendOutcomeUnknownIsNotRetried(t *testing.T) {
	r, logs := newRig(t)
	id := r.register()
	conn, _ := r.Conns.Get(context.Background(), 1, id)
	ch, _ := r.svc.NewChannel(conn)
	if err := ch.Start(context.Background(), &recSink{}); err != nil {
		t.Fatal(err)
	}
	route := "POST /" + phoneID + "/messages"
	msg := engine.OutboundMessage{MessageID: 11, To: "5565988887777", Body: "uma vez só"}
	send := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		_, err := ch.Send(ctx, msg)
		return err
	}
	unknown := []struct {
		name string
		fail graphfake.Failure
	}{
		{"answer never comes", graphfake.Failure{Hang: true}},
		{"gateway timeout page", graphfake.Failure{Status: 504, Raw: "<html><body>504 Gateway Time-out</body></html>"}},
		{"bad gateway page", graphfake.Failure{Status: 502, Raw: "<html>502 Bad Gateway</html>"}},
		{"2xx not JSON", graphfake.Failure{Status: 200, Raw: "<html>ok</html>"}},
		{"2xx without message id", graphfake.Failure{Status: 200, Raw: `{"messaging_product":"whatsapp","contacts":[{"input":"5565988887777","wa_id":"5565988887777"}],"messages":[]}`}},
	}
	for _, c := range unknown {
		t.Run(c.name, func(t *testing.T) {
			before := len(r.graph.Requests(route))
			r.graph.Fail(route, c.fail)
			err := send(300 * time.Millisecond)
			if err == nil || errors.Is(err, engine.ErrChannelTemporary) || engine.CodeOf(err) != meta.ErrOutcomeUnknown {
				t.Fatalf("want a non-temporary %s, got %v", meta.ErrOutcomeUnknown, err)
			}
			if n := len(r.graph.Requests(route)) - before; n != 1 {
				t.Fatalf("%d requests reached the Cloud API, want 1", n)
			}
		})
	}
	if !strings.Contains(logs.String(), "waba send outcome unknown") {
		t.Fatalf("not logged: %s", logs.String())
	}

	// The answer says the message was not accepted: temporary, retried.
	temporary := []graphfake.Failure{
		{Status: 503, Raw: "Service Unavailable"},
		{Status: 500, Code: 2, Message: "Service temporarily unavailable"},
		{Status: 429, Code: 130429, Message: "Rate limit hit"},
	}
	for _, f := range temporary {
		r.graph.Fail(route, f)
		if err := send(5 * time.Second); !errors.Is(err, engine.ErrChannelTemporary) {
			t.Fatalf("%+v: want temporary, got %v", f, err)
		}
	}
	// Nothing was written: a deadline before the request left, or no connection.
	if err := send(0); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("expired context: want temporary, got %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	svc, err := New(Config{GraphURL: dead, GraphVersion: graphfake.Version, AppSecret: appSecret, VerifyToken: verifyToken},
		Deps{Connections: r.Conns, Credentials: r.Creds, Media: r.Media, Actors: r.Actors})
	if err != nil {
		t.Fatal(err)
	}
	ch2, _ := svc.NewChannel(conn)
	if err := ch2.Start(context.Background(), &recSink{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ch2.Send(context.Background(), msg); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("connection refused: want temporary, got %v", err)
	}
}

// A template whose send outcome is unknown is not recorded (there is no wamid) and
// the caller is told so, not invited to retry with ERR_UNAVAILABLE.
func TestTemplateOutcomeUnknown(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	tpl := map[string]any{"id": "31", "name": "aviso", "status": "APPROVED", "language": "pt_BR",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}"}}}
	r.graph.Lock()
	r.graph.Objects["31"], r.graph.Templates[wabaID] = tpl, []map[string]any{tpl}
	r.graph.Unlock()
	r.tickets[5] = ticketTarget{conn: id, number: "5565988887777"}
	r.graph.Fail("POST /"+phoneID+"/messages", graphfake.Failure{Status: 504, Raw: "gateway timeout"})
	status, body := r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "31", "contactName": "Maria", "lticketId": 5})
	if status == 200 || body["error"] != string(meta.ErrOutcomeUnknown) {
		t.Fatalf("answered %d %v", status, body)
	}
	if in, _, _ := r.Actors.For(id).Snapshot(); len(in) != 0 {
		t.Fatalf("recorded %+v", in)
	}
}
