// Package graphfake is a local Meta Graph API for tests: an httptest server that
// speaks the real wire format of the endpoints the WABA, Facebook and Instagram
// adapters call — Cloud API send and media, message templates, page listing,
// Messenger Send API, app subscriptions, the token exchanges (long-lived token, and
// the embedded signup's code), phone number registration — with the real error body
// {"error":{"message","type","code","error_subcode","fbtrace_id"}}. Tests inject
// failures per route (Graph errors, raw gateway answers, requests left unanswered)
// and read back every request.
package graphfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"atende/transport/channel/channeltest"
)

// Version is the API version path segment the fake serves.
const Version = "v21.0"

// Request is one call the fake received.
type Request struct {
	Method, Path string // Path without the version prefix, e.g. "/123/messages"
	Token        string
	Body         []byte            // JSON bodies
	Form         map[string]string // multipart fields
	FileName     string
	File         []byte
}

// JSON decodes the request body.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Failure is an error answer injected on a route.
type Failure struct {
	Status  int
	Code    int
	Subcode int
	Message string
	// Raw, when set, is the answer's body (with Status) instead of the Graph error: a
	// gateway's page, or a 2xx the client cannot use.
	Raw string
	// Hang reads the request in full and never answers: the handler waits until the
	// client gives up (its timeout) — the provider may have accepted the message.
	Hang bool
}

// Page is a Facebook page the user of Token administers.
type Page struct {
	ID, Name, Token string
	InstagramID     string // linked instagram_business_account, if any
}

// MediaItem is a media file the Cloud API holds.
type MediaItem struct {
	MIME string
	Data []byte
}

// Fake is the server. Fill its maps before use; guarded by mu afterwards.
type Fake struct {
	Server *httptest.Server
	// Tokens are the accepted bearer tokens; any other is refused with code 190.
	Tokens map[string]bool
	// AppSecret is the app's secret the token exchange checks; empty refuses it.
	AppSecret string
	// AppID, when set, is the client_id the token exchanges require.
	AppID string

	mu        sync.Mutex
	requests  []Request
	failures  channeltest.Failures[Failure]
	Objects   map[string]map[string]any // GET /{id} answers (phone numbers, templates)
	Media     map[string]MediaItem
	Templates map[string][]map[string]any // by business account id
	Pages     map[string][]Page           // by user id
	// Codes are the embedded signup's login codes (FB.login response_type code) and
	// the business token each one exchanges for; a code is good once.
	Codes map[string]string
	// Registered holds the phone number ids registered for Cloud API messaging
	// (POST /{phone-number-id}/register), with their two-step verification PIN. A
	// number registered again must repeat its PIN.
	Registered map[string]string
	seq        int
}

// New starts a fake accepting tokens.
func New(tokens ...string) *Fake {
	f := &Fake{Tokens: map[string]bool{}, failures: channeltest.Failures[Failure]{}, Objects: map[string]map[string]any{},
		Media: map[string]MediaItem{}, Templates: map[string][]map[string]any{}, Pages: map[string][]Page{},
		Codes: map[string]string{}, Registered: map[string]string{}}
	for _, t := range tokens {
		f.Tokens[t] = true
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// URL is the base URL to configure (GraphURL).
func (f *Fake) URL() string { return f.Server.URL }

// Close stops the server.
func (f *Fake) Close() { f.Server.Close() }

// Fail makes the next len(fs) calls of route ("POST /123/messages") fail in turn.
func (f *Fake) Fail(route string, fs ...Failure) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures.Add(route, fs...)
}

// Requests returns the calls received on route ("" for all).
func (f *Fake) Requests(route string) []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Request
	for _, r := range f.requests {
		if route == "" || r.Method+" "+r.Path == route {
			out = append(out, r)
		}
	}
	return out
}

// Lock and Unlock guard the exported maps once the server is in use.
func (f *Fake) Lock()   { f.mu.Lock() }
func (f *Fake) Unlock() { f.mu.Unlock() }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func graphError(w http.ResponseWriter, fl Failure) {
	typ := "OAuthException"
	msg := fl.Message
	if msg == "" {
		msg = "(#" + fmt.Sprint(fl.Code) + ") error"
	}
	body := map[string]any{"message": msg, "type": typ, "code": fl.Code, "fbtrace_id": "AbCdEf123"}
	if fl.Subcode != 0 {
		body["error_subcode"] = fl.Subcode
	}
	writeJSON(w, fl.Status, map[string]any{"error": body})
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/download/") {
		f.download(w, r)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/"+Version)
	if !ok {
		graphError(w, Failure{Status: 400, Code: 2500, Message: "Unknown path components"})
		return
	}
	req := Request{Method: r.Method, Path: path}
	if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		req.Token = strings.TrimPrefix(h, "Bearer ")
	} else {
		req.Token = r.URL.Query().Get("access_token")
	}
	var form bool
	if req.Form, req.FileName, req.File, form = channeltest.ReadMultipart(r); !form {
		req.Body, _ = io.ReadAll(r.Body)
	}
	oauth := r.Method == http.MethodGet && path == "/oauth/access_token"
	if oauth { // recorded with its query: the exchange has no bearer token
		q := r.URL.Query()
		req.Form = map[string]string{"grant_type": q.Get("grant_type"), "client_id": q.Get("client_id"),
			"client_secret": q.Get("client_secret"), "code": q.Get("code")}
	}
	route := r.Method + " " + path
	f.mu.Lock()
	f.requests = append(f.requests, req)
	fl := f.failures.Next(route)
	f.seq++
	seq := f.seq
	known := f.Tokens[req.Token]
	f.mu.Unlock()
	if fl != nil {
		if !channeltest.AnswerRaw(w, r, fl.Hang, fl.Status, fl.Raw) {
			graphError(w, *fl)
		}
		return
	}
	if oauth {
		f.exchange(w, r)
		return
	}
	if !known {
		graphError(w, Failure{Status: 401, Code: 190, Message: "Invalid OAuth access token - Cannot parse access token"})
		return
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "messages":
		f.messages(w, req, parts[0], seq)
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "media":
		writeJSON(w, 200, map[string]string{"id": fmt.Sprintf("media-up-%d", seq)})
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "subscribed_apps":
		writeJSON(w, 200, map[string]bool{"success": true})
	case r.Method == http.MethodPost && len(parts) == 2 && parts[1] == "register":
		f.register(w, req, parts[0])
	case r.Method == http.MethodGet && len(parts) == 2 && parts[1] == "message_templates":
		f.mu.Lock()
		all := f.Templates[parts[0]]
		f.mu.Unlock()
		data := []map[string]any{}
		name := r.URL.Query().Get("name") // Graph filters on a part of the name
		for _, t := range all {
			if n, _ := t["name"].(string); strings.Contains(n, name) {
				data = append(data, t)
			}
		}
		writeJSON(w, 200, map[string]any{"data": data, "paging": map[string]any{"cursors": map[string]string{"before": "MAZDZD", "after": "MjQZD"}}})
	case r.Method == http.MethodGet && len(parts) == 2 && parts[1] == "accounts":
		f.accounts(w, parts[0])
	case r.Method == http.MethodGet && len(parts) == 1:
		f.object(w, r, parts[0])
	default:
		graphError(w, Failure{Status: 400, Code: 100, Message: "Unsupported request - method type: " + strings.ToLower(r.Method)})
	}
}

func (f *Fake) messages(w http.ResponseWriter, req Request, sender string, seq int) {
	body := req.JSON()
	if body == nil && req.Form != nil {
		body = map[string]any{}
		var rcpt map[string]any
		_ = json.Unmarshal([]byte(req.Form["recipient"]), &rcpt)
		body["recipient"] = rcpt
	}
	if body["messaging_product"] == "whatsapp" {
		to, _ := body["to"].(string)
		if to == "" {
			graphError(w, Failure{Status: 400, Code: 100, Message: "(#100) The parameter to is required."})
			return
		}
		writeJSON(w, 200, map[string]any{"messaging_product": "whatsapp",
			"contacts": []map[string]string{{"input": to, "wa_id": to}},
			"messages": []map[string]string{{"id": fmt.Sprintf("wamid.out%d", seq)}}})
		return
	}
	rcpt, _ := body["recipient"].(map[string]any)
	id, _ := rcpt["id"].(string)
	if id == "" {
		graphError(w, Failure{Status: 400, Code: 100, Message: "(#100) param recipient must be non-empty."})
		return
	}
	writeJSON(w, 200, map[string]string{"recipient_id": id, "message_id": fmt.Sprintf("m_out%d", seq)})
}

func (f *Fake) accounts(w http.ResponseWriter, user string) {
	f.mu.Lock()
	pages := f.Pages[user]
	f.mu.Unlock()
	data := []map[string]any{}
	for _, p := range pages {
		d := map[string]any{"id": p.ID, "name": p.Name, "access_token": p.Token, "category": "Business",
			"tasks": []string{"ANALYZE", "ADVERTISE", "MESSAGING", "MODERATE", "CREATE_CONTENT", "MANAGE"}}
		if p.InstagramID != "" {
			d["instagram_business_account"] = map[string]string{"id": p.InstagramID}
		}
		data = append(data, d)
	}
	writeJSON(w, 200, map[string]any{"data": data, "paging": map[string]any{"cursors": map[string]string{"before": "QVFIU", "after": "QVFIUm"}}})
}

func (f *Fake) object(w http.ResponseWriter, r *http.Request, id string) {
	f.mu.Lock()
	obj, okObj := f.Objects[id]
	item, okMedia := f.Media[id]
	f.mu.Unlock()
	switch {
	case okMedia:
		writeJSON(w, 200, map[string]any{"messaging_product": "whatsapp", "url": f.Server.URL + "/download/" + id,
			"mime_type": item.MIME, "sha256": "0", "file_size": len(item.Data), "id": id})
	case okObj:
		writeJSON(w, 200, selectFields(obj, r.URL.Query().Get("fields")))
	default:
		graphError(w, Failure{Status: 400, Code: 100, Subcode: 33,
			Message: "Unsupported get request. Object with ID '" + id + "' does not exist, cannot be loaded due to missing permissions, or does not support this operation."})
	}
}

// selectFields answers an object as Graph does a GET /{id}?fields=a,b: only the
// fields asked for that the object has, and always its id (a user profile asked for
// first_name,last_name,profile_pic answers those three and id). No fields: all.
func selectFields(obj map[string]any, fields string) map[string]any {
	if fields == "" {
		return obj
	}
	out := map[string]any{}
	for _, f := range strings.Split(fields, ",") {
		if v, ok := obj[strings.TrimSpace(f)]; ok {
			out[strings.TrimSpace(f)] = v
		}
	}
	if id, ok := obj["id"]; ok {
		out["id"] = id
	}
	return out
}

// download serves a media URL: like lookaside.fbsbx.com it needs the bearer token.
func (f *Fake) download(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/download/")
	tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	f.mu.Lock()
	item, ok := f.Media[id]
	known := f.Tokens[tok]
	f.mu.Unlock()
	if !known {
		graphError(w, Failure{Status: 401, Code: 190, Message: "Invalid OAuth access token"})
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", item.MIME)
	_, _ = w.Write(item.Data)
}

// exchange is GET /oauth/access_token, in Meta's two forms, both checking the app's
// secret (and AppID when set):
//   - grant_type=fb_exchange_token&client_id&client_secret&fb_exchange_token: a known
//     token gives a long-lived token ("<token>-long"), accepted from then on;
//   - client_id&client_secret&code (the embedded signup's code, no grant_type): a
//     code of Codes gives its business token, accepted from then on; the code is
//     spent. Both answer {"access_token","token_type":"bearer"} (the long-lived one
//     with expires_in); a refusal is the OAuthException Meta answers.
func (f *Fake) exchange(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	defer f.mu.Unlock()
	refuse := func(code int, msg string) {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": msg, "type": "OAuthException", "code": code, "fbtrace_id": "Ex"}})
	}
	if f.AppSecret == "" || q.Get("client_secret") != f.AppSecret || f.AppID != "" && q.Get("client_id") != f.AppID {
		refuse(1, "Error validating client secret.")
		return
	}
	if code := q.Get("code"); q.Get("grant_type") == "" && code != "" {
		tok, ok := f.Codes[code]
		if !ok {
			refuse(100, "Invalid verification code format.")
			return
		}
		delete(f.Codes, code)
		f.Tokens[tok] = true
		writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "bearer"})
		return
	}
	old := q.Get("fb_exchange_token")
	if q.Get("grant_type") != "fb_exchange_token" || !f.Tokens[old] {
		refuse(190, "Error validating access token")
		return
	}
	long := old + "-long"
	f.Tokens[long] = true
	writeJSON(w, 200, map[string]any{"access_token": long, "token_type": "bearer", "expires_in": 5183944})
}

// register is POST /{phone-number-id}/register {"messaging_product":"whatsapp","pin"}:
// a six-digit PIN registers the number ({"success":true}); a number already
// registered with another PIN is refused as Meta does (133005, PIN mismatch).
func (f *Fake) register(w http.ResponseWriter, req Request, phoneID string) {
	body := req.JSON()
	pin, _ := body["pin"].(string)
	if body["messaging_product"] != "whatsapp" {
		graphError(w, Failure{Status: 400, Code: 100, Message: "(#100) The parameter messaging_product is required."})
		return
	}
	if len(pin) != 6 || strings.Trim(pin, "0123456789") != "" {
		graphError(w, Failure{Status: 400, Code: 100, Message: "(#100) Param pin must be 6 characters long."})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if prev, ok := f.Registered[phoneID]; ok && prev != pin {
		graphError(w, Failure{Status: 400, Code: 133005, Message: "Two step verification PIN Mismatch"})
		return
	}
	f.Registered[phoneID] = pin
	writeJSON(w, 200, map[string]bool{"success": true})
}
