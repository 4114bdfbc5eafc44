package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db/dbtest"
)

// upload posts one file (field medias) with a caption (field body) as multipart.
func (a *api) upload(path, name string, content []byte, caption string) (int, []byte) {
	a.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("medias", name)
	_, _ = fw.Write(content)
	if caption != "" {
		_ = mw.WriteField("body", caption)
	}
	_ = mw.Close()
	req, _ := http.NewRequest("POST", a.base+path, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("upload %s: %v", path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// rawCall sends body as it is with contentType and returns the status and the error
// code of the answer, if any.
func (a *api) rawCall(method, path, contentType, body string) (int, string) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+a.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(raw, &e)
	return res.StatusCode, e.Error
}

type chatRecord struct {
	ID          int64  `json:"id"`
	UUID        string `json:"uuid"`
	Title       string `json:"title"`
	OwnerID     int64  `json:"ownerId"`
	LastMessage string `json:"lastMessage"`
	Users       []struct {
		UserID  int64 `json:"userId"`
		Unreads int   `json:"unreads"`
		User    struct {
			Name string `json:"name"`
		} `json:"user"`
	} `json:"users"`
}

func (c chatRecord) unreads(user int64) int {
	for _, u := range c.Users {
		if u.UserID == user {
			return u.Unreads
		}
	}
	return -1
}

type chatPage struct {
	Records []chatRecord `json:"records"`
	Count   int          `json:"count"`
	HasMore bool         `json:"hasMore"`
}

func chatOf(ev sioEvent) map[string]any {
	c, _ := ev.Body["chat"].(map[string]any)
	return c
}

// The internal chat through the whole node: REST routes, chat actors, journal,
// read model and socket, on both databases.
func TestInternalChatEndToEnd(t *testing.T) {
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			ta := startApp(t, testConfig(t, dbtest.URL(t, dialect)))
			ctx := context.Background()
			ana := login(t, ta.base, "ana@atende.local", "atende123")
			bruno := login(t, ta.base, "bruno@atende.local", "atende123")
			carla := login(t, ta.base, "carla@atende.local", "atende123")
			admin := login(t, ta.base, "admin@atende.local", "admin123")
			anaSock := dialSocket(t, ta.base, ana.token, 0)
			brunoSock := dialSocket(t, ta.base, bruno.token, 0)
			carlaSock := dialSocket(t, ta.base, carla.token, 0)
			adminSock := dialSocket(t, ta.base, admin.token, 0)

			// A user of another tenant, and a deleted user of this one.
			co2, err := ta.stores.companies.Create(ctx, engine.Company{Name: "Outra"})
			if err != nil {
				t.Fatal(err)
			}
			stranger, err := ta.stores.users.Create(ctx, engine.NewUser{CompanyID: co2.ID, Name: "Estranha",
				Email: "estranha@outra.local", PasswordHash: "x", Profile: engine.ProfileAdmin})
			if err != nil {
				t.Fatal(err)
			}
			gone, err := ta.stores.users.Create(ctx, engine.NewUser{CompanyID: 1, Name: "Saiu",
				Email: "saiu@atende.local", PasswordHash: "x", Profile: engine.ProfileUser})
			if err != nil {
				t.Fatal(err)
			}
			if err := ta.stores.users.Delete(ctx, 1, gone.ID); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []struct {
				name string
				body string
			}{
				{"another tenant's user", fmt.Sprintf(`{"users":[%d]}`, stranger.ID)},
				{"a deleted user", fmt.Sprintf(`{"users":[{"id":%d,"name":"Saiu"}]}`, gone.ID)},
				{"nobody else", fmt.Sprintf(`{"users":[%d]}`, ana.user)},
				{"no users", `{"title":"x"}`},
				{"a negative id", `{"users":[-1]}`},
				{"a string id", `{"users":["2"]}`},
				{"users not a list", `{"users":{"id":2}}`},
				{"a group without title", fmt.Sprintf(`{"users":[%d,%d]}`, bruno.user, carla.user)},
				{"a title of two lines", fmt.Sprintf(`{"users":[%d],"title":"a\nb"}`, bruno.user)},
			} {
				if st, code := ana.rawCall("POST", "/chats", "application/json", bad.body); st != 400 || (code != "ERR_VALIDATION" && code != "ERR_INVALID_JSON") {
					t.Errorf("create with %s: %d %s", bad.name, st, code)
				}
			}
			if st, code := ana.rawCall("POST", "/chats", "application/json", `{"users":[`); st != 400 || code != "ERR_INVALID_JSON" {
				t.Errorf("truncated JSON: %d %s", st, code)
			}
			if st, code := ana.rawCall("POST", "/chats", "text/plain", `{}`); st != 415 || code != "ERR_UNSUPPORTED_MEDIA_TYPE" {
				t.Errorf("text body: %d %s", st, code)
			}

			// Ana opens a one-to-one chat with Bruno.
			var chat chatRecord
			ana.call("POST", "/chats", map[string]any{"users": []any{map[string]any{"id": bruno.user, "name": "Bruno"}}}, 201, &chat)
			if chat.ID == 0 || chat.OwnerID != ana.user || len(chat.Users) != 2 || chat.UUID == "" {
				t.Fatalf("created chat %+v", chat)
			}
			isCreate := func(ev sioEvent) bool { return ev.Name == "chat" && ev.Body["action"] == "create" }
			brunoSock.waitEvent("the new chat on bruno's socket", isCreate)
			anaSock.waitEvent("the new chat on ana's socket", isCreate)

			path := fmt.Sprintf("/chats/%d", chat.ID)
			ana.call("POST", path+"/messages", map[string]any{"message": "  Bruno, pode cobrir a fila?  "}, 201, nil)
			ev := brunoSock.waitEvent("the message on bruno's socket", func(ev sioEvent) bool {
				return ev.Name == "chat" && ev.Body["action"] == "new-message"
			})
			msg, _ := ev.Body["newMessage"].(map[string]any)
			if msg["message"] != "Bruno, pode cobrir a fila?" || chatOf(ev) == nil {
				t.Fatalf("new-message payload %v", ev.Body)
			}

			// Bruno's list shows one unread; Ana's none.
			var page chatPage
			bruno.call("GET", "/chats/?pageNumber=1", nil, 200, &page)
			if page.Count != 1 || len(page.Records) != 1 || page.Records[0].unreads(bruno.user) != 1 || page.Records[0].unreads(ana.user) != 0 {
				t.Fatalf("bruno's chats %+v", page)
			}
			if page.Records[0].LastMessage != "Bruno, pode cobrir a fila?" {
				t.Fatalf("last message %q", page.Records[0].LastMessage)
			}
			bruno.call("GET", "/chats?searchParam=Atendente", nil, 200, &page)
			if len(page.Records) != 1 {
				t.Fatalf("search by a participant's name: %+v", page)
			}
			bruno.call("GET", "/chats?searchParam=nada-disso", nil, 200, &page)
			if len(page.Records) != 0 || page.HasMore {
				t.Fatalf("search without match: %+v", page)
			}
			var msgs struct {
				Records []map[string]any `json:"records"`
				Count   int              `json:"count"`
			}
			bruno.call("GET", path+"/messages?pageNumber=1", nil, 200, &msgs)
			if msgs.Count != 1 || len(msgs.Records) != 1 {
				t.Fatalf("messages %+v", msgs)
			}

			// Bruno reads: his count clears, on his socket too.
			bruno.call("POST", path+"/read", map[string]any{"userId": ana.user}, 200, &chat)
			if chat.unreads(bruno.user) != 0 {
				t.Fatalf("after read %+v", chat)
			}
			brunoSock.waitEvent("the read on bruno's socket", func(ev sioEvent) bool {
				return ev.Name == "chat" && ev.Body["action"] == "update"
			})

			// Outsiders: a colleague outside the chat is 403, another tenant 404.
			admin.call("GET", path, nil, 403, nil)
			admin.call("GET", path+"/messages", nil, 403, nil)
			admin.call("POST", path+"/messages", map[string]any{"message": "oi"}, 403, nil)
			admin.call("POST", path+"/read", nil, 403, nil)
			admin.call("DELETE", path, nil, 403, nil)
			admin.call("GET", "/chats/abc", nil, 404, nil)
			bruno.call("PUT", path, map[string]any{"title": "meu"}, 403, nil) // not the owner
			bruno.call("DELETE", path, nil, 403, nil)

			// Hostile messages.
			for _, bad := range []string{`{"message":""}`, `{"message":"   "}`, `{"message":"a\u0000b"}`, `{"message":7}`, `[]`,
				`{"message":"` + strings.Repeat("x", engine.MaxMessageBody+1) + `"}`} {
				if st, code := ana.rawCall("POST", path+"/messages", "application/json", bad); st != 400 {
					t.Errorf("message %.40q: %d %s", bad, st, code)
				}
			}
			if st, code := ana.rawCall("POST", path+"/messages", "application/json", `{"message":"`+strings.Repeat("x", 2<<20)+`"}`); st != 413 || code != "ERR_BODY_TOO_LARGE" {
				t.Errorf("oversized body: %d %s", st, code)
			}
			// Media: a picture is posted with its caption and a signed link; an oversized
			// or active file is refused like every upload, and nothing is posted.
			var pic bytes.Buffer
			_ = png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 4, 4)))
			st, body := ana.upload(path+"/messages", "foto.png", pic.Bytes(), "veja")
			var posted map[string]any
			_ = json.Unmarshal(body, &posted)
			if st != 201 || posted["mediaType"] != "image" || posted["mediaName"] != "foto.png" || posted["message"] != "veja" ||
				!strings.Contains(fmt.Sprint(posted["mediaUrl"]), "/media/") {
				t.Fatalf("picture: %d %s", st, body)
			}
			brunoSock.waitEvent("the picture on bruno's socket", func(ev sioEvent) bool {
				m, _ := ev.Body["newMessage"].(map[string]any)
				return m != nil && m["mediaName"] == "foto.png" && strings.Contains(fmt.Sprint(m["mediaUrl"]), "/media/")
			})
			huge := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 17<<20)...)
			if st, body := ana.upload(path+"/messages", "enorme.png", huge, ""); st != 413 || !strings.Contains(string(body), "ERR_MEDIA_TOO_LARGE") {
				t.Errorf("oversized picture: %d %s", st, body)
			}
			if st, body := ana.upload(path+"/messages", "x.html", []byte("<html><script>alert(1)</script></html>"), ""); st != 415 || !strings.Contains(string(body), "ERR_MEDIA_TYPE_NOT_ALLOWED") {
				t.Errorf("active content: %d %s", st, body)
			}
			bruno.call("GET", path+"/messages", nil, 200, &msgs)
			if msgs.Count != 2 {
				t.Fatalf("after the uploads: %d messages, want 2", msgs.Count)
			}

			// Ana makes it a group with Carla; Carla now gets the chat's events. (Bruno has
			// the picture unread, Carla's message will make two.)
			ana.call("PUT", path, map[string]any{"title": "Plantão", "users": []int64{bruno.user, carla.user}}, 200, &chat)
			if chat.Title != "Plantão" || len(chat.Users) != 3 {
				t.Fatalf("edited chat %+v", chat)
			}
			carlaSock.waitEvent("carla added", func(ev sioEvent) bool { return ev.Name == "chat" && ev.Body["action"] == "update" })
			carla.call("POST", path+"/messages", map[string]any{"message": "Cubro eu"}, 201, nil)
			anaSock.waitEvent("carla's message on ana's socket", func(ev sioEvent) bool {
				m, _ := ev.Body["newMessage"].(map[string]any)
				return m != nil && m["message"] == "Cubro eu"
			})
			var anaPage chatPage
			ana.call("GET", "/chats", nil, 200, &anaPage)
			if len(anaPage.Records) != 1 || anaPage.Records[0].unreads(ana.user) != 1 || anaPage.Records[0].unreads(bruno.user) != 2 {
				t.Fatalf("unreads after carla's message %+v", anaPage)
			}

			// A socket that reconnects with its last seq gets the chat events it missed.
			brunoLast := int64(0)
			for _, ev := range brunoSock.received() {
				if s, ok := ev.Body["seq"].(float64); ok && int64(s) > brunoLast {
					brunoLast = int64(s)
				}
			}
			ana.call("POST", path+"/messages", map[string]any{"message": "Obrigada!"}, 201, nil)
			again := dialSocket(t, ta.base, bruno.token, brunoLast)
			again.waitEvent("the missed message replayed", func(ev sioEvent) bool {
				m, _ := ev.Body["newMessage"].(map[string]any)
				return m != nil && m["message"] == "Obrigada!"
			})

			// The owner deletes; participants are told, and the chat is gone.
			ana.call("DELETE", path, nil, 204, nil)
			brunoSock.waitEvent("the delete on bruno's socket", func(ev sioEvent) bool {
				return ev.Name == "chat" && ev.Body["action"] == "delete"
			})
			bruno.call("GET", path, nil, 404, nil)
			bruno.call("GET", "/chats", nil, 200, &page)
			if len(page.Records) != 0 {
				t.Fatalf("deleted chat still listed %+v", page)
			}

			// Only participants ever got chat events: the administrator's socket, open
			// throughout, got none, and Carla nothing from before she was added. Events
			// reach every socket of a node in journal order, so once Bruno saw the
			// delete, anything sent to the others has arrived.
			for _, ev := range adminSock.received() {
				if ev.Name == "chat" {
					t.Fatalf("a non-participant got %v", ev.Body)
				}
			}
			for _, ev := range carlaSock.received() {
				if ev.Name == "chat" && (ev.Body["action"] == "create" || ev.Body["action"] == "new-message" && chatOf(ev)["title"] == "") {
					t.Fatalf("carla got an event from before she took part: %v", ev.Body)
				}
			}
		})
	}
}
