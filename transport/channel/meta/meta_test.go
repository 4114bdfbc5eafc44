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

var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)

func TestConnectPages(t *testing.T) {
	r := newRig(t)
	fb, ig := r.connect()
	if fb == 0 || ig == 0 {
		t.Fatalf("connections fb=%d ig=%d", fb, ig)
	}
	all, _ := r.Conns.List(context.Background(), 1)
	if len(all) != 3 { // two pages, one Instagram account
		t.Fatalf("connections %+v", all)
	}
	// The short-lived user token was exchanged, and the pages listed with the long one.
	ex := r.graph.Requests("GET /oauth/access_token")
	acc := r.graph.Requests("GET /1000/accounts")
	if len(ex) != 1 || ex[0].Form["client_id"] != "1517000000" || len(acc) != 1 || acc[0].Token != userToken+"-long" {
		t.Fatalf("token exchange %+v, accounts %+v", ex, acc)
	}
	if strings.Contains(r.Logs.String(), appSecret) {
		t.Fatal("app secret in the logs")
	}
	cred, _ := r.Creds.Get(context.Background(), ig)
	if cred.ExternalID != igID || cred.AccountID != pageID || cred.Token != pageToken {
		t.Fatalf("instagram credentials %v", cred)
	}
	// Again: tokens renewed, no new connections.
	r.connect()
	if again, _ := r.Conns.List(context.Background(), 1); len(again) != 3 || len(r.Actors.Restarts) != 3 {
		t.Fatalf("reconnect: %d connections, restarts %v", len(again), r.Actors.Restarts)
	}
	// Without addInstagram no instagram connection is made (on a fresh tenant).
	r.Router.P.CompanyID = 2
	r.graph.Lock()
	r.graph.Pages["2000"] = []graphfake.Page{{ID: "120000000000001", Name: "Outra", Token: pageToken, InstagramID: "1784"}}
	r.graph.Unlock()
	status, body := r.Call("POST", "/facebook", map[string]any{"facebookUserId": "2000", "facebookUserToken": userToken})
	if list, _ := body["connections"].([]any); status != 200 || len(list) != 1 {
		t.Fatalf("no instagram: %d %v", status, body)
	}
	// Refusals.
	for name, c := range map[string]struct {
		body   any
		status int
		code   string
	}{
		"missing token": {map[string]any{"facebookUserId": "1000"}, 400, "ERR_VALIDATION"},
		"bad token":     {map[string]any{"facebookUserId": "1000", "facebookUserToken": "x"}, 400, "ERR_CHANNEL_CREDENTIALS"},
		"bad json":      {`{"facebookUserId":`, 400, "ERR_INVALID_JSON"},
		"wrong type":    {`{"facebookUserId":"1","facebookUserToken":"t","addInstagram":"yes"}`, 400, "ERR_INVALID_JSON"},
	} {
		if status, body := r.Call("POST", "/facebook", c.body); status != c.status || body["error"] != c.code {
			t.Fatalf("%s: %d %v", name, status, body)
		}
	}
	r.graph.Fail("GET /1000/accounts", graphfake.Failure{Status: 500, Code: 2, Message: "Service temporarily unavailable"})
	if status, body := r.Call("POST", "/facebook", map[string]any{"facebookUserId": "1000", "facebookUserToken": userToken}); status != 503 {
		t.Fatalf("graph down: %d %v", status, body)
	}
	r.Router.P.Profile = engine.ProfileUser
	if status, _ := r.Call("POST", "/facebook", map[string]any{"facebookUserId": "1000", "facebookUserToken": userToken}); status != 403 {
		t.Fatalf("user profile: %d", status)
	}
}

func TestHubRegister(t *testing.T) {
	r := newRig(t)
	fb, ig := r.connect()
	for _, id := range []engine.ID{fb, ig} {
		status, body := r.Call("POST", "/hubregister/", map[string]any{"id": id, "name": "whatever the client sends"})
		if status != 200 || body["success"] != true {
			t.Fatalf("hubregister %d: %d %v", id, status, body)
		}
	}
	subs := r.graph.Requests("POST /" + pageID + "/subscribed_apps")
	if len(subs) != 2 || !strings.Contains(string(subs[0].Body), "messages") || subs[0].Token != pageToken {
		t.Fatalf("subscriptions %+v", subs)
	}
	if status, _ := r.Call("POST", "/hubregister/", map[string]any{"id": 999}); status != 404 {
		t.Fatalf("unknown connection: %d", status)
	}
	r.graph.Fail("POST /"+pageID+"/subscribed_apps", graphfake.Failure{Status: 403, Code: 200, Message: "Permissions error"})
	if status, body := r.Call("POST", "/hubregister/", map[string]any{"id": fb}); status != 502 || body["error"] != "ERR_CHANNEL_REFUSED" {
		t.Fatalf("refused subscription: %d %v", status, body)
	}
}

func TestWebhookMessengerAndInstagram(t *testing.T) {
	r := newRig(t)
	fb, ig := r.connect()
	// Handshake.
	if s, _ := r.Call("GET", "/meta/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1", nil); s != 403 {
		t.Fatalf("bad verify token: %d", s)
	}
	events := `[
		{"sender":{"id":"24000000000001"},"recipient":{"id":"` + pageID + `"},"timestamp":1700000000123,
		 "message":{"mid":"m_AAA1","text":"Oi, tem horário?"}},
		{"sender":{"id":"24000000000001"},"recipient":{"id":"` + pageID + `"},"timestamp":1700000000456,
		 "message":{"mid":"m_AAA2","reply_to":{"mid":"m_out5"},"attachments":[{"type":"image","payload":{"url":"` + r.cdn.URL + `/a.png"}},{"type":"image","payload":{"url":"` + r.cdn.URL + `/gone.png"}}]}},
		{"sender":{"id":"` + pageID + `"},"recipient":{"id":"24000000000001"},"timestamp":1700000000789,
		 "message":{"mid":"m_ECHO1","is_echo":true,"app_id":263902037430900,"text":"Respondido pelo inbox"}},
		{"sender":{"id":"` + pageID + `"},"recipient":{"id":"24000000000001"},"timestamp":1700000000790,
		 "message":{"mid":"m_ECHO2","is_echo":true,"app_id":` + "1517000000" + `,"text":"enviado por nós"}},
		{"sender":{"id":"24000000000001"},"recipient":{"id":"` + pageID + `"},"delivery":{"mids":["m_out5"],"watermark":1700000000000}},
		{"sender":{"id":"24000000000001"},"recipient":{"id":"` + pageID + `"},"read":{"watermark":1700000000000}}]`
	r.graph.Lock()
	r.graph.Objects["24000000000001"] = map[string]any{"first_name": "Joana", "last_name": "Lima", "profile_pic": "https://cdn/p.jpg", "id": "24000000000001"}
	r.graph.Objects["IGSID1"] = map[string]any{"name": "", "username": "joana.lima", "id": "IGSID1"}
	r.graph.Unlock()
	if s := r.postSigned(pageEvent("page", pageID, events)); s != 200 {
		t.Fatalf("page web-hook: %d", s)
	}
	in, rc, _ := r.Actors.For(fb).Snapshot()
	if len(in) != 4 {
		t.Fatalf("inbound %+v", in)
	}
	if in[0].ProviderID != "m_AAA1" || in[0].From.Number != "fb:24000000000001" || in[0].Body != "Oi, tem horário?" || in[0].At.UnixMilli() != 1700000000123 ||
		in[0].From.Name != "Joana Lima" || in[0].From.ProfilePicURL != "https://cdn/p.jpg" {
		t.Fatalf("text %+v", in[0])
	}
	if in[1].MediaType != engine.MediaImage || in[1].MediaPath == "" || in[1].QuotedProviderID != "m_out5" {
		t.Fatalf("image %+v", in[1])
	}
	if in[2].ProviderID != "m_AAA2/1" || in[2].MediaType != "" || in[2].Body != "[image]" {
		t.Fatalf("gone attachment %+v", in[2])
	}
	if !in[3].FromMe || in[3].From.Number != "fb:24000000000001" || in[3].ProviderID != "m_ECHO1" {
		t.Fatalf("echo %+v", in[3])
	}
	if n := len(r.graph.Requests("GET /24000000000001")); n != 1 {
		t.Fatalf("profile looked up %d times, want once (cached)", n)
	}
	if len(rc) != 1 || rc[0] != (engine.Receipt{ProviderID: "m_out5", Ack: engine.AckSent}) {
		t.Fatalf("receipts %+v", rc)
	}
	// Instagram: its account id in the entry, a read naming the message.
	igEvents := `[{"sender":{"id":"IGSID1"},"recipient":{"id":"` + igID + `"},"timestamp":1700000001000,"message":{"mid":"aWdfZAG1","text":"oi pelo insta"}},
		{"sender":{"id":"IGSID1"},"recipient":{"id":"` + igID + `"},"read":{"mid":"aWdfOUT"}}]`
	if s := r.postSigned(pageEvent("instagram", igID, igEvents)); s != 200 {
		t.Fatalf("instagram web-hook: %d", s)
	}
	in, rc, _ = r.Actors.For(ig).Snapshot()
	if len(in) != 1 || in[0].From.Number != "ig:IGSID1" || in[0].From.Name != "joana.lima" || len(rc) != 1 || rc[0].Ack != engine.AckRead {
		t.Fatalf("instagram %+v %+v", in, rc)
	}
}

func TestWebhookSignatureRedeliveryHostile(t *testing.T) {
	r := newRig(t)
	fb, _ := r.connect()
	body := pageEvent("page", pageID, `[{"sender":{"id":"24"},"recipient":{"id":"`+pageID+`"},"message":{"mid":"m_R1","text":"x"}}]`)
	for name, sig := range map[string]string{"missing": "", "wrong": Sign("other", []byte(body)), "garbage": "sha256=xyz"} {
		if s := r.post([]byte(body), sig); s != 401 {
			t.Fatalf("%s signature: %d", name, s)
		}
	}
	if in, _, _ := r.Actors.For(fb).Snapshot(); len(in) != 0 {
		t.Fatalf("unsigned stored %+v", in)
	}
	if !strings.Contains(r.Logs.String(), "bad or missing signature") {
		t.Fatal("refusal not logged")
	}
	sink := r.Actors.For(fb)
	sink.Mu.Lock()
	sink.FailN = 1
	sink.Mu.Unlock()
	if s := r.postSigned(body); s != 500 {
		t.Fatalf("failed record: %d", s)
	}
	for i := 0; i < 2; i++ {
		if s := r.postSigned(body); s != 200 {
			t.Fatalf("re-delivery: %d", s)
		}
	}
	if _, _, stored := sink.Snapshot(); stored != 1 {
		t.Fatalf("stored %d times", stored)
	}
	cases := []struct {
		name, body string
		status     int
	}{
		{"truncated", `{"object":"page","entry":[{"id":"1","messaging":[{"sender":`, 400},
		{"wrong types", `{"object":"page","entry":[{"id":5,"messaging":{}}]}`, 400},
		{"other object", `{"object":"whatsapp_business_account","entry":[]}`, 400},
		{"no sender", pageEvent("page", pageID, `[{"message":{"mid":"m_N","text":"x"}}]`), 200},
		{"no mid", pageEvent("page", pageID, `[{"sender":{"id":"1"},"message":{"text":"x"}}]`), 200},
		{"unknown page", pageEvent("page", "999", `[{"sender":{"id":"1"},"message":{"mid":"m_U","text":"x"}}]`), 200},
		{"bad attachment url", pageEvent("page", pageID, `[{"sender":{"id":"1"},"message":{"mid":"m_F","attachments":[{"type":"file","payload":{"url":"file:///etc/passwd"}}]}}]`), 200},
		{"huge", `{"object":"page","pad":"` + strings.Repeat("a", 70<<10) + `"}`, 413},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if s := r.postSigned(c.body); s != c.status {
				t.Fatalf("got %d, want %d", s, c.status)
			}
		})
	}
	in, _, _ := sink.Snapshot()
	last := in[len(in)-1]
	if last.ProviderID != "m_F" || last.MediaType != "" || last.MediaPath != "" {
		t.Fatalf("file:// attachment fetched: %+v", last)
	}
}

func TestSend(t *testing.T) {
	r := newRig(t)
	fb, ig := r.connect()
	ctx := context.Background()
	conn, _ := r.Conns.Get(ctx, 1, fb)
	ch, _ := r.svc.NewChannel(conn)
	msg := engine.OutboundMessage{MessageID: 1, To: "fb:24000000000001", Body: "Temos sim!"}
	if _, err := ch.Send(ctx, msg); !errors.Is(err, engine.ErrChannelTemporary) {
		t.Fatalf("before start: %v", err)
	}
	if err := ch.Start(ctx, &recSink{}); err != nil {
		t.Fatal(err)
	}
	pid, err := ch.Send(ctx, msg)
	if err != nil || !strings.HasPrefix(pid, "m_out") {
		t.Fatalf("send: %q %v", pid, err)
	}
	req := r.graph.Requests("POST /" + pageID + "/messages")[0].JSON()
	if req["messaging_type"] != "RESPONSE" || req["recipient"].(map[string]any)["id"] != "24000000000001" ||
		req["message"].(map[string]any)["text"] != "Temos sim!" {
		t.Fatalf("send request %v", req)
	}
	file, _ := r.Media.Save(ctx, 1, strings.NewReader(string(pngBytes)), "a.png", "image/png")
	if pid, err := ch.Send(ctx, engine.OutboundMessage{MessageID: 2, To: "fb:24000000000001", MediaType: engine.MediaImage, MediaPath: file.Path}); err != nil || pid == "" {
		t.Fatalf("send image: %v", err)
	}
	reqs := r.graph.Requests("POST /" + pageID + "/messages")
	up := reqs[len(reqs)-1]
	if !strings.Contains(up.Form["message"], `"type":"image"`) || string(up.File) != string(pngBytes) {
		t.Fatalf("attachment upload %+v", up.Form)
	}
	// Instagram sends through its page.
	iconn, _ := r.Conns.Get(ctx, 1, ig)
	ich, _ := r.svc.NewChannel(iconn)
	_ = ich.Start(ctx, &recSink{})
	if _, err := ich.Send(ctx, engine.OutboundMessage{To: "ig:IGSID1", Body: "oi"}); err != nil {
		t.Fatal(err)
	}
	reqs = r.graph.Requests("POST /" + pageID + "/messages")
	if reqs[len(reqs)-1].JSON()["recipient"].(map[string]any)["id"] != "IGSID1" {
		t.Fatal("instagram recipient")
	}
	route := "POST /" + pageID + "/messages"
	for _, c := range []struct {
		name      string
		fail      graphfake.Failure
		temporary bool
		code      engine.Code
	}{
		{"down", graphfake.Failure{Status: 503, Code: 2, Message: "Service temporarily unavailable"}, true, engine.ErrSendingWappMsg},
		{"throttled", graphfake.Failure{Status: 400, Code: 613, Message: "Calls to this api have exceeded the rate limit."}, true, engine.ErrSendingWappMsg},
		{"window closed", graphfake.Failure{Status: 400, Code: 10, Subcode: 2018278, Message: "This message is sent outside of allowed window."}, false, engine.ErrChannelRefused},
		{"user gone", graphfake.Failure{Status: 400, Code: 551, Message: "This person isn't available right now."}, false, engine.ErrWappInvalidContact},
		{"token", graphfake.Failure{Status: 400, Code: 190, Message: "Error validating access token"}, false, engine.ErrChannelCredentials},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.graph.Fail(route, c.fail)
			_, err := ch.Send(ctx, msg)
			if errors.Is(err, engine.ErrChannelTemporary) != c.temporary || engine.CodeOf(err) != c.code {
				t.Fatalf("%v: code %s", err, engine.CodeOf(err))
			}
			if _, err := ch.Send(ctx, msg); err != nil {
				t.Fatalf("next attempt: %v", err)
			}
		})
	}
}

// A customer profile lookup has its own short budget inside the delivery's: a Graph
// API that hangs or fails costs the delivery at most ProfileTimeout, the message is
// recorded without a name, and the failure is remembered (no lookup per message)
// until ProfileRetry passed.
func TestProfileLookupTimeoutAndFailureCache(t *testing.T) {
	r := newRig(t)
	r.svc.cfg.ProfileTimeout = 150 * time.Millisecond
	fb, _ := r.connect()
	msg := func(sender, mid string) string {
		return pageEvent("page", pageID, `[{"sender":{"id":"`+sender+`"},"recipient":{"id":"`+pageID+`"},"timestamp":1700000000123,
			"message":{"mid":"`+mid+`","text":"oi"}}]`)
	}
	const hanging, failing = "24000000000077", "24000000000078"
	r.graph.Lock()
	r.graph.Objects[hanging] = map[string]any{"first_name": "Rita", "last_name": "Sá", "id": hanging}
	r.graph.Objects[failing] = map[string]any{"first_name": "Davi", "id": failing}
	r.graph.Unlock()
	r.graph.Fail("GET /"+hanging, graphfake.Failure{Hang: true})
	r.graph.Fail("GET /"+failing, graphfake.Failure{Status: 500, Code: 2, Message: "Service temporarily unavailable"})

	start := time.Now()
	if s := r.postSigned(msg(hanging, "m_H1")); s != 200 {
		t.Fatalf("delivery with a hanging profile: %d", s)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("delivery took %v with a hanging profile lookup", d)
	}
	for i, mid := range []string{"m_F1", "m_F2"} {
		if s := r.postSigned(msg(failing, mid)); s != 200 {
			t.Fatalf("delivery %d with a failing profile: %d", i, s)
		}
	}
	if s := r.postSigned(msg(hanging, "m_H2")); s != 200 {
		t.Fatalf("second delivery: %d", s)
	}
	in, _, _ := r.Actors.For(fb).Snapshot()
	if len(in) != 4 {
		t.Fatalf("inbound %+v", in)
	}
	for _, m := range in {
		if m.From.Name != "" {
			t.Fatalf("name from a failed lookup: %+v", m)
		}
	}
	for _, id := range []string{hanging, failing} {
		if n := len(r.graph.Requests("GET /" + id)); n != 1 {
			t.Fatalf("profile %s looked up %d times, want once (failure cached)", id, n)
		}
	}

	// Once the retry time passed, the lookup is tried again (and now answers).
	r.svc.profiles.mu.Lock()
	for k, p := range r.svc.profiles.m {
		if !p.retry.IsZero() {
			p.retry = time.Now().Add(-time.Second)
			r.svc.profiles.m[k] = p
		}
	}
	r.svc.profiles.mu.Unlock()
	if s := r.postSigned(msg(hanging, "m_H3")); s != 200 {
		t.Fatalf("delivery after the retry time: %d", s)
	}
	in, _, _ = r.Actors.For(fb).Snapshot()
	if last := in[len(in)-1]; last.ProviderID != "m_H3" || last.From.Name != "Rita Sá" {
		t.Fatalf("after retry %+v", last)
	}
	if n := len(r.graph.Requests("GET /" + hanging)); n != 2 {
		t.Fatalf("profile looked up %d times after the retry time, want 2", n)
	}
}
