package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// fakeActors records the session commands the connection routes send.
type fakeActors struct {
	mu    sync.Mutex
	calls []string // "start 5", "restart 5", "stop 5", "wipe 5", "contacts 5"
	err   error
	// book is what PhoneContacts answers, bookErr its error.
	book    []engine.PhoneContact
	bookErr error
}

func (a *fakeActors) PhoneContacts(_ context.Context, id engine.ID) ([]engine.PhoneContact, error) {
	if err := a.rec("contacts", id); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.book, a.bookErr
}

func (a *fakeActors) rec(cmd string, id engine.ID) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, fmt.Sprintf("%s %d", cmd, id))
	return a.err
}
func (a *fakeActors) Start(_ context.Context, id engine.ID) (engine.Connection, error) {
	return engine.Connection{ID: id}, a.rec("start", id)
}
func (a *fakeActors) Restart(_ context.Context, id engine.ID) error { return a.rec("restart", id) }
func (a *fakeActors) Stop(_ context.Context, id engine.ID) error    { return a.rec("stop", id) }
func (a *fakeActors) Wipe(_ context.Context, id engine.ID) error    { return a.rec("wipe", id) }
func (a *fakeActors) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.calls
	a.calls = nil
	return out
}
func (a *fakeActors) setErr(err error) { a.mu.Lock(); a.err = err; a.mu.Unlock() }

// connEnv is a refEnv whose server has the connection routes, a media store and
// recorded actors.
type connEnv struct {
	*refEnv
	conns    *connection.Store
	actors   *fakeActors
	mediaDir string
}

const testMaxConnUpload = 32 << 10

func newConnEnv(t *testing.T, d *db.DB) *connEnv {
	t.Helper()
	ce := &connEnv{actors: &fakeActors{}, mediaDir: t.TempDir()}
	ms, err := media.New(media.Config{Dir: ce.mediaDir, Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ms.Close() })
	ce.refEnv = &refEnv{}
	ce.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
		ce.queues, ce.conns = store.NewQueues(d, e.clock), connection.New(d, e.clock)
		deps.RefDeps = httpapi.RefDeps{Queues: ce.queues, Contacts: store.NewContacts(d, e.clock)}
		deps.TicketDeps = httpapi.TicketDeps{Media: removingStore{Store: ms, dir: ce.mediaDir}}
		deps.ConnectionDeps = httpapi.ConnectionDeps{Connections: ce.conns, Actors: ce.actors, MaxConnectionUploadBytes: testMaxConnUpload}
	}))
	return ce
}

func eachConnEnv(t *testing.T, fn func(t *testing.T, e *connEnv)) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newConnEnv(t, d)) })
}

func (e *connEnv) form(method, tok, path string, parts ...formPart) resp {
	e.t.Helper()
	body, ct := multipartBody(e.t, parts...)
	return e.do(req{method: method, path: path, token: tok, body: body, header: map[string]string{"Content-Type": ct}})
}

func (e *connEnv) files(t *testing.T, company engine.ID) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(e.mediaDir, fmt.Sprint(company)))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		out = append(out, en.Name())
	}
	return out
}

func (e *connEnv) wantCalls(t *testing.T, want ...string) {
	t.Helper()
	if got := e.actors.take(); !slices.Equal(got, want) {
		t.Fatalf("actor calls %q, want %q", got, want)
	}
}

func connOf(t *testing.T, r resp, status int) engine.Connection {
	t.Helper()
	r.wantStatus(t, status)
	var c engine.Connection
	r.json(t, &c)
	return c
}

func field(name, v string) formPart { return formPart{name: name, data: []byte(v)} }

func TestConnectionRoutes(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		ana, superv, admin, admin2 := e.tok("ana"), e.tok("superv"), e.tok("admin"), e.tok("admin2")
		if got := e.get(ana, "/whatsapp/"); got.Status != 200 || string(got.Body) != "[]\n" && string(got.Body) != "[]" {
			t.Fatalf("empty list %d %s", got.Status, got.Body)
		}

		// Multipart create, queueIds as a JSON list, flags as form strings.
		first := connOf(t, e.form("POST", superv, "/whatsapp", field("name", " Vendas "), field("number", "5565999990000"),
			field("isDefault", "false"), field("outChannel", "true"), field("dailyMax", "150"),
			field("greetingMessage", "Olá! 1 vendas 2 suporte"), field("farewellMessage", "Tchau"),
			field("queueIds", "[12, 11]")), http.StatusCreated)
		if first.Name != "Vendas" || first.Channel != engine.ChannelWhatsApp || !first.IsDefault || !first.OutChannel ||
			first.DailyMax != 150 || first.Status != engine.ConnDisconnected || len(first.Queues) != 2 ||
			first.Queues[0].ID != 11 || first.Queues[1].ID != 12 || first.FarewellMessage != "Tchau" {
			t.Fatalf("created %+v", first)
		}
		e.wantCalls(t, fmt.Sprintf("start %d", first.ID))
		p := e.wantEvent(t, co1, "whatsapp", "update")
		if w, _ := p["whatsapp"].(map[string]any); w == nil || w["name"] != "Vendas" {
			t.Fatalf("event payload %v", p)
		}

		// JSON create of a web chat connection, queueIds repeated as a form would.
		second := connOf(t, e.post(admin, "/whatsapp", map[string]any{"name": "Site", "channel": "socket", "queueIds": []any{"11"}}), http.StatusCreated)
		if second.Channel != engine.ChannelSocket || second.IsDefault || len(second.Queues) != 1 {
			t.Fatalf("json create %+v", second)
		}
		e.wantCalls(t, fmt.Sprintf("start %d", second.ID))
		e.wantEvent(t, co1, "whatsapp", "update")
		third := connOf(t, e.form("POST", admin, "/whatsapp", field("name", "Rep"), field("queueIds", "11"), field("queueIds", "12"),
			field("greetingMessage", "Escolha")), http.StatusCreated)
		if len(third.Queues) != 2 {
			t.Fatalf("repeated queueIds %+v", third.Queues)
		}
		e.actors.take()
		e.pub.take()

		// Reads: any profile of the tenant, lists carry queues.
		var list []engine.Connection
		r := e.get(ana, "/whatsapp")
		r.wantStatus(t, http.StatusOK)
		r.json(t, &list)
		if len(list) != 3 || list[0].ID != first.ID || len(list[0].Queues) != 2 {
			t.Fatalf("list %s", r.Body)
		}
		if got := connOf(t, e.get(e.tok("bruno"), fmt.Sprintf("/whatsapp/%d", second.ID)), http.StatusOK); got.Name != "Site" {
			t.Fatalf("get %+v", got)
		}

		// Update keeps absent fields and restarts the session.
		upd := connOf(t, e.put(superv, fmt.Sprintf("/whatsapp/%d", first.ID), map[string]any{"name": "Vendas 2", "dailyMax": "7"}), http.StatusOK)
		if upd.Name != "Vendas 2" || upd.DailyMax != 7 || !upd.IsDefault || !upd.OutChannel || len(upd.Queues) != 2 || upd.GreetingMessage == "" {
			t.Fatalf("updated %+v", upd)
		}
		e.wantCalls(t, fmt.Sprintf("restart %d", first.ID))
		e.wantEvent(t, co1, "whatsapp", "update")
		// Multipart update: queueIds "[]" clears the queues; channel never changes.
		upd = connOf(t, e.form("PUT", superv, fmt.Sprintf("/whatsapp/%d", second.ID), field("queueIds", "[]"), field("channel", "telegram")), http.StatusOK)
		if len(upd.Queues) != 0 || upd.Channel != engine.ChannelSocket {
			t.Fatalf("form update %+v", upd)
		}
		e.actors.take()
		e.pub.take()

		// Delete stops the session before the row goes.
		e.del(superv, fmt.Sprintf("/whatsapp/%d", third.ID)).wantStatus(t, http.StatusNoContent)
		e.wantCalls(t, fmt.Sprintf("stop %d", third.ID))
		if p := e.wantEvent(t, co1, "whatsapp", "delete"); p["whatsappId"] != float64(third.ID) {
			t.Fatalf("delete event %v", p)
		}
		e.get(ana, fmt.Sprintf("/whatsapp/%d", third.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
		// A session that cannot be stopped keeps its row.
		e.actors.setErr(errors.New("node unreachable"))
		e.del(superv, fmt.Sprintf("/whatsapp/%d", second.ID)).wantStatus(t, http.StatusInternalServerError)
		e.actors.setErr(nil)
		e.actors.take()
		e.get(ana, fmt.Sprintf("/whatsapp/%d", second.ID)).wantStatus(t, http.StatusOK)
		e.wantNoEvent(t)

		t.Run("another tenant", func(t *testing.T) {
			path := fmt.Sprintf("/whatsapp/%d", first.ID)
			e.get(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			e.put(admin2, path, map[string]any{"name": "Hack"}).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			e.form("PUT", admin2, path, field("name", "Hack"),
				formPart{name: "medias", fileName: "a.png", contentType: "image/png", data: pngFile}).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			e.del(admin2, path).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			for _, p := range []string{"/whatsappsession/%d", "/whatsappcreds/%d"} {
				e.del(admin2, fmt.Sprintf(p, first.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			}
			e.post(admin2, fmt.Sprintf("/whatsappsession/%d", first.ID), nil).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			// Another tenant's queue cannot be attached either.
			e.put(superv, path, map[string]any{"queueIds": []int{21}}).wantErr(t, http.StatusNotFound, engine.ErrNoQueueFound)
			for _, bad := range []string{"/whatsapp/0", "/whatsapp/abc", "/whatsapp/-1", "/whatsapp/99999999999999999999"} {
				e.get(admin, bad).wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
			}
			if got := e.files(t, co2); len(got) != 0 {
				t.Fatalf("files stored for a refused request: %v", got)
			}
			if got := e.get(admin2, "/whatsapp/"); string(bytes.TrimSpace(got.Body)) != "[]" {
				t.Fatalf("tenant 2 sees %s", got.Body)
			}
			e.wantCalls(t)
			e.wantNoEvent(t)
		})
	})
}

func TestConnectionPermissions(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		c := connOf(t, e.post(e.tok("admin"), "/whatsapp", map[string]any{"name": "Zap"}), http.StatusCreated)
		e.actors.take()
		e.pub.take()
		id := c.ID
		writes := []struct{ method, path string }{
			{"POST", "/whatsapp"}, {"PUT", fmt.Sprintf("/whatsapp/%d", id)}, {"DELETE", fmt.Sprintf("/whatsapp/%d", id)},
			{"POST", fmt.Sprintf("/whatsappsession/%d", id)}, {"DELETE", fmt.Sprintf("/whatsappsession/%d", id)},
			{"DELETE", fmt.Sprintf("/whatsappcreds/%d", id)},
		}
		// Section 6: the Connections page sits in the supervision section.
		for profile, local := range refProfiles {
			allowed := engine.Can(profile, engine.ActManageConnections)
			if want := profile != engine.ProfileUser && profile != engine.ProfileUserPlus; allowed != want {
				t.Fatalf("%s may manage connections: %v", profile, allowed)
			}
			tok := e.tok(local)
			e.get(tok, "/whatsapp/").wantStatus(t, http.StatusOK)
			e.get(tok, fmt.Sprintf("/whatsapp/%d", id)).wantStatus(t, http.StatusOK)
			if allowed {
				continue
			}
			for _, w := range writes {
				e.do(req{method: w.method, path: w.path, token: tok, body: map[string]any{"name": "Nope"}}).
					wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			}
		}
		e.get("", "/whatsapp/").wantStatus(t, http.StatusUnauthorized)
		e.wantCalls(t)
		e.wantNoEvent(t)
	})
}

func TestConnectionSessionRoutes(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		manager := e.tok("manager")
		c := connOf(t, e.post(manager, "/whatsapp", map[string]any{"name": "Zap"}), http.StatusCreated)
		e.actors.take()
		e.pub.take()
		if got := connOf(t, e.post(manager, fmt.Sprintf("/whatsappsession/%d", c.ID), nil), http.StatusOK); got.ID != c.ID {
			t.Fatalf("renew answered %+v", got)
		}
		e.wantCalls(t, fmt.Sprintf("restart %d", c.ID))
		connOf(t, e.del(manager, fmt.Sprintf("/whatsappsession/%d", c.ID)), http.StatusOK)
		e.wantCalls(t, fmt.Sprintf("stop %d", c.ID))
		connOf(t, e.del(manager, fmt.Sprintf("/whatsappcreds/%d", c.ID)), http.StatusOK)
		e.wantCalls(t, fmt.Sprintf("wipe %d", c.ID))
		e.del(manager, "/whatsappcreds/424242").wantErr(t, http.StatusNotFound, engine.ErrNoWappFound)
		e.wantCalls(t)
		// The status the actor records is what the next read answers.
		if err := e.conns.SetStatus(context.Background(), c.ID, engine.StatusChange{Status: engine.ConnQRCode, QRCode: "2@xyz"}); err != nil {
			t.Fatal(err)
		}
		if got := connOf(t, e.get(manager, fmt.Sprintf("/whatsapp/%d", c.ID)), http.StatusOK); got.Status != engine.ConnQRCode || got.QRCode != "2@xyz" {
			t.Fatalf("after status %+v", got)
		}
	})
}

func TestConnectionValidation(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		superv := e.tok("superv")
		for _, tc := range []struct {
			name   string
			parts  []formPart
			status int
			code   engine.Code
			field  string
			msg    string
		}{
			{"name required", []formPart{field("name", "  ")}, 400, engine.ErrValidation, "name", engine.MsgRequired},
			{"name missing", []formPart{field("number", "1")}, 400, engine.ErrValidation, "name", engine.MsgRequired},
			{"name too short", []formPart{field("name", "Z")}, 400, engine.ErrValidation, "name", engine.MsgTooShort},
			{"name too long", []formPart{field("name", strings.Repeat("z", 51))}, 400, engine.ErrValidation, "name", engine.MsgTooLong},
			{"queueIds bad JSON", []formPart{field("name", "Zap"), field("queueIds", "[11,")}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds object", []formPart{field("name", "Zap"), field("queueIds", `{"id":11}`)}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds negative", []formPart{field("name", "Zap"), field("queueIds", "[-11]")}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds float", []formPart{field("name", "Zap"), field("queueIds", "[1.5]")}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds words", []formPart{field("name", "Zap"), field("queueIds", "vendas")}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds too many", []formPart{field("name", "Zap"), field("queueIds", "["+strings.Repeat("1,", 600)+"1]")}, 400, engine.ErrValidation, "queueIds", engine.MsgTooLong},
			{"queueIds huge", []formPart{field("name", "Zap"), field("queueIds", "[11, 99999999999999999999]")}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds negative among duplicates", []formPart{field("name", "Zap"), field("queueIds", "11,11,-11")}, 400, engine.ErrValidation, "queueIds", engine.MsgInvalidValue},
			{"queueIds too many distinct", []formPart{field("name", "Zap"), field("queueIds", distinctIDs(501))}, 400, engine.ErrValidation, "queueIds", engine.MsgTooLong},
			{"dailyMax", []formPart{field("name", "Zap"), field("dailyMax", "lots")}, 400, engine.ErrValidation, "dailyMax", engine.MsgInvalidValue},
			{"dailyMax negative", []formPart{field("name", "Zap"), field("dailyMax", "-1")}, 400, engine.ErrValidation, "dailyMax", engine.MsgInvalidValue},
			{"isDefault", []formPart{field("name", "Zap"), field("isDefault", "maybe")}, 400, engine.ErrValidation, "isDefault", engine.MsgInvalidValue},
			{"channel not created here", []formPart{field("name", "Zap"), field("channel", "facebook")}, 400, engine.ErrValidation, "channel", engine.MsgInvalidValue},
			{"channel unknown", []formPart{field("name", "Zap"), field("channel", "sms")}, 400, engine.ErrValidation, "channel", engine.MsgInvalidValue},
			{"greeting too long", []formPart{field("name", "Zap"), field("greetingMessage", strings.Repeat("g", 4097))}, 400, engine.ErrValidation, "greetingMessage", engine.MsgTooLong},
			{"greeting required with queues", []formPart{field("name", "Zap"), field("queueIds", "[11,12]")}, 400, engine.ErrWappGreetingRequired, "greetingMessage", engine.MsgRequired},
			{"foreign queue", []formPart{field("name", "Zap"), field("queueIds", "[21]")}, 404, engine.ErrNoQueueFound, "", ""},
			// Text parts over the field cap: too long for a text field, invalid for any other.
			{"name part over the cap", []formPart{field("name", strings.Repeat("n", 17<<10))}, 400, engine.ErrValidation, "name", engine.MsgTooLong},
			{"farewell part over the cap", []formPart{field("name", "Zap"), field("farewellMessage", strings.Repeat("f", 17<<10))}, 400, engine.ErrValidation, "farewellMessage", engine.MsgTooLong},
			{"dailyMax part over the cap", []formPart{field("name", "Zap"), field("dailyMax", strings.Repeat("9", 17<<10))}, 400, engine.ErrValidation, "dailyMax", engine.MsgInvalidValue},
			{"queueIds parts adding up", []formPart{field("name", "Zap"), field("queueIds", distinctIDs(300)), field("queueIds", distinctIDsFrom(301, 300))}, 400, engine.ErrValidation, "queueIds", engine.MsgTooLong},
			{"three media roles", []formPart{field("name", "Zap"), field("mediaRoles", "greeting,farewell,greeting")}, 400, engine.ErrValidation, "mediaRoles", engine.MsgInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b := e.form("POST", superv, "/whatsapp", tc.parts...).wantErr(t, tc.status, tc.code)
				if tc.field != "" && b.Fields[tc.field] != tc.msg {
					t.Fatalf("fields %v, want %s: %q", b.Fields, tc.field, tc.msg)
				}
			})
		}
		// The JSON spelling answers the same messages.
		b := e.post(superv, "/whatsapp", map[string]any{"name": "Z"}).wantErr(t, 400, engine.ErrValidation)
		if b.Fields["name"] != engine.MsgTooShort {
			t.Fatalf("json fields %v", b.Fields)
		}
		b = e.post(superv, "/whatsapp", map[string]any{"name": "Zap", "queueIds": "[x"}).wantErr(t, 400, engine.ErrValidation)
		if b.Fields["queueIds"] != engine.MsgInvalidValue {
			t.Fatalf("json queueIds fields %v", b.Fields)
		}
		e.post(superv, "/whatsapp", `{"name": "Zap", "queueIds": [1,`).wantErr(t, 400, engine.ErrInvalidJSON)
		e.post(superv, "/whatsapp", map[string]any{"name": 5}).wantErr(t, 400, engine.ErrInvalidJSON)
		// A cut multipart body and one with a bogus boundary.
		body, ct := multipartBody(t, field("name", "Zap"))
		e.do(req{method: "POST", path: "/whatsapp", token: superv, body: body[:len(body)-10], header: map[string]string{"Content-Type": ct}}).
			wantErr(t, 400, engine.ErrInvalidJSON)
		e.do(req{method: "POST", path: "/whatsapp", token: superv, body: "garbage", header: map[string]string{"Content-Type": "multipart/form-data"}}).
			wantErr(t, 400, engine.ErrInvalidJSON)
		if list, _ := e.conns.List(context.Background(), co1); len(list) != 0 {
			t.Fatalf("refused forms created %d connections", len(list))
		}
		e.wantCalls(t)
		e.wantNoEvent(t)
	})
}

func TestConnectionImages(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		superv := e.tok("superv")
		png := func(name string) formPart {
			return formPart{name: name, fileName: "oi.png", contentType: "image/png", data: pngFile}
		}
		c := connOf(t, e.form("POST", superv, "/whatsapp", field("name", "Zap"), png("medias"), png("medias")), http.StatusCreated)
		if !signedMediaURL(c.GreetingMedia, "1/") || !signedMediaURL(c.FarewellMedia, "1/") || c.GreetingMedia == c.FarewellMedia {
			t.Fatalf("images %q %q", c.GreetingMedia, c.FarewellMedia)
		}
		if got := e.files(t, co1); len(got) != 2 {
			t.Fatalf("stored %v", got)
		}
		path := fmt.Sprintf("/whatsapp/%d", c.ID)
		// Replacing the farewell image by role removes the old file.
		upd := connOf(t, e.form("PUT", superv, path, field("mediaRoles", "farewell"), png("medias")), http.StatusOK)
		if upd.FarewellMedia == c.FarewellMedia || stripQuery(upd.GreetingMedia) != stripQuery(c.GreetingMedia) {
			t.Fatalf("after replace %q %q", upd.GreetingMedia, upd.FarewellMedia)
		}
		if got := e.files(t, co1); len(got) != 2 {
			t.Fatalf("stored after replace %v", got)
		}
		upd = connOf(t, e.form("PUT", superv, path, field("removeGreetingMedia", "true")), http.StatusOK)
		if upd.GreetingMedia != "" || upd.FarewellMedia == "" {
			t.Fatalf("after remove %+v", upd)
		}
		if got := e.files(t, co1); len(got) != 1 {
			t.Fatalf("stored after remove %v", got)
		}
		e.actors.take()
		e.pub.take()

		// Hostile uploads store nothing and change nothing.
		big := append(append([]byte{}, pngFile...), bytes.Repeat([]byte{7}, testMaxImage)...)
		huge := bytes.Repeat([]byte{'h'}, 15000)
		for _, tc := range []struct {
			name   string
			parts  []formPart
			status int
			code   engine.Code
		}{
			{"html posing as png", []formPart{{name: "medias", fileName: "x.png", contentType: "image/png", data: htmlFile}}, 415, engine.ErrMediaTypeNotAllowed},
			{"pdf", []formPart{png("greetingMedia"), {name: "farewellMedia", fileName: "x.pdf", contentType: "application/pdf", data: pdfFile}}, 415, engine.ErrMediaTypeNotAllowed},
			{"audio", []formPart{{name: "medias", fileName: "x.ogg", data: oggFile}}, 415, engine.ErrMediaTypeNotAllowed},
			{"image over the image limit", []formPart{{name: "medias", fileName: "x.png", data: big}}, 413, engine.ErrMediaTooLarge},
			{"body over the form limit", []formPart{png("medias"), {name: "x", data: huge}, {name: "x", data: huge}, {name: "x", data: huge}}, 413, engine.ErrBodyTooLarge},
			{"three images", []formPart{png("medias"), png("medias"), png("medias")}, 400, engine.ErrValidation},
			{"two greetings", []formPart{png("greetingMedia"), png("greetingMedia")}, 400, engine.ErrValidation},
			{"two farewells", []formPart{png("farewellMedia"), png("farewellMedia")}, 400, engine.ErrValidation},
			{"roles mismatch", []formPart{field("mediaRoles", "greeting,farewell"), png("medias")}, 400, engine.ErrValidation},
			{"bad role", []formPart{field("mediaRoles", "avatar"), png("medias")}, 400, engine.ErrValidation},
			{"roles collide", []formPart{field("mediaRoles", `["farewell","farewell"]`), png("medias"), png("medias")}, 400, engine.ErrValidation},
			{"image then bad name", []formPart{png("medias"), field("name", "Z")}, 400, engine.ErrValidation},
			{"too many parts", slices.Repeat([]formPart{field("x", "1")}, 70), 400, engine.ErrInvalidJSON},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.form("PUT", superv, path, tc.parts...).wantErr(t, tc.status, tc.code)
				if got := e.files(t, co1); len(got) != 1 {
					t.Fatalf("stored after refusal %v", got)
				}
			})
		}
		e.wantCalls(t)
		e.wantNoEvent(t)
		if got := connOf(t, e.get(superv, path), http.StatusOK); got.Name != "Zap" || got.GreetingMedia != "" || stripQuery(got.FarewellMedia) != stripQuery(upd.FarewellMedia) {
			t.Fatalf("after refusals %+v", got)
		}
		// Removing the farewell image removes its file.
		if got := connOf(t, e.form("PUT", superv, path, field("removeFarewellMedia", "true")), http.StatusOK); got.FarewellMedia != "" {
			t.Fatalf("after removing the farewell %+v", got)
		}
		if got := e.files(t, co1); len(got) != 0 {
			t.Fatalf("stored after removing the farewell %v", got)
		}
		e.actors.take()
		e.pub.take()
		// Deleting the connection removes its images.
		e.del(superv, path).wantStatus(t, http.StatusNoContent)
		if got := e.files(t, co1); len(got) != 0 {
			t.Fatalf("stored after delete %v", got)
		}
	})
}

func stripQuery(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[:i]
	}
	return u
}

func TestConnectionDefaultRule(t *testing.T) {
	eachConnEnv(t, func(t *testing.T, e *connEnv) {
		admin := e.tok("admin")
		a := connOf(t, e.post(admin, "/whatsapp", map[string]any{"name": "Aaa", "isDefault": false}), http.StatusCreated)
		b := connOf(t, e.post(admin, "/whatsapp", map[string]any{"name": "Bbb"}), http.StatusCreated)
		if !a.IsDefault || b.IsDefault {
			t.Fatalf("first is the default: %v %v", a.IsDefault, b.IsDefault)
		}
		// Un-defaulting the default, or deleting it while others exist, is refused;
		// its session is not touched.
		e.actors.take()
		e.pub.take()
		e.put(admin, fmt.Sprintf("/whatsapp/%d", a.ID), map[string]any{"isDefault": false}).wantErr(t, 400, engine.ErrNoOtherWhatsapp)
		e.form("PUT", admin, fmt.Sprintf("/whatsapp/%d", a.ID), field("isDefault", "false")).wantErr(t, 400, engine.ErrNoOtherWhatsapp)
		e.del(admin, fmt.Sprintf("/whatsapp/%d", a.ID)).wantErr(t, 400, engine.ErrNoOtherWhatsapp)
		e.wantCalls(t)
		e.wantNoEvent(t)
		// A new default clears the old one.
		c := connOf(t, e.form("POST", admin, "/whatsapp", field("name", "Ccc"), field("isDefault", "true")), http.StatusCreated)
		if !c.IsDefault {
			t.Fatal("new default not set")
		}
		if got := connOf(t, e.get(admin, fmt.Sprintf("/whatsapp/%d", a.ID)), 200); got.IsDefault {
			t.Fatal("old default kept")
		}
		connOf(t, e.put(admin, fmt.Sprintf("/whatsapp/%d", b.ID), map[string]any{"isDefault": "true"}), 200)
		var list []engine.Connection
		e.get(admin, "/whatsapp").json(t, &list)
		var defaults []engine.ID
		for _, x := range list {
			if x.IsDefault {
				defaults = append(defaults, x.ID)
			}
		}
		if !slices.Equal(defaults, []engine.ID{b.ID}) {
			t.Fatalf("defaults %v, want [%d]", defaults, b.ID)
		}
		// The others go; then the default, being the last, may go too.
		for _, id := range []engine.ID{a.ID, c.ID, b.ID} {
			e.del(admin, fmt.Sprintf("/whatsapp/%d", id)).wantStatus(t, http.StatusNoContent)
		}
	})
}

func TestConnectionRoutesUnwired(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newRefEnv(t, d)
		e.get(e.tok("admin"), "/whatsapp/").wantErr(t, http.StatusServiceUnavailable, engine.ErrUnavailable)
		e.post(e.tok("admin"), "/whatsappsession/1", nil).wantErr(t, http.StatusServiceUnavailable, engine.ErrUnavailable)
	})
}

// distinctIDs is a JSON list of the ids 1 to n.
func distinctIDs(n int) string { return distinctIDsFrom(1, n) }

// distinctIDsFrom is a JSON list of the n ids from first on.
func distinctIDsFrom(first, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(first + i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
