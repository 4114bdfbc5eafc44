package telegram

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/transport/channel/telegram/botfake"
)

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)

const textUpdate = `{"message":{"message_id":11,"from":{"id":424242,"is_bot":false,"first_name":"Maria","last_name":"Silva"},
	"chat":{"id":424242,"first_name":"Maria","last_name":"Silva","type":"private"},"date":1700000000,"text":"Olá!"}}`

func TestCreate(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, _ := r.create()
	if conn.Channel != engine.ChannelTelegram || conn.Name != "Bot da loja" || conn.Number != "@atende_bot" {
		t.Fatalf("connection %+v", conn)
	}
	cred, err := r.Creds.Get(context.Background(), conn.ID)
	if err != nil || cred.Token != botToken || cred.ExternalID != "7000001" || len(cred.Secret) < 32 {
		t.Fatalf("credentials %v %v", cred, err)
	}
	if len(r.Actors.Started) != 1 {
		t.Fatalf("actor not started: %v", r.Actors.Started)
	}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"no token", map[string]string{"name": "x"}, 400, "ERR_VALIDATION"},
		{"token with a path", map[string]string{"token": "1:a/../x"}, 400, "ERR_VALIDATION"},
		{"refused token", map[string]string{"token": "1:wrong"}, 400, "ERR_CHANNEL_CREDENTIALS"},
		{"not json", `{"token":`, 400, "ERR_INVALID_JSON"},
		{"wrong type", `{"token":12}`, 400, "ERR_INVALID_JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := r.Call("POST", "/telegram", c.body)
			if status != c.status || body["error"] != c.code {
				t.Fatalf("got %d %v", status, body)
			}
		})
	}
	// A typed name follows the connection form's rule, no silent cut; the token gets
	// the engine's field message. Nothing reaches the Bot API.
	getMes := len(r.bot.Calls("getMe"))
	fieldCases := []struct {
		name  string
		body  map[string]string
		field string
		msg   string
	}{
		{"typed name too short", map[string]string{"name": "x", "token": botToken}, "name", engine.MsgTooShort},
		{"typed name too long", map[string]string{"name": strings.Repeat("b", engine.NameMax+1), "token": botToken}, "name", engine.MsgTooLong},
		{"typed name with a control character", map[string]string{"name": "Bot\x00", "token": botToken}, "name", engine.MsgInvalidValue},
		{"token with a path", map[string]string{"token": "1:a/../x"}, "token", engine.MsgInvalidValue},
	}
	for _, c := range fieldCases {
		t.Run(c.name, func(t *testing.T) {
			status, body := r.Call("POST", "/telegram", c.body)
			fields, _ := body["fields"].(map[string]any)
			if status != 400 || body["error"] != "ERR_VALIDATION" || fields[c.field] != c.msg {
				t.Fatalf("got %d %v", status, body)
			}
		})
	}
	if n := len(r.bot.Calls("getMe")); n != getMes {
		t.Fatalf("getMe called %d times for refused forms", n-getMes)
	}
	r.Router.P.Profile = engine.ProfileUser
	if status, _ := r.Call("POST", "/telegram", map[string]string{"token": botToken}); status != 403 {
		t.Fatalf("user profile: %d", status)
	}
	if strings.Contains(r.Logs.String(), botToken) || strings.Contains(r.Logs.String(), "AAHdq") {
		t.Fatal("token in the logs")
	}
}

func TestWebhookInbound(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, ch := r.create()
	ctx := context.Background()
	if err := ch.Start(ctx, r.Actors.Sink(conn.ID)); err != nil {
		t.Fatal(err)
	}
	defer ch.Stop(ctx)
	hooks := r.bot.Calls("setWebhook")
	cred, _ := r.Creds.Get(ctx, conn.ID)
	if len(hooks) != 1 || hooks[0].Params["url"] != r.Srv.URL+"/telegram/webhook/"+itoa(conn.ID) || hooks[0].Params["secret_token"] != cred.Secret {
		t.Fatalf("setWebhook %+v", hooks)
	}
	r.bot.SetFile("AgADphoto", pngBytes)
	if s := r.hook(conn.ID, cred.Secret, `{"update_id":1,`+textUpdate[1:]); s != 200 {
		t.Fatalf("text: %d", s)
	}
	photo := `{"update_id":2,"message":{"message_id":12,"from":{"id":424242,"is_bot":false,"first_name":"Maria"},
		"chat":{"id":424242,"first_name":"Maria","type":"private"},"date":1700000001,"caption":"minha foto",
		"photo":[{"file_id":"AgADsmall","file_unique_id":"s","width":90,"height":90},{"file_id":"AgADphoto","file_unique_id":"b","width":800,"height":800}],
		"reply_to_message":{"message_id":1005,"chat":{"id":424242,"type":"private"},"date":1699999999,"text":"Como posso ajudar?"}}}`
	if s := r.hook(conn.ID, cred.Secret, photo); s != 200 {
		t.Fatalf("photo: %d", s)
	}
	in, _, _ := r.Actors.For(conn.ID).Snapshot()
	if len(in) != 2 {
		t.Fatalf("inbound %+v", in)
	}
	if in[0].ProviderID != "424242:11" || in[0].Body != "Olá!" || in[0].From.Number != "tg:424242" || in[0].From.Name != "Maria Silva" {
		t.Fatalf("text %+v", in[0])
	}
	if in[1].MediaType != engine.MediaImage || in[1].Body != "minha foto" || in[1].QuotedProviderID != "424242:1005" || in[1].MediaPath == "" {
		t.Fatalf("photo %+v", in[1])
	}
	if f, info, err := r.Media.Open(ctx, 1, in[1].MediaPath); err != nil || info.Type != engine.MediaImage {
		t.Fatalf("stored photo %+v %v", info, err)
	} else {
		f.Close()
	}
	// The largest size was fetched.
	if gf := r.bot.Calls("getFile"); len(gf) != 1 || gf[0].Params["file_id"] != "AgADphoto" {
		t.Fatalf("getFile %+v", gf)
	}
}

func TestWebhookSecretAndHostile(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, _ := r.create()
	cred, _ := r.Creds.Get(context.Background(), conn.ID)
	body := `{"update_id":1,` + textUpdate[1:]
	for name, secret := range map[string]string{"missing": "", "wrong": "nope", "prefix": cred.Secret[:10]} {
		if s := r.hook(conn.ID, secret, body); s != http.StatusUnauthorized {
			t.Fatalf("%s secret: %d", name, s)
		}
	}
	if s := r.hook(9999, cred.Secret, body); s != http.StatusUnauthorized {
		t.Fatalf("another connection's id: %d", s)
	}
	if !strings.Contains(r.Logs.String(), "bad or missing secret token") {
		t.Fatal("refusal not logged")
	}
	cases := []struct {
		name, body string
		status     int
	}{
		{"truncated", `{"update_id":1,"message":{"message_id":`, 400},
		{"wrong types", `{"update_id":"x","message":[]}`, 400},
		{"no message", `{"update_id":3,"edited_message":{"message_id":1}}`, 200},
		{"no chat", `{"update_id":4,"message":{"message_id":5,"text":"x"}}`, 200},
		{"bot sender", `{"update_id":5,"message":{"message_id":6,"from":{"id":1,"is_bot":true},"chat":{"id":1,"type":"private"},"text":"x"}}`, 200},
		{"photo without file id", `{"update_id":6,"message":{"message_id":7,"chat":{"id":5,"type":"private"},"photo":[{}]}}`, 200},
		{"huge", `{"update_id":7,"pad":"` + strings.Repeat("a", 70<<10) + `"}`, 413},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if s := r.hook(conn.ID, cred.Secret, c.body); s != c.status {
				t.Fatalf("got %d, want %d", s, c.status)
			}
		})
	}
	in, _, _ := r.Actors.For(conn.ID).Snapshot()
	if len(in) != 1 || in[0].ProviderID != "5:7" || in[0].MediaType != "" {
		t.Fatalf("delivered %+v", in)
	}
}

func TestWebhookRedeliveryStoredOnce(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, _ := r.create()
	cred, _ := r.Creds.Get(context.Background(), conn.ID)
	sink := r.Actors.For(conn.ID)
	sink.Mu.Lock()
	sink.FailN = 1
	sink.Mu.Unlock()
	body := `{"update_id":1,` + textUpdate[1:]
	if s := r.hook(conn.ID, cred.Secret, body); s != 500 {
		t.Fatalf("failed record answered %d", s)
	}
	for i := 0; i < 2; i++ {
		if s := r.hook(conn.ID, cred.Secret, body); s != 200 {
			t.Fatalf("re-delivery: %d", s)
		}
	}
	if _, _, stored := sink.Snapshot(); stored != 1 {
		t.Fatalf("stored %d times", stored)
	}
}

func TestPolling(t *testing.T) {
	r := newRig(t, ModePolling)
	conn, ch := r.create()
	ctx := context.Background()
	sink := r.Actors.For(conn.ID)
	sink.Mu.Lock()
	sink.FailN = 1 // the first record fails: the update is fetched again
	sink.Mu.Unlock()
	if err := ch.Start(ctx, sink); err != nil {
		t.Fatal(err)
	}
	if len(r.bot.Calls("deleteWebhook")) != 1 {
		t.Fatal("web-hook not removed before polling")
	}
	r.bot.Push(textUpdate)
	r.bot.Push(strings.Replace(textUpdate, `"message_id":11`, `"message_id":12`, 1))
	waitFor(t, "two updates recorded", func() bool { _, _, n := sink.Snapshot(); return n == 2 })
	in, _, _ := sink.Snapshot()
	if in[0].ProviderID != "424242:11" || in[len(in)-1].ProviderID != "424242:12" {
		t.Fatalf("order %+v", in)
	}
	if err := ch.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	// Closing the adapter ends loops of channels nobody stopped.
	_, ch2 := r.create()
	if err := ch2.Start(ctx, sink); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_ = ch2.Stop(ctx)
	if err := ch2.Start(ctx, sink); err == nil {
		t.Fatal("polling started after Close")
	}
	// After Stop and Close no one polls.
	n := len(r.bot.Calls("getUpdates"))
	r.bot.Push(strings.Replace(textUpdate, `"message_id":11`, `"message_id":13`, 1))
	if m := len(r.bot.Calls("getUpdates")); m != n {
		t.Fatalf("polled after stop: %d -> %d", n, m)
	}
	sink.Mu.Lock()
	st := append([]engine.StatusChange(nil), sink.Statuses...)
	sink.Mu.Unlock()
	if len(st) == 0 || st[0].Status != engine.ConnConnected || st[0].Number != "@atende_bot" {
		t.Fatalf("statuses %+v", st)
	}
}

func TestSend(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, ch := r.create()
	ctx := context.Background()
	msg := engine.OutboundMessage{MessageID: 1, To: "tg:424242", Body: "Oi, Maria", QuotedProviderID: "424242:11"}
	if _, err := ch.Send(ctx, msg); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("send before start: %v", err)
	}
	if err := ch.Start(ctx, r.Actors.Sink(conn.ID)); err != nil {
		t.Fatal(err)
	}
	pid, err := ch.Send(ctx, msg)
	if err != nil || !strings.HasPrefix(pid, "424242:") {
		t.Fatalf("send text: %q %v", pid, err)
	}
	sm := r.bot.Calls("sendMessage")
	rp, _ := sm[0].Params["reply_parameters"].(map[string]any)
	if sm[0].Params["text"] != "Oi, Maria" || sm[0].Params["chat_id"] != float64(424242) || rp["message_id"] != float64(11) {
		t.Fatalf("sendMessage %+v", sm[0].Params)
	}
	file, err := r.Media.Save(ctx, 1, strings.NewReader(string(pngBytes)), "foto.png", "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if pid, err = ch.Send(ctx, engine.OutboundMessage{MessageID: 2, To: "tg:424242", Body: "legenda", MediaType: engine.MediaImage, MediaPath: file.Path}); err != nil || pid == "" {
		t.Fatalf("send photo: %v", err)
	}
	sp := r.bot.Calls("sendPhoto")
	if len(sp) != 1 || sp[0].Params["caption"] != "legenda" || string(sp[0].File) != string(pngBytes) {
		t.Fatalf("sendPhoto %+v", sp)
	}
	cases := []struct {
		name      string
		fail      botfake.Failure
		temporary bool
		code      engine.Code
	}{
		{"flood", botfake.Failure{Code: 429, Desc: "Too Many Requests: retry after 3", RetryAfter: 3}, true, engine.ErrSendingWappMsg},
		{"server", botfake.Failure{Code: 502, Desc: "Bad Gateway"}, true, engine.ErrSendingWappMsg},
		{"blocked", botfake.Failure{Code: 403, Desc: "Forbidden: bot was blocked by the user"}, false, engine.ErrChannelRefused},
		{"chat not found", botfake.Failure{Code: 400, Desc: "Bad Request: chat not found"}, false, engine.ErrWappInvalidContact},
		{"revoked", botfake.Failure{Code: 401, Desc: "Unauthorized"}, false, engine.ErrChannelCredentials},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.bot.Fail("sendMessage", c.fail)
			_, err := ch.Send(ctx, msg)
			if errors.Is(err, engine.ErrChannelTemporary) != c.temporary || engine.CodeOf(err) != c.code {
				t.Fatalf("err %v: code %s", err, engine.CodeOf(err))
			}
			if pid, err := ch.Send(ctx, msg); err != nil || pid == "" {
				t.Fatalf("next attempt: %v", err)
			}
		})
	}
	if _, err := ch.Send(ctx, engine.OutboundMessage{To: "5565999990000x"}); engine.CodeOf(err) != engine.ErrWappInvalidContact {
		t.Fatalf("not a chat: %v", err)
	}
	r.bot.Close()
	_, err = ch.Send(ctx, msg)
	if !errors.Is(err, engine.ErrChannelTemporary) || strings.Contains(err.Error(), botToken) {
		t.Fatalf("network failure: %v", err)
	}
}

func TestWipeCredentials(t *testing.T) {
	r := newRig(t, ModeWebhook)
	conn, ch := r.create()
	ctx := context.Background()
	var w engine.CredentialWiper = ch
	if err := w.WipeCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Creds.Get(ctx, conn.ID); engine.CodeOf(err) != engine.ErrNotFound {
		t.Fatalf("credentials after wipe: %v", err)
	}
	if len(r.bot.Calls("deleteWebhook")) != 1 {
		t.Fatal("web-hook left registered")
	}
	if err := ch.Start(ctx, r.Actors.Sink(conn.ID)); err == nil {
		t.Fatal("started without credentials")
	}
}
