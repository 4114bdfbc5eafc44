// Package botfake is a local Telegram Bot API for tests, speaking the real wire
// format: {"ok":true,"result":…} or {"ok":false,"error_code":…,"description":…,
// "parameters":{"retry_after":n}}, the token in the path (/bot<token>/<method>,
// /file/bot<token>/<path>), JSON or multipart parameters, and getUpdates long polling
// with offsets. Tests inject failures per method and read back every call.
package botfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"atende/transport/channel/channeltest"
)

// API is the fake server.
type API struct {
	Srv   *httptest.Server
	token string
	botID int64

	mu       sync.Mutex
	calls    []Call
	failures channeltest.Failures[Failure]
	updates  []json.RawMessage // update_id = index + 1
	files    map[string][]byte // file path -> content
	webhook  map[string]any
	seq      int64
	changed  chan struct{}
}

// Call is one request the fake received.
type Call struct {
	Method   string
	Params   map[string]any
	FileName string
	File     []byte
}

// Failure is an error answer injected on a method.
type Failure struct {
	Code       int
	Desc       string
	RetryAfter int
	// Raw, when set, is the answer's body (with Code as the HTTP status) instead of
	// the Bot API's JSON: a gateway's page, or a 2xx the client cannot use.
	Raw string
	// Hang reads the request in full and never answers: the handler waits until the
	// client gives up — the Bot API may have sent the message.
	Hang bool
}

// New starts a fake for the bot token.
func New(token string) *API {
	b := &API{token: token, botID: 7000001, failures: channeltest.Failures[Failure]{}, files: map[string][]byte{}, changed: make(chan struct{})}
	b.Srv = httptest.NewServer(http.HandlerFunc(b.serve))
	return b
}

// Fail makes the next calls of method fail in turn.
func (b *API) Fail(method string, f ...Failure) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures.Add(method, f...)
}

// Push queues an update (a JSON object without update_id, which the fake numbers).
func (b *API) Push(update string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := len(b.updates) + 1
	b.updates = append(b.updates, json.RawMessage(fmt.Sprintf(`{"update_id":%d,%s`, id, strings.TrimPrefix(update, "{"))))
	close(b.changed)
	b.changed = make(chan struct{})
}

// Calls returns the calls of method received so far.
func (b *API) Calls(method string) []Call {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Call
	for _, c := range b.calls {
		if c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func reply(w http.ResponseWriter, result any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
}

func refuse(w http.ResponseWriter, f Failure) {
	body := map[string]any{"ok": false, "error_code": f.Code, "description": f.Desc}
	if f.RetryAfter > 0 {
		body["parameters"] = map[string]int{"retry_after": f.RetryAfter}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Code)
	_ = json.NewEncoder(w).Encode(body)
}

func (b *API) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+b.token+"/"); ok {
		b.mu.Lock()
		data, found := b.files[rest]
		b.mu.Unlock()
		if !found {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+b.token+"/")
	if !ok {
		refuse(w, Failure{Code: 401, Desc: "Unauthorized"})
		return
	}
	call := Call{Method: rest, Params: map[string]any{}}
	if fields, name, data, ok := channeltest.ReadMultipart(r); ok {
		call.FileName, call.File = name, data
		for k, v := range fields {
			call.Params[k] = v
		}
	} else {
		_ = json.NewDecoder(r.Body).Decode(&call.Params)
	}
	b.mu.Lock()
	b.calls = append(b.calls, call)
	fl := b.failures.Next(rest)
	b.seq++
	seq := b.seq
	b.mu.Unlock()
	if fl != nil {
		if !channeltest.AnswerRaw(w, r, fl.Hang, fl.Code, fl.Raw) {
			refuse(w, *fl)
		}
		return
	}
	chatOf := func() int64 {
		switch v := call.Params["chat_id"].(type) {
		case float64:
			return int64(v)
		case string:
			var n int64
			fmt.Sscan(v, &n)
			return n
		}
		return 0
	}
	switch rest {
	case "getMe":
		reply(w, map[string]any{"id": b.botID, "is_bot": true, "first_name": "Atende Bot", "username": "atende_bot", "can_join_groups": true})
	case "setWebhook":
		b.mu.Lock()
		b.webhook = call.Params
		b.mu.Unlock()
		reply(w, true)
	case "deleteWebhook":
		reply(w, true)
	case "getUpdates":
		b.getUpdates(w, r, call.Params)
	case "getFile":
		id, _ := call.Params["file_id"].(string)
		b.mu.Lock()
		_, found := b.files["documents/"+id]
		b.mu.Unlock()
		if !found {
			refuse(w, Failure{Code: 400, Desc: "Bad Request: invalid file_id"})
			return
		}
		reply(w, map[string]any{"file_id": id, "file_unique_id": "u" + id, "file_size": 10, "file_path": "documents/" + id})
	case "sendMessage", "sendPhoto", "sendAudio", "sendVideo", "sendDocument", "sendVoice":
		chat := chatOf()
		if chat == 0 {
			refuse(w, Failure{Code: 400, Desc: "Bad Request: chat not found"})
			return
		}
		reply(w, map[string]any{"message_id": 1000 + seq, "date": time.Now().Unix(),
			"chat": map[string]any{"id": chat, "type": "private"}, "from": map[string]any{"id": b.botID, "is_bot": true, "first_name": "Atende Bot"}})
	default:
		refuse(w, Failure{Code: 404, Desc: "Not Found"})
	}
}

func (b *API) getUpdates(w http.ResponseWriter, r *http.Request, p map[string]any) {
	offset, _ := p["offset"].(float64)
	timeout, _ := p["timeout"].(float64)
	deadline := time.After(time.Duration(timeout) * time.Second)
	for {
		b.mu.Lock()
		var out []json.RawMessage
		for i, u := range b.updates {
			if int64(i+1) >= int64(offset) {
				out = append(out, u)
			}
		}
		changed := b.changed
		b.mu.Unlock()
		if len(out) > 0 || timeout == 0 {
			if out == nil {
				out = []json.RawMessage{}
			}
			reply(w, out)
			return
		}
		select {
		case <-changed:
		case <-deadline:
			reply(w, []json.RawMessage{})
			return
		case <-r.Context().Done():
			return
		}
	}
}

// URL is the base URL to configure (APIURL).
func (b *API) URL() string { return b.Srv.URL }

// Close stops the server.
func (b *API) Close() { b.Srv.Close() }

// SetFile makes a file downloadable: getFile of fileID answers documents/<fileID>.
func (b *API) SetFile(fileID string, data []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files["documents/"+fileID] = data
}

// BotID is the id getMe answers.
func (b *API) BotID() int64 { return b.botID }
