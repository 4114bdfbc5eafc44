package waba

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"atende/engine"
	"atende/transport/channel/channeltest"
	"atende/transport/channel/meta/graphfake"
)

const (
	appID      = "1517000000"
	configID   = "987654321012345"
	signupCode = "AQBx-embedded-code_0123"
	bizToken   = "EAAG-business-token"
)

// embeddedRig is a rig whose service knows the app (id, secret, embedded signup
// configuration) and whose fake accepts signupCode for bizToken.
func embeddedRig(t *testing.T, id int64, config string) *rig {
	t.Helper()
	r, logs := newRig(t)
	t.Cleanup(func() { // neither the app secret, nor the code, nor the business token is logged
		for _, secret := range []string{appSecret, signupCode, bizToken} {
			if strings.Contains(logs.String(), secret) {
				t.Errorf("%q in the logs", secret)
			}
		}
	})
	r.graph.Lock()
	r.graph.AppID, r.graph.AppSecret = appID, appSecret
	r.graph.Codes[signupCode] = bizToken
	r.graph.Objects[phoneID] = map[string]any{"display_phone_number": "+55 65 99999-0000", "verified_name": "Clínica Sol", "id": phoneID}
	r.graph.Unlock()
	svc, err := New(Config{GraphURL: r.graph.URL(), GraphVersion: graphfake.Version, AppSecret: appSecret, VerifyToken: verifyToken,
		AppID: id, ConfigID: config, CallTimeout: 5 * time.Second},
		Deps{Connections: r.Conns, Credentials: r.Creds, Media: r.Media, Actors: r.Actors, Tickets: r, Logger: zerolog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	r.svc = svc
	r.Router, r.Srv = channeltest.Serve(t)
	svc.Routes(r.Router)
	return r
}

func signupBody() map[string]string {
	return map[string]string{"code": signupCode, "wabaId": wabaID, "phoneNumberId": phoneID}
}

func TestEmbeddedSignupCreatesConnection(t *testing.T) {
	r := embeddedRig(t, 1517000000, configID)
	status, body := r.Call("POST", "/wacloudapi/embedded", signupBody())
	if status != 200 {
		t.Fatalf("embedded: %d %v", status, body)
	}
	id := engine.ID(body["id"].(float64))
	conn, err := r.Conns.Get(context.Background(), 1, id)
	if err != nil || conn.Channel != engine.ChannelWABA || conn.Number != "5565999990000" || conn.Name != "Clínica Sol" {
		t.Fatalf("connection %+v, %v", conn, err)
	}
	cred, err := r.Creds.Get(context.Background(), id)
	if err != nil || cred.Token != bizToken || cred.ExternalID != phoneID || cred.AccountID != wabaID {
		t.Fatalf("credentials %v, %v", cred, err)
	}
	// The code was exchanged with the app's id and secret.
	ex := r.graph.Requests("GET /oauth/access_token")
	if len(ex) != 1 || ex[0].Form["client_id"] != appID || ex[0].Form["code"] != signupCode || ex[0].Form["grant_type"] != "" {
		t.Fatalf("exchange %+v", ex)
	}
	// Subscribed, registered with a random six-digit PIN that is kept, read — all with
	// the business token.
	sub := r.graph.Requests("POST /" + wabaID + "/subscribed_apps")
	reg := r.graph.Requests("POST /" + phoneID + "/register")
	read := r.graph.Requests("GET /" + phoneID)
	if len(sub) != 1 || sub[0].Token != bizToken || len(reg) != 1 || reg[0].Token != bizToken || len(read) != 1 || read[0].Token != bizToken {
		t.Fatalf("subscribe %+v, register %+v, read %+v", sub, reg, read)
	}
	pin, _ := reg[0].JSON()["pin"].(string)
	if reg[0].JSON()["messaging_product"] != "whatsapp" || len(pin) != 6 || !decimal(pin) || cred.Secret != pin {
		t.Fatalf("register body %s, stored pin %q", reg[0].Body, cred.Secret)
	}
	if len(r.Actors.Started) != 1 || r.Actors.Started[0] != id {
		t.Fatalf("actor starts %v", r.Actors.Started)
	}
	for k, v := range body {
		if s, ok := v.(string); ok && (strings.Contains(s, bizToken) || strings.Contains(s, pin)) {
			t.Fatalf("answer field %s leaks a secret", k)
		}
	}
	// Signing up the same number again reuses its PIN (Meta refuses another one) and
	// renews the token of the same connection; so does a manual registration.
	r.graph.Lock()
	r.graph.Codes["code-2"] = bizToken + "-2"
	r.graph.Unlock()
	again := signupBody()
	again["code"] = "code-2"
	if status, body := r.Call("POST", "/wacloudapi/embedded", again); status != 200 || engine.ID(body["id"].(float64)) != id {
		t.Fatalf("again: %d %v", status, body)
	}
	if again := r.register(); again != id {
		t.Fatalf("manual re-register gave %d", again)
	}
	if cred, _ := r.Creds.Get(context.Background(), id); cred.Secret != pin || cred.Token != userToken {
		t.Fatalf("after renewals: %v (pin %q)", cred, cred.Secret)
	}
}

func TestEmbeddedSignupGivenPIN(t *testing.T) {
	r := embeddedRig(t, 1517000000, configID)
	b := signupBody()
	b["pin"] = "042917"
	if status, body := r.Call("POST", "/wacloudapi/embedded", b); status != 200 {
		t.Fatalf("embedded: %d %v", status, body)
	}
	reg := r.graph.Requests("POST /" + phoneID + "/register")
	if len(reg) != 1 || reg[0].JSON()["pin"] != "042917" {
		t.Fatalf("register %+v", reg)
	}
}

// Each step's failure answers its code and stores nothing.
func TestEmbeddedSignupStepFailures(t *testing.T) {
	cases := []struct {
		name   string
		route  string
		fail   graphfake.Failure
		body   map[string]string
		status int
		code   string
	}{
		{"bad code", "", graphfake.Failure{}, map[string]string{"code": "not-issued"}, 502, "ERR_CHANNEL_REFUSED"},
		{"exchange down", "GET /oauth/access_token", graphfake.Failure{Status: 500, Code: 2, Message: "Service temporarily unavailable"}, nil, 503, "ERR_UNAVAILABLE"},
		{"exchange gateway", "GET /oauth/access_token", graphfake.Failure{Status: 502, Raw: "<html>Bad Gateway</html>"}, nil, 503, "ERR_UNAVAILABLE"},
		{"exchange no token", "GET /oauth/access_token", graphfake.Failure{Status: 200, Raw: `{"token_type":"bearer"}`}, nil, 502, "ERR_CHANNEL_REFUSED"},
		{"subscribe token refused", "POST /" + wabaID + "/subscribed_apps", graphfake.Failure{Status: 401, Code: 190, Message: "Error validating access token"}, nil, 400, "ERR_CHANNEL_CREDENTIALS"},
		{"subscribe refused", "POST /" + wabaID + "/subscribed_apps", graphfake.Failure{Status: 400, Code: 200, Message: "Permissions error"}, nil, 502, "ERR_CHANNEL_REFUSED"},
		{"register pin mismatch", "POST /" + phoneID + "/register", graphfake.Failure{Status: 400, Code: 133005, Message: "Two step verification PIN Mismatch"}, nil, 502, "ERR_CHANNEL_REFUSED"},
		{"register throttled", "POST /" + phoneID + "/register", graphfake.Failure{Status: 400, Code: 80007, Message: "Rate limit"}, nil, 503, "ERR_UNAVAILABLE"},
		{"read number down", "GET /" + phoneID, graphfake.Failure{Status: 503, Code: 1, Message: "An unknown error occurred"}, nil, 503, "ERR_UNAVAILABLE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := embeddedRig(t, 1517000000, configID)
			if c.route != "" {
				r.graph.Fail(c.route, c.fail)
			}
			b := signupBody()
			for k, v := range c.body {
				b[k] = v
			}
			status, body := r.Call("POST", "/wacloudapi/embedded", b)
			if status != c.status || body["error"] != c.code {
				t.Fatalf("got %d %v, want %d %s", status, body, c.status, c.code)
			}
			if list, _ := r.Conns.List(context.Background(), 1); len(list) != 0 {
				t.Fatalf("failed signup left connections: %+v", list)
			}
			if _, err := r.Creds.ByExternal(context.Background(), engine.ProviderWABA, phoneID); engine.CodeOf(err) != engine.ErrNotFound {
				t.Fatalf("failed signup left credentials: %v", err)
			}
		})
	}
}

func TestEmbeddedSignupRefusals(t *testing.T) {
	r := embeddedRig(t, 1517000000, configID)
	long := strings.Repeat("1", 33)
	cases := []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"not json", `{"code":`, 400, "ERR_INVALID_JSON", ""},
		{"trailing", `{"code":"a"} {}`, 400, "ERR_INVALID_JSON", ""},
		{"wrong types", `{"code":1,"wabaId":1,"phoneNumberId":true}`, 400, "ERR_INVALID_JSON", ""},
		{"empty", `{}`, 400, "ERR_VALIDATION", "code"},
		{"missing waba", map[string]string{"code": signupCode, "phoneNumberId": phoneID}, 400, "ERR_VALIDATION", "wabaId"},
		{"missing phone", map[string]string{"code": signupCode, "wabaId": wabaID}, 400, "ERR_VALIDATION", "phoneNumberId"},
		{"non-numeric waba", map[string]string{"code": signupCode, "wabaId": "../me", "phoneNumberId": phoneID}, 400, "ERR_VALIDATION", "wabaId"},
		{"non-numeric phone", map[string]string{"code": signupCode, "wabaId": wabaID, "phoneNumberId": "1?fields=x"}, 400, "ERR_VALIDATION", "phoneNumberId"},
		{"oversized id", map[string]string{"code": signupCode, "wabaId": long, "phoneNumberId": phoneID}, 400, "ERR_VALIDATION", "wabaId"},
		{"oversized code", map[string]string{"code": strings.Repeat("a", maxCode+1), "wabaId": wabaID, "phoneNumberId": phoneID}, 400, "ERR_VALIDATION", "code"},
		{"code with spaces", map[string]string{"code": "a b&c=d", "wabaId": wabaID, "phoneNumberId": phoneID}, 400, "ERR_VALIDATION", "code"},
		{"short pin", map[string]string{"code": signupCode, "wabaId": wabaID, "phoneNumberId": phoneID, "pin": "123"}, 400, "ERR_VALIDATION", "pin"},
		{"letters pin", map[string]string{"code": signupCode, "wabaId": wabaID, "phoneNumberId": phoneID, "pin": "12a456"}, 400, "ERR_VALIDATION", "pin"},
		{"huge", `{"code":"` + strings.Repeat("9", 70<<10) + `"}`, 413, "ERR_BODY_TOO_LARGE", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := r.Call("POST", "/wacloudapi/embedded", c.body)
			if status != c.status || body["error"] != c.code {
				t.Fatalf("got %d %v, want %d %s", status, body, c.status, c.code)
			}
			if c.field != "" {
				if f, _ := body["fields"].(map[string]any); f[c.field] == nil {
					t.Fatalf("field %s not named: %v", c.field, body)
				}
			}
		})
	}
	if n := len(r.graph.Requests("")); n != 0 {
		t.Fatalf("refused requests reached the Graph API %d times", n)
	}
	// A user profile may neither sign up nor read the configuration.
	r.Router.P.Profile = engine.ProfileUser
	if status, _ := r.Call("POST", "/wacloudapi/embedded", signupBody()); status != 403 {
		t.Fatalf("user profile signup: %d", status)
	}
	if status, _ := r.Call("GET", "/wacloudapi/embedded/config", nil); status != 403 {
		t.Fatalf("user profile config: %d", status)
	}
}

func TestEmbeddedSignupNeedsAppConfig(t *testing.T) {
	r, _ := newRig(t) // app secret, no app id
	status, body := r.Call("POST", "/wacloudapi/embedded", signupBody())
	if status != 503 || body["error"] != "ERR_UNAVAILABLE" {
		t.Fatalf("unconfigured: %d %v", status, body)
	}
	if n := len(r.graph.Requests("")); n != 0 {
		t.Fatalf("unconfigured signup reached the Graph API %d times", n)
	}
	status, body = r.Call("GET", "/wacloudapi/embedded/config", nil)
	if status != 200 || body["enabled"] != false || body["appId"] != "" || body["configId"] != "" {
		t.Fatalf("config unconfigured: %d %v", status, body)
	}
}

func TestEmbeddedConfig(t *testing.T) {
	r := embeddedRig(t, 1517000000, configID)
	status, body := r.Call("GET", "/wacloudapi/embedded/config", nil)
	if status != 200 || body["enabled"] != true || body["appId"] != appID || body["configId"] != configID || len(body) != 3 {
		t.Fatalf("config: %d %v", status, body)
	}
	// Without the configuration id the browser cannot start the pop-up: disabled, but
	// the server half still works for a client that has the code.
	r = embeddedRig(t, 1517000000, "")
	if status, body := r.Call("GET", "/wacloudapi/embedded/config", nil); status != 200 || body["enabled"] != false {
		t.Fatalf("config without config id: %d %v", status, body)
	}
	if status, body := r.Call("POST", "/wacloudapi/embedded", signupBody()); status != 200 {
		t.Fatalf("signup without config id: %d %v", status, body)
	}
}
