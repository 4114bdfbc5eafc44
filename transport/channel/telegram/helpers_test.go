package telegram

import (
	"context"
	"testing"
	"time"

	"atende/engine"
	"atende/transport/channel/channeltest"
	"atende/transport/channel/telegram/botfake"
)

const botToken = "7000001:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"

// rig is a Service on the shared test rig, against a Bot API fake.
type rig struct {
	channeltest.Rig
	svc *Service
	bot *botfake.API
}

func newRig(t *testing.T, mode string) *rig {
	t.Helper()
	bot := botfake.New(botToken)
	t.Cleanup(bot.Close)
	r := &rig{Rig: channeltest.NewRig(t, "A"), bot: bot}
	var err error
	r.svc, err = New(Config{APIURL: bot.URL(), Mode: mode, PublicURL: r.Srv.URL, PollTimeout: time.Second, RetryDelay: 20 * time.Millisecond,
		MaxBody: 64 << 10, CallTimeout: 5 * time.Second},
		r.Deps())
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Routes(r.Router)
	return r
}

// create makes the connection through POST /telegram and returns it with its channel.
func (r *rig) create() (engine.Connection, *Channel) {
	r.T.Helper()
	status, body := r.Call("POST", "/telegram", map[string]string{"name": "Bot da loja", "token": botToken})
	if status != 200 {
		r.T.Fatalf("create: %d %v", status, body)
	}
	id, _ := body["id"].(float64)
	conn, err := r.Conns.Get(context.Background(), 1, engine.ID(id))
	if err != nil {
		r.T.Fatal(err)
	}
	ch, err := r.svc.NewChannel(conn)
	if err != nil {
		r.T.Fatal(err)
	}
	return conn, ch.(*Channel)
}

// hook posts an update to the connection's web-hook with a secret header.
func (r *rig) hook(id engine.ID, secret, body string) int {
	r.T.Helper()
	return channeltest.Post(r.T, r.Srv.URL+"/telegram/webhook/"+itoa(id), []byte(body),
		"X-Telegram-Bot-Api-Secret-Token", secret)
}

// waitFor polls cond until it holds or 5 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
