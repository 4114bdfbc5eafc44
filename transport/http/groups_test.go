package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"strings"
	"sync"
	"testing"

	"atende/engine"
	"atende/persistence/connection"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/groups"
	"atende/persistence/schedule"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// groupMaker creates groups as the connection actors would, by key.
type groupMaker struct {
	mu sync.Mutex
	n  int
}

func (m *groupMaker) CreateGroup(_ context.Context, _, _ engine.ID, req engine.GroupRequest) (engine.GroupResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	return engine.GroupResult{JID: fmt.Sprintf("12036300%d@g.us", m.n), InviteLink: "https://chat.whatsapp.com/" + req.Key, Participants: 3}, nil
}

type groupEnv struct {
	*env
	store *groups.Store
}

func eachGroupEnv(t *testing.T, fn func(t *testing.T, e *groupEnv)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ge := &groupEnv{}
		ge.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			s, err := groups.New(d, groups.Config{Maker: &groupMaker{}, Connections: connection.New(d, e.clock), Clock: e.clock})
			if err != nil {
				t.Fatal(err)
			}
			ge.store = s
			deps.Groups = s
			ms, err := media.New(media.Config{Dir: t.TempDir(), Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ms.Close() })
			deps.Media = ms
		}))
		if err := schedule.Migrate(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		dbtest.MustExec(t, d, `INSERT INTO connections (id, company_id, name, channel, status, is_default, token, created_at, updated_at) VALUES
			(1, 1, 'Vendas', 'whatsapp', 'CONNECTED', TRUE, 't1', 0, 0), (2, 1, 'Site', 'socket', 'CONNECTED', FALSE, 't2', 0, 0),
			(3, 2, 'Outra', 'whatsapp', 'CONNECTED', TRUE, 't3', 0, 0)`)
		fn(t, ge)
	})
}

func jpegFile(t *testing.T) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// upload posts a picture to POST /groups/media as tok.
func (e *groupEnv) upload(t *testing.T, tok, name, ct string, data []byte) resp {
	body, mct := multipartBody(t, formPart{name: "file", fileName: name, contentType: ct, data: data})
	return e.do(req{method: "POST", path: "/groups/media", token: tok, body: body, header: map[string]string{"Content-Type": mct}})
}

// The routes: groups:manage only (admin, super); the picture must be a JPEG; the
// section-5 fields answered by name; a batch is created, published, read and listed
// by its tenant only; its progress follows the job; /groupjoin hands out the links.
func TestGroupRoutes(t *testing.T) {
	eachGroupEnv(t, func(t *testing.T, e *groupEnv) {
		admin, admin2 := e.tok("admin"), e.tok("admin2")
		for profile, local := range refProfiles {
			r := e.get(e.tok(local), "/groups")
			if profile == engine.ProfileAdmin || profile == engine.ProfileSuper {
				r.wantStatus(t, http.StatusOK)
				continue
			}
			r.wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.post(e.tok(local), "/groups", map[string]any{}).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
			e.upload(t, e.tok(local), "p.jpg", "image/jpeg", jpegFile(t)).wantErr(t, http.StatusForbidden, engine.ErrNoPermission)
		}
		e.upload(t, admin, "p.png", "image/png", pngFile).wantErr(t, http.StatusUnsupportedMediaType, engine.ErrMediaTypeNotAllowed)
		up := e.upload(t, admin, "p.jpg", "image/jpeg", jpegFile(t))
		up.wantStatus(t, http.StatusCreated)
		pic := up.obj(t)
		path, _ := pic["mediaPath"].(string)
		if !strings.HasPrefix(path, "1/") || pic["mediaType"] != engine.MediaImage {
			t.Fatalf("upload %v", pic)
		}

		// Section 5: every field answered by name.
		fields := e.post(admin, "/groups", map[string]any{}).wantErr(t, http.StatusBadRequest, engine.ErrValidation).Fields
		for _, f := range []string{"name", "root", "admin1", "admin2", "count", "maxParticipants", "media"} {
			if fields[f] != engine.MsgRequired {
				t.Errorf("field %s: %q (%v)", f, fields[f], fields)
			}
		}
		good := map[string]any{"name": "Turma", "root": "001", "admin1": "5511999990001", "admin2": "5511999990002",
			"count": 3, "maxParticipants": 5, "connectionId": 1, "mediaPath": path, "mediaType": "image"}
		r := e.post(admin, "/groups", good)
		r.wantStatus(t, http.StatusCreated)
		var b engine.GroupBatch
		r.json(t, &b)
		if b.Status != engine.GroupBatchRunning || len(b.Groups) != 3 || b.Groups[0].Name != "Turma 001" || b.Groups[2].Name != "Turma 003" {
			t.Fatalf("batch %+v", b)
		}
		evs := e.pub.take()
		if len(evs) != 1 || evs[0].Name != "groupBatch" || evs[0].Payload["action"] != "create" || evs[0].Payload["_permission"] != engine.ActManageGroups {
			t.Fatalf("events %+v", evs)
		}
		// Another tenant reads nothing of it.
		e.get(admin2, fmt.Sprintf("/groups/%d", b.ID)).wantErr(t, http.StatusNotFound, engine.ErrNoGroupBatchFound)
		var list struct{ Batches []engine.GroupBatch }
		e.get(admin2, "/groups").json(t, &list)
		if len(list.Batches) != 0 {
			t.Fatalf("tenant 2 lists %+v", list.Batches)
		}
		// No group yet: /groupjoin has nowhere to send anyone.
		e.post("", "/groupjoin/"+b.Token, nil).wantErr(t, http.StatusGone, engine.ErrGroupsFull)
		for done := false; !done; {
			var err error
			if done, err = e.store.Step(context.Background(), 1, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		r = e.get(admin, fmt.Sprintf("/groups/%d", b.ID))
		r.json(t, &b)
		if b.Status != engine.GroupBatchFinished || b.Created != 3 || b.Groups[1].InviteLink == "" {
			t.Fatalf("after the job %+v", b)
		}
		// max 5, 3 seats taken: two visitors per group, then full.
		for i := range 7 {
			r := e.post("", "/groupjoin/"+b.Token, nil)
			if i == 6 {
				r.wantErr(t, http.StatusGone, engine.ErrGroupsFull)
				break
			}
			r.wantStatus(t, http.StatusOK)
			if got := r.obj(t)["inviteLink"]; got != b.Groups[i/2].InviteLink {
				t.Fatalf("visitor %d sent to %v, want %s", i, got, b.Groups[i/2].InviteLink)
			}
		}
		e.post("", "/groupjoin/nope", nil).wantErr(t, http.StatusNotFound, engine.ErrNoGroupBatchFound)
		e.get("", "/groups").wantStatus(t, http.StatusUnauthorized)
	})
}

// Hostile bodies: bad JSON, huge and negative numbers, a count above the cap,
// control characters, another tenant's connection or picture, a connection that is
// not WhatsApp.
func TestGroupRoutesHostile(t *testing.T) {
	eachGroupEnv(t, func(t *testing.T, e *groupEnv) {
		admin := e.tok("admin")
		up := e.upload(t, admin, "p.jpg", "image/jpeg", jpegFile(t))
		up.wantStatus(t, http.StatusCreated)
		path, _ := up.obj(t)["mediaPath"].(string)
		body := func(edit func(m map[string]any)) map[string]any {
			m := map[string]any{"name": "Turma", "root": "001", "admin1": "5511999990001", "admin2": "5511999990002",
				"count": 3, "maxParticipants": 50, "connectionId": 1, "mediaPath": path, "mediaType": "image"}
			edit(m)
			return m
		}
		raw := []struct {
			name string
			body string
			code engine.Code
		}{
			{"not JSON", `{"name":`, engine.ErrInvalidJSON},
			{"array", `[1,2]`, engine.ErrInvalidJSON},
			{"huge count", `{"name":"T","root":"1","count":1e30}`, engine.ErrInvalidJSON},
			{"count as text", `{"name":"T","root":"1","count":"3"}`, engine.ErrInvalidJSON},
		}
		for _, c := range raw {
			t.Run(c.name, func(t *testing.T) {
				r := e.post(admin, "/groups", c.body)
				if r.Status != http.StatusBadRequest {
					t.Fatalf("status %d (%s)", r.Status, r.Body)
				}
				r.wantErr(t, http.StatusBadRequest, c.code)
			})
		}
		cases := []struct {
			name   string
			edit   func(m map[string]any)
			status int
			code   engine.Code
			field  string
		}{
			{"negative count", func(m map[string]any) { m["count"] = -3 }, 400, engine.ErrValidation, "count"},
			{"count above the cap", func(m map[string]any) { m["count"] = 101 }, 400, engine.ErrValidation, "count"},
			{"huge max", func(m map[string]any) { m["maxParticipants"] = 1 << 40 }, 400, engine.ErrValidation, "maxParticipants"},
			{"root as a number", func(m map[string]any) { m["root"] = 5 }, 201, "", ""},
			{"negative root", func(m map[string]any) { m["root"] = -5 }, 400, engine.ErrValidation, "root"},
			{"huge root", func(m map[string]any) { m["root"] = 1e20 }, 400, engine.ErrValidation, "root"},
			{"control chars in the name", func(m map[string]any) { m["name"] = "Tur\x00ma\u202e" }, 400, engine.ErrValidation, "name"},
			{"name too long", func(m map[string]any) { m["name"] = strings.Repeat("é", 22) }, 400, engine.ErrValidation, "name"},
			{"admin with letters", func(m map[string]any) { m["admin1"] = "55119999<script>" }, 400, engine.ErrValidation, "admin1"},
			{"other tenant's connection", func(m map[string]any) { m["connectionId"] = 3 }, 404, engine.ErrNoWappFound, ""},
			{"web chat connection", func(m map[string]any) { m["connectionId"] = 2 }, 400, engine.ErrGroupsNotSupported, ""},
			{"negative connection", func(m map[string]any) { m["connectionId"] = -1 }, 400, engine.ErrValidation, "connectionId"},
			{"other tenant's picture", func(m map[string]any) { m["mediaPath"] = "2/x.jpg" }, 400, engine.ErrValidation, "media"},
			{"picture path escape", func(m map[string]any) { m["mediaPath"] = "1/../2/x.jpg" }, 400, engine.ErrValidation, "media"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.post(admin, "/groups", body(c.edit))
				if c.code == "" {
					r.wantStatus(t, c.status)
					return
				}
				got := r.wantErr(t, c.status, c.code)
				if c.field != "" && got.Fields[c.field] == "" {
					t.Fatalf("no message on %s: %s", c.field, r.Body)
				}
			})
		}
	})
}
