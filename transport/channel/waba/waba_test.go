package waba

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/transport/channel/meta/graphfake"
)

// pngBytes is a minimal PNG: enough for the media store's sniffing.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)

func TestRegisterStoresCredentialsNotAnswered(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	conn, err := r.Conns.Get(context.Background(), 1, id)
	if err != nil || conn.Channel != engine.ChannelWABA || conn.Number != "5565999990000" || conn.Name != "Clínica Sol" {
		t.Fatalf("connection %+v, %v", conn, err)
	}
	cred, err := r.Creds.Get(context.Background(), id)
	if err != nil || cred.ExternalID != phoneID || cred.AccountID != wabaID || cred.Token != userToken {
		t.Fatalf("credentials %v, %v", cred, err)
	}
	if len(r.graph.Requests("POST /"+wabaID+"/subscribed_apps")) != 1 {
		t.Fatal("app not subscribed to the business account")
	}
	if len(r.Actors.Started) != 1 || r.Actors.Started[0] != id {
		t.Fatalf("actor starts %v", r.Actors.Started)
	}
	// Every open connections screen hears of the new connection.
	ev := r.Published.Take()
	if len(ev) != 1 || ev[0].CompanyID != 1 || ev[0].Event != "whatsapp" {
		t.Fatalf("published %+v", ev)
	}
	var payload struct {
		Action   string `json:"action"`
		Whatsapp struct {
			ID     engine.ID      `json:"id"`
			Queues []engine.Queue `json:"queues"`
		} `json:"whatsapp"`
	}
	if raw, _ := json.Marshal(ev[0].Payload); json.Unmarshal(raw, &payload) != nil || payload.Action != "update" ||
		payload.Whatsapp.ID != id || payload.Whatsapp.Queues == nil {
		t.Fatalf("event payload %+v", ev[0].Payload)
	}
	// Registering the same number again renews the token of the same connection.
	if again := r.register(); again != id || len(r.Actors.Restarts) != 1 {
		t.Fatalf("re-register gave %d (want %d), restarts %v", again, id, r.Actors.Restarts)
	}
	if ev := r.Published.Take(); len(ev) != 0 {
		t.Fatalf("a renewal announced %+v", ev)
	}
	// The answer never carries the token.
	_, body := r.Call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID, "currWabaToken": userToken})
	for k, v := range body {
		if s, ok := v.(string); ok && strings.Contains(s, userToken) {
			t.Fatalf("answer field %s leaks the token", k)
		}
	}
}

func TestRegisterRefusals(t *testing.T) {
	r, _ := newRig(t)
	cases := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"missing fields", map[string]string{"currWabaId": wabaID}, 400, "ERR_VALIDATION"},
		{"not json", `{"currWabaId":`, 400, "ERR_INVALID_JSON"},
		{"wrong types", `{"currWabaId":1,"currWabaPhoneId":true}`, 400, "ERR_INVALID_JSON"},
		{"bad token", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID, "currWabaToken": "nope"}, 400, "ERR_CHANNEL_CREDENTIALS"},
		{"huge", `{"currWabaId":"` + strings.Repeat("9", 70<<10) + `"}`, 413, "ERR_BODY_TOO_LARGE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := r.Call("POST", "/wacloudapi", c.body)
			if status != c.status || body["error"] != c.code {
				t.Fatalf("got %d %v, want %d %s", status, body, c.status, c.code)
			}
		})
	}
	if list, _ := r.Conns.List(context.Background(), 1); len(list) != 0 {
		t.Fatalf("refused registrations left connections: %+v", list)
	}
	// A user profile may not register numbers.
	r.Router.P.Profile = engine.ProfileUser
	if status, body := r.Call("POST", "/wacloudapi", map[string]string{"currWabaId": wabaID, "currWabaPhoneId": phoneID, "currWabaToken": userToken}); status != 403 {
		t.Fatalf("user profile: %d %v", status, body)
	}
}

func TestWebhookHandshake(t *testing.T) {
	r, _ := newRig(t)
	get := func(q string) (int, string) {
		res, err := http.Get(r.Srv.URL + "/waba/webhook?" + q)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if s, b := get("hub.mode=subscribe&hub.verify_token=" + verifyToken + "&hub.challenge=1158201444"); s != 200 || b != "1158201444" {
		t.Fatalf("good handshake: %d %q", s, b)
	}
	if s, _ := get("hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1"); s != 403 {
		t.Fatalf("bad token: %d", s)
	}
	if s, _ := get("hub.challenge=1"); s != 403 {
		t.Fatalf("no mode: %d", s)
	}
}

func TestWebhookInboundTextMediaReply(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	r.graph.Lock()
	r.graph.Media["1234567890"] = graphfake.MediaItem{MIME: "image/png", Data: pngBytes}
	r.graph.Media["555"] = graphfake.MediaItem{MIME: "application/pdf", Data: []byte("%PDF-1.4\n%âãÏÓ\n1 0 obj\n")}
	r.graph.Unlock()
	body := notify(`[
		{"from":"5565988887777","id":"wamid.A1","timestamp":"1700000000","type":"text","text":{"body":"Olá, bom dia"}},
		{"from":"5565988887777","id":"wamid.A2","timestamp":"1700000001","type":"image","image":{"caption":"foto","mime_type":"image/png","sha256":"x","id":"1234567890"},
		 "context":{"from":"556599990000","id":"wamid.OUT9"}},
		{"from":"5565988887777","id":"wamid.A3","timestamp":"1700000002","type":"document","document":{"filename":"exame.pdf","mime_type":"application/pdf","id":"555"}},
		{"from":"5565988887777","id":"wamid.A4","timestamp":"1700000003","type":"location","location":{"latitude":-15.6,"longitude":-56.1,"name":"Clínica","address":"Av. CPA"}},
		{"from":"5565988887777","id":"wamid.A5","timestamp":"1700000004","type":"unsupported","errors":[{"code":131051}]}]`, "")
	if s := r.postSigned(body); s != 200 {
		t.Fatalf("web-hook answered %d", s)
	}
	in, _, _ := r.Actors.For(id).Snapshot()
	if len(in) != 5 || !strings.Contains(in[3].Body, "maps.google.com/?q=-15.600000,-56.100000") || in[4].Body != "[unsupported]" {
		t.Fatalf("inbound %+v", in)
	}
	if in[0].ProviderID != "wamid.A1" || in[0].Body != "Olá, bom dia" || in[0].From.Number != "5565988887777" || in[0].From.Name != "Maria" || in[0].At.Unix() != 1700000000 {
		t.Fatalf("text %+v", in[0])
	}
	if in[1].MediaType != engine.MediaImage || in[1].Body != "foto" || in[1].QuotedProviderID != "wamid.OUT9" || in[1].MediaPath == "" {
		t.Fatalf("image %+v", in[1])
	}
	f, info, err := r.Media.Open(context.Background(), 1, in[1].MediaPath)
	if err != nil || info.Type != engine.MediaImage {
		t.Fatalf("stored image %+v %v", info, err)
	}
	f.Close()
	if in[2].MediaType != engine.MediaDocument || in[2].MediaName != "exame.pdf" || in[2].MediaPath == "" {
		t.Fatalf("document %+v", in[2])
	}
	// The media was fetched with the connection's token.
	for _, q := range r.graph.Requests("GET /1234567890") {
		if q.Token != userToken {
			t.Fatalf("media lookup with token %q", q.Token)
		}
	}
}

func TestWebhookSignatureRefused(t *testing.T) {
	r, logs := newRig(t)
	id := r.register()
	body := notify(`[{"from":"5565988887777","id":"wamid.S1","timestamp":"1700000000","type":"text","text":{"body":"x"}}]`, "")
	cases := map[string]string{
		"missing":      "",
		"wrong secret": "sha256=" + strings.Repeat("ab", 32),
		"no prefix":    "abcdef",
		"not hex":      "sha256=zz",
	}
	for name, sig := range cases {
		if s := r.post([]byte(body), sig); s != http.StatusUnauthorized {
			t.Fatalf("%s: answered %d", name, s)
		}
	}
	// Signed for another body (tampered).
	if s := r.post([]byte(strings.Replace(body, `"x"`, `"y"`, 1)), signOf(body)); s != 401 {
		t.Fatalf("tampered: %d", s)
	}
	if in, _, _ := r.Actors.For(id).Snapshot(); len(in) != 0 {
		t.Fatalf("unsigned delivery stored: %+v", in)
	}
	if strings.Contains(logs.String(), userToken) {
		t.Fatal("token in the logs")
	}
	if !strings.Contains(logs.String(), "bad or missing signature") {
		t.Fatalf("refusal not logged: %s", logs.String())
	}
}

func TestWebhookRedeliveryStoredOnce(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	body := notify(`[{"from":"5565988887777","id":"wamid.R1","timestamp":"1700000000","type":"text","text":{"body":"de novo"}}]`, "")
	sink := r.Actors.For(id)
	// First delivery fails to record: 500, so Meta delivers again.
	sink.Mu.Lock()
	sink.FailN = 1
	sink.Mu.Unlock()
	if s := r.postSigned(body); s != 500 {
		t.Fatalf("failed record answered %d", s)
	}
	for i := 0; i < 3; i++ {
		if s := r.postSigned(body); s != 200 {
			t.Fatalf("re-delivery %d answered %d", i, s)
		}
	}
	in, _, stored := sink.Snapshot()
	for _, m := range in {
		if m.ProviderID != "wamid.R1" {
			t.Fatalf("provider id changed across deliveries: %+v", m)
		}
	}
	if stored != 1 {
		t.Fatalf("stored %d times", stored)
	}
}

func TestWebhookStatuses(t *testing.T) {
	r, logs := newRig(t)
	id := r.register()
	body := notify("", `[
		{"id":"wamid.O1","status":"sent","timestamp":"1700000000","recipient_id":"5565988887777"},
		{"id":"wamid.O1","status":"delivered","timestamp":"1700000001","recipient_id":"5565988887777"},
		{"id":"wamid.O1","status":"read","timestamp":"1700000002","recipient_id":"5565988887777"},
		{"id":"wamid.O2","status":"failed","timestamp":"1700000003","recipient_id":"5565988887777",
		 "errors":[{"code":131047,"title":"Re-engagement message"}]}]`)
	if s := r.postSigned(body); s != 200 {
		t.Fatalf("answered %d", s)
	}
	_, rc, _ := r.Actors.For(id).Snapshot()
	want := []engine.Receipt{{ProviderID: "wamid.O1", Ack: engine.AckSent}, {ProviderID: "wamid.O1", Ack: engine.AckSent}, {ProviderID: "wamid.O1", Ack: engine.AckRead}}
	if len(rc) != len(want) {
		t.Fatalf("receipts %+v", rc)
	}
	for i := range want {
		if rc[i] != want[i] {
			t.Fatalf("receipt %d = %+v, want %+v", i, rc[i], want[i])
		}
	}
	if !strings.Contains(logs.String(), "131047") {
		t.Fatalf("failed status not logged: %s", logs.String())
	}
}

func TestWebhookHostileBodies(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	cases := []struct {
		name   string
		body   string
		status int
	}{
		{"truncated", `{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"value":{`, 400},
		{"wrong types", `{"object":"whatsapp_business_account","entry":[{"id":1,"changes":"x"}]}`, 400},
		{"other object", `{"object":"page","entry":[]}`, 400},
		{"not json", `hello`, 400},
		{"empty", ``, 400},
		{"missing fields", `{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"` + phoneID + `"},"messages":[{"type":"text"},{"id":"wamid.X"}]}}]}]}`, 200},
		{"unknown number", strings.Replace(notify(`[{"from":"1","id":"wamid.U","type":"text","text":{"body":"x"}}]`, ""), phoneID, "999", 1), 200},
		{"media without id", notify(`[{"from":"5565988887777","id":"wamid.M","type":"image","image":{}}]`, ""), 200},
		{"null entry", `{"object":"whatsapp_business_account","entry":null}`, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if s := r.postSigned(c.body); s != c.status {
				t.Fatalf("answered %d, want %d", s, c.status)
			}
		})
	}
	huge := `{"object":"whatsapp_business_account","entry":[],"pad":"` + strings.Repeat("a", 70<<10) + `"}`
	if s := r.postSigned(huge); s != http.StatusRequestEntityTooLarge {
		t.Fatalf("huge body answered %d", s)
	}
	in, _, _ := r.Actors.For(id).Snapshot()
	// Only the image without a media id gets through, as a text placeholder.
	if len(in) != 1 || in[0].ProviderID != "wamid.M" || in[0].MediaType != "" {
		t.Fatalf("hostile bodies delivered %+v", in)
	}
}

func TestSend(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	conn, _ := r.Conns.Get(context.Background(), 1, id)
	ch, err := r.svc.NewChannel(conn)
	if err != nil {
		t.Fatal(err)
	}
	sink := &recSink{}
	ctx := context.Background()
	if err := ch.Start(ctx, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.Statuses) != 1 || sink.Statuses[0].Status != engine.ConnConnected {
		t.Fatalf("status %+v", sink.Statuses)
	}
	pid, err := ch.Send(ctx, engine.OutboundMessage{MessageID: 7, To: "5565988887777", Body: "Olá!", QuotedProviderID: "wamid.A1"})
	if err != nil || !strings.HasPrefix(pid, "wamid.out") {
		t.Fatalf("send text: %q %v", pid, err)
	}
	sent := r.graph.Requests("POST /" + phoneID + "/messages")
	last := sent[len(sent)-1].JSON()
	if last["type"] != "text" || last["to"] != "5565988887777" || last["text"].(map[string]any)["body"] != "Olá!" ||
		last["context"].(map[string]any)["message_id"] != "wamid.A1" || last["messaging_product"] != "whatsapp" {
		t.Fatalf("text request %v", last)
	}
	file, err := r.Media.Save(ctx, 1, strings.NewReader(string(pngBytes)), "foto.png", "image/png")
	if err != nil {
		t.Fatal(err)
	}
	pid, err = ch.Send(ctx, engine.OutboundMessage{MessageID: 8, To: "5565988887777", Body: "veja", MediaType: engine.MediaImage, MediaPath: file.Path, MediaName: "foto.png"})
	if err != nil || pid == "" {
		t.Fatalf("send image: %q %v", pid, err)
	}
	up := r.graph.Requests("POST /" + phoneID + "/media")
	if len(up) != 1 || up[0].Form["messaging_product"] != "whatsapp" || string(up[0].File) != string(pngBytes) {
		t.Fatalf("upload %+v", up)
	}
	sent = r.graph.Requests("POST /" + phoneID + "/messages")
	last = sent[len(sent)-1].JSON()
	img, _ := last["image"].(map[string]any)
	if last["type"] != "image" || img["id"] == "" || img["caption"] != "veja" {
		t.Fatalf("image request %v", last)
	}
}

func TestSendProviderErrors(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	conn, _ := r.Conns.Get(context.Background(), 1, id)
	ch, _ := r.svc.NewChannel(conn)
	ctx := context.Background()
	msg := engine.OutboundMessage{MessageID: 9, To: "5565988887777", Body: "oi"}
	// Not started: temporary (the actor retries once the channel is up).
	if _, err := ch.Send(ctx, msg); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("send before start: %v", err)
	}
	if err := ch.Start(ctx, &recSink{}); err != nil {
		t.Fatal(err)
	}
	route := "POST /" + phoneID + "/messages"
	cases := []struct {
		name      string
		fail      graphfake.Failure
		temporary bool
		code      engine.Code
	}{
		{"server error", graphfake.Failure{Status: 500, Code: 1, Message: "An unknown error occurred"}, true, engine.ErrSendingWappMsg},
		{"rate limited", graphfake.Failure{Status: 429, Code: 130429, Message: "Rate limit hit"}, true, engine.ErrSendingWappMsg},
		{"spam rate", graphfake.Failure{Status: 400, Code: 131048, Message: "Spam rate limit hit"}, true, engine.ErrSendingWappMsg},
		{"token expired", graphfake.Failure{Status: 401, Code: 190, Subcode: 463, Message: "Error validating access token"}, false, engine.ErrChannelCredentials},
		{"not a whatsapp user", graphfake.Failure{Status: 400, Code: 131026, Message: "Message undeliverable"}, false, engine.ErrWappInvalidContact},
		{"outside 24h window", graphfake.Failure{Status: 400, Code: 131047, Message: "Re-engagement message"}, false, engine.ErrChannelRefused},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.graph.Fail(route, c.fail)
			_, err := ch.Send(ctx, msg)
			if got := errors.Is(err, engine.ErrChannelTemporary); got != c.temporary {
				t.Fatalf("temporary = %v for %v", got, err)
			}
			if engine.CodeOf(err) != c.code {
				t.Fatalf("code %s, want %s (%v)", engine.CodeOf(err), c.code, err)
			}
			// Never lost: the next attempt goes through.
			if pid, err := ch.Send(ctx, msg); err != nil || pid == "" {
				t.Fatalf("retry after %s: %q %v", c.name, pid, err)
			}
		})
	}
	// Network failure: temporary.
	r.graph.Server.Close()
	if _, err := ch.Send(ctx, msg); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("network failure: %v", err)
	}
}

func TestTemplates(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	r.graph.Lock()
	tpl := map[string]any{"id": "594425479261596", "name": "confirmacao_consulta", "status": "APPROVED", "language": "pt_BR",
		"category": "UTILITY", "components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}, a consulta de {{2}} com {{3}} é em {{4}}."}}}
	r.graph.Templates[wabaID] = []map[string]any{tpl,
		{"id": "2", "name": "rascunho", "status": "PENDING", "language": "pt_BR", "category": "MARKETING"}}
	r.graph.Objects["594425479261596"] = tpl
	r.graph.Unlock()
	status, body := r.Call("GET", "/wabatemplates", nil)
	list, _ := body["templates"].([]any)
	if status != 200 || len(list) != 1 || list[0].(map[string]any)["templateName"] != "confirmacao_consulta" {
		t.Fatalf("templates: %d %v", status, body)
	}
	// No template chosen: the spec's message.
	status, body = r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "", "lticketId": 5})
	if status != 400 || body["error"] != "ERR_VALIDATION" || body["fields"].(map[string]any)["templateId"] != MsgChooseTemplate {
		t.Fatalf("missing template: %d %v", status, body)
	}
	if status, body = r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "594425479261596", "lticketId": 404}); status != 404 {
		t.Fatalf("unknown ticket: %d %v", status, body)
	}
	r.tickets[5] = ticketTarget{conn: id, number: "5565988887777"}
	status, body = r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "594425479261596", "contactName": "Maria",
		"patientName": "Pedro", "attendantName": "Dra. Ana", "dateTime": "10/12 14:00", "lcontactId": "3", "lticketId": "5"})
	if status != 200 || body["providerId"] == "" {
		t.Fatalf("send template: %d %v", status, body)
	}
	sent := r.graph.Requests("POST /" + phoneID + "/messages")
	m := sent[len(sent)-1].JSON()
	tp := m["template"].(map[string]any)
	params := tp["components"].([]any)[0].(map[string]any)["parameters"].([]any)
	if m["type"] != "template" || tp["name"] != "confirmacao_consulta" || len(params) != 4 ||
		params[2].(map[string]any)["text"] != "Dra. Ana" || tp["language"].(map[string]any)["code"] != "pt_BR" {
		t.Fatalf("template request %v", m)
	}
	// Recorded once in the contact's ticket as our own message, under the wamid the
	// Cloud API answered, with the text the customer reads.
	in, _, stored := r.Actors.For(id).Snapshot()
	if len(in) != 1 || stored != 1 || !in[0].FromMe || in[0].ProviderID != body["providerId"] ||
		in[0].From.Number != "5565988887777" || in[0].Body != "Olá Maria, a consulta de Pedro com Dra. Ana é em 10/12 14:00." {
		t.Fatalf("recorded %+v", in)
	}
	// A template of another business account the token reaches is refused before
	// anything is sent: the number's account does not hold it.
	r.graph.Lock()
	r.graph.Objects["99"] = map[string]any{"id": "99", "name": "confirmacao_consulta", "status": "APPROVED", "language": "pt_BR",
		"components": []map[string]any{{"type": "BODY", "text": "Outra conta {{1}}"}}}
	r.graph.Templates["other-waba"] = []map[string]any{r.graph.Objects["99"]}
	r.graph.Unlock()
	before := len(r.graph.Requests("POST /" + phoneID + "/messages"))
	status, body = r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "99", "contactName": "Maria", "lticketId": 5})
	if fields, _ := body["fields"].(map[string]any); status != 400 || fields["templateId"] != MsgTemplateNotOwned {
		t.Fatalf("foreign template: %d %v", status, body)
	}
	if n := len(r.graph.Requests("POST /" + phoneID + "/messages")); n != before {
		t.Fatalf("foreign template sent (%d sends, had %d)", n, before)
	}
	// A refused send records nothing.
	r.graph.Fail("POST /"+phoneID+"/messages", graphfake.Failure{Status: 400, Code: 131047, Message: "Re-engagement message"})
	if status, body = r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "594425479261596", "lticketId": 5}); status == 200 {
		t.Fatalf("refused send answered %d %v", status, body)
	}
	if in, _, _ := r.Actors.For(id).Snapshot(); len(in) != 1 {
		t.Fatalf("refused send recorded: %+v", in)
	}
}

func TestRenderTemplate(t *testing.T) {
	cases := []struct {
		body   string
		params []string
		want   string
	}{
		{"Olá {{1}}, até {{2}}.", []string{"Maria", "amanhã"}, "Olá Maria, até amanhã."},
		{"{{1}} e {{1}} de novo, {{3}}", []string{"A"}, "A e A de novo, {{3}}"},
		{"Sem variáveis", nil, "Sem variáveis"},
		{"", nil, "[template aviso]"},
	}
	for _, c := range cases {
		if got := renderTemplate("aviso", c.body, c.params); got != c.want {
			t.Errorf("renderTemplate(%q, %v) = %q, want %q", c.body, c.params, got, c.want)
		}
	}
}

func signOf(body string) string { return metaSign(body) }

func TestWipeCredentials(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	conn, _ := r.Conns.Get(context.Background(), 1, id)
	ch, _ := r.svc.NewChannel(conn)
	if err := ch.(engine.CredentialWiper).WipeCredentials(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Creds.Get(context.Background(), id); engine.CodeOf(err) != engine.ErrNotFound {
		t.Fatalf("after wipe: %v", err)
	}
	// A web-hook for the wiped number is acknowledged and dropped.
	if s := r.postSigned(notify(`[{"from":"5565988887777","id":"wamid.W","type":"text","text":{"body":"x"}}]`, "")); s != 200 {
		t.Fatalf("web-hook after wipe: %d", s)
	}
	if in, _, _ := r.Actors.For(id).Snapshot(); len(in) != 0 {
		t.Fatalf("delivered after wipe: %+v", in)
	}
}

func TestWebhookMediaFailures(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	body := func(mid, media string) string {
		return notify(`[{"from":"5565988887777","id":"`+mid+`","timestamp":"1700000000","type":"image","image":{"id":"`+media+`","caption":"c"}}]`, "")
	}
	// Graph down while fetching: 500, Meta delivers again, nothing half-recorded.
	r.graph.Lock()
	r.graph.Media["42"] = graphfake.MediaItem{MIME: "image/png", Data: pngBytes}
	r.graph.Unlock()
	r.graph.Fail("GET /42", graphfake.Failure{Status: 500, Code: 1, Message: "An unknown error occurred"})
	if s := r.postSigned(body("wamid.F1", "42")); s != 500 {
		t.Fatalf("graph down: %d", s)
	}
	if in, _, _ := r.Actors.For(id).Snapshot(); len(in) != 0 {
		t.Fatalf("recorded while media failed: %+v", in)
	}
	if s := r.postSigned(body("wamid.F1", "42")); s != 200 {
		t.Fatalf("re-delivery: %d", s)
	}
	// An expired media id is permanent: the message is kept as text.
	if s := r.postSigned(body("wamid.F2", "expired")); s != 200 {
		t.Fatalf("expired media: %d", s)
	}
	in, _, _ := r.Actors.For(id).Snapshot()
	if len(in) != 2 || in[0].MediaPath == "" || in[1].MediaType != "" || in[1].Body != "c" {
		t.Fatalf("inbound %+v", in)
	}
}

// Template values go to the Cloud API and into the ticket: NUL, invalid UTF-8,
// control characters and oversized values are refused before anything is sent or
// recorded, and so is a template Meta has not approved.
func TestTemplateValuesValidated(t *testing.T) {
	r, _ := newRig(t)
	id := r.register()
	r.graph.Lock()
	r.graph.Objects["41"] = map[string]any{"id": "41", "name": "aviso", "status": "APPROVED", "language": "pt_BR",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}} {{2}} {{3}} {{4}}"}}}
	r.graph.Objects["42"] = map[string]any{"id": "42", "name": "rascunho", "status": "PENDING", "language": "pt_BR",
		"components": []map[string]any{{"type": "BODY", "text": "Olá {{1}}"}}}
	r.graph.Templates[wabaID] = []map[string]any{r.graph.Objects["41"], r.graph.Objects["42"]}
	r.graph.Unlock()
	r.tickets[5] = ticketTarget{conn: id, number: "5565988887777"}
	route := "POST /" + phoneID + "/messages"
	long := strings.Repeat("é", TemplateValueMax+1)
	cases := []struct {
		name, field, value, msg string // value is JSON string content, escapes allowed
	}{
		{"NUL", "contactName", `Ma\u0000ria`, engine.MsgInvalidValue},
		{"line break", "attendantName", `Dra.\nAna`, engine.MsgInvalidValue},
		{"C1 control", "patientName", `Pe\u0085dro`, engine.MsgInvalidValue},
		{"oversized", "dateTime", long, engine.MsgTooLong},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := `{"templateId":"41","lticketId":5,"` + c.field + `":"` + c.value + `"}`
			status, body := r.Call("POST", "/waba/sendtemplatemessage/", raw)
			fields, _ := body["fields"].(map[string]any)
			if status != 400 || body["error"] != "ERR_VALIDATION" || fields[c.field] != c.msg {
				t.Fatalf("answered %d %v", status, body)
			}
		})
	}
	// encoding/json turns invalid UTF-8 into U+FFFD on the way in; the rule itself
	// refuses it all the same.
	if err := (templateRequest{PatientName: "Pe\xffdro"}).validate(); engine.CodeOf(err) != engine.ErrValidation {
		t.Fatalf("invalid UTF-8: %v", err)
	}
	status, body := r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "42", "contactName": "Maria", "lticketId": 5})
	if fields, _ := body["fields"].(map[string]any); status != 400 || fields["templateId"] != MsgTemplateNotApproved {
		t.Fatalf("pending template: %d %v", status, body)
	}
	if sent := r.graph.Requests(route); len(sent) != 0 {
		t.Fatalf("sent %d requests", len(sent))
	}
	if in, _, _ := r.Actors.For(id).Snapshot(); len(in) != 0 {
		t.Fatalf("recorded %+v", in)
	}
	// A value at the limit goes through.
	at := strings.Repeat("é", TemplateValueMax)
	if status, body := r.Call("POST", "/waba/sendtemplatemessage/", map[string]any{"templateId": "41", "contactName": at, "lticketId": 5}); status != 200 {
		t.Fatalf("value at the limit: %d %v", status, body)
	}
}
