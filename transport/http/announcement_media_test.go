package httpapi_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
	httpapi "atende/transport/http"
	"atende/transport/media"
)

// announcementMediaEnv is the announcement routes with a real media store.
type announcementMediaEnv struct {
	*refEnv
	dir string
}

func (e *announcementMediaEnv) form(method, tok, path string, parts ...formPart) resp {
	e.t.Helper()
	body, ct := multipartBody(e.t, parts...)
	return e.do(req{method: method, path: path, token: tok, body: body, header: map[string]string{"Content-Type": ct}})
}

// files lists the files kept in the media folder (".part" leftovers included).
func (e *announcementMediaEnv) files(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *announcementMediaEnv) wantFiles(t *testing.T, n int) {
	t.Helper()
	if got := e.files(t); len(got) != n {
		t.Fatalf("%d files kept, want %d: %v", len(got), n, got)
	}
}

func TestAnnouncementMediaUpload(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ae := &announcementMediaEnv{dir: t.TempDir()}
		ae.refEnv = &refEnv{}
		ae.env = newEnv(t, d, withDeps(func(e *env, deps *httpapi.Deps) {
			ms, err := media.New(media.Config{Dir: ae.dir, Secret: testSecret, MaxImage: testMaxImage, BaseURL: "/media"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ms.Close() })
			deps.Media = ms
			deps.RefDeps = httpapi.RefDeps{Announcements: store.NewAnnouncements(d, e.clock)}
		}))
		e := ae
		superv, ana, admin2 := e.tok("superv"), e.tok("ana"), e.tok("admin2")
		fields := func(title string) []formPart {
			return []formPart{{name: "title", data: []byte(title)}, {name: "text", data: []byte("Veja o anexo")},
				{name: "priority", data: []byte("1")}, {name: "status", data: []byte("true")}}
		}
		png := func(name string) formPart {
			return formPart{name: "medias", fileName: name, contentType: "image/png", data: pngFile}
		}

		r := e.form("POST", superv, "/announcements", append(fields("Cardápio"), png("cardapio.png"))...)
		r.wantStatus(t, http.StatusCreated)
		var a engine.Announcement
		r.json(t, &a)
		if !strings.HasPrefix(a.MediaPath, "/media/") || a.MediaName != "cardapio.png" || a.Priority != 1 || a.Title != "Cardápio" {
			t.Fatalf("created %s", r.Body)
		}
		ev := e.wantEvent(t, co1, "announcement", "create")
		if m, _ := ev["announcement"].(map[string]any); m["mediaPath"] != a.MediaPath {
			t.Fatalf("event %v: the attachment must be signed as in the answer", ev)
		}
		e.wantFiles(t, 1)
		var got engine.Announcement
		e.get(ana, fmt.Sprintf("/announcements/%d", a.ID)).json(t, &got)
		if !strings.HasPrefix(got.MediaPath, "/media/") || got.MediaName != "cardapio.png" {
			t.Fatalf("read back %+v", got)
		}

		t.Run("refused forms keep nothing", func(t *testing.T) {
			big := formPart{name: "medias", fileName: "big.png", contentType: "image/png",
				data: append(append([]byte{}, pngFile...), bytes.Repeat([]byte{7}, testMaxImage)...)}
			for _, c := range []struct {
				name   string
				tok    string
				parts  []formPart
				status int
				code   engine.Code
			}{
				{"html", superv, append(fields("x"), formPart{name: "medias", fileName: "a.png", contentType: "image/png", data: htmlFile}),
					http.StatusUnsupportedMediaType, engine.ErrMediaTypeNotAllowed},
				{"an executable name", superv, append(fields("x"), formPart{name: "file", fileName: "setup.exe", data: pdfFile}),
					http.StatusUnsupportedMediaType, engine.ErrMediaTypeNotAllowed},
				{"too large", superv, append(fields("x"), big), http.StatusRequestEntityTooLarge, engine.ErrMediaTooLarge},
				{"two files", superv, append(fields("x"), png("a.png"), png("b.png")), http.StatusBadRequest, engine.ErrValidation},
				{"no title", superv, append(fields(""), png("a.png")), http.StatusBadRequest, engine.ErrValidation},
				{"a word for priority", superv, append([]formPart{{name: "priority", data: []byte("alta")}}, png("a.png")),
					http.StatusBadRequest, engine.ErrValidation},
				{"priority out of range", superv, append(append(fields("x"), formPart{name: "priority", data: []byte("9")}), png("a.png")),
					http.StatusBadRequest, engine.ErrValidation},
				{"a word for status", superv, append(append(fields("x"), formPart{name: "status", data: []byte("maybe")}), png("a.png")),
					http.StatusBadRequest, engine.ErrValidation},
				{"an attendant", ana, append(fields("x"), png("a.png")), http.StatusForbidden, engine.ErrNoPermission},
			} {
				t.Run(c.name, func(t *testing.T) {
					e.form("POST", c.tok, "/announcements", c.parts...).wantErr(t, c.status, c.code)
					e.wantFiles(t, 1)
				})
			}
			// A cut or malformed form.
			e.do(req{method: "POST", path: "/announcements", token: superv, body: "--x\r\nnot a part",
				header: map[string]string{"Content-Type": "multipart/form-data; boundary=x"}}).
				wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			e.do(req{method: "POST", path: "/announcements", token: superv, body: "whatever",
				header: map[string]string{"Content-Type": "multipart/form-data"}}).
				wantErr(t, http.StatusBadRequest, engine.ErrInvalidJSON)
			// Another tenant's announcement is not found, and nothing is stored for it.
			e.form("PUT", admin2, fmt.Sprintf("/announcements/%d", a.ID), append(fields("x"), png("a.png"))...).
				wantErr(t, http.StatusNotFound, engine.ErrNotFound)
			e.wantFiles(t, 1)
			e.wantNoEvent(t)
		})

		t.Run("replace, keep, remove, delete", func(t *testing.T) {
			first := e.files(t)[0]
			r := e.form("PUT", superv, fmt.Sprintf("/announcements/%d", a.ID), append(fields("Cardápio"),
				formPart{name: "medias", fileName: "menu.pdf", contentType: "application/pdf", data: pdfFile})...)
			r.wantStatus(t, http.StatusOK)
			var up engine.Announcement
			r.json(t, &up)
			if up.MediaName != "menu.pdf" || up.MediaPath == a.MediaPath {
				t.Fatalf("replaced %s", r.Body)
			}
			e.wantEvent(t, co1, "announcement", "update")
			if files := e.files(t); len(files) != 1 || files[0] == first {
				t.Fatalf("after replace %v (the old file must go)", files)
			}
			// JSON and a form without a file keep the attachment.
			e.put(superv, fmt.Sprintf("/announcements/%d", a.ID), map[string]any{"title": "Cardápio", "text": "json"}).json(t, &up)
			e.wantEvent(t, co1, "announcement", "update")
			if up.MediaName != "menu.pdf" {
				t.Fatalf("JSON update lost the attachment: %+v", up)
			}
			e.form("PUT", superv, fmt.Sprintf("/announcements/%d", a.ID), append(fields("Cardápio"),
				formPart{name: "removeMedia", data: []byte("true")})...).json(t, &up)
			e.wantEvent(t, co1, "announcement", "update")
			if up.MediaPath != "" || up.MediaName != "" {
				t.Fatalf("removeMedia left %+v", up)
			}
			e.wantFiles(t, 0)

			r = e.form("POST", superv, "/announcements", append(fields("Outro"), png("x.png"))...)
			r.wantStatus(t, http.StatusCreated)
			r.json(t, &up)
			e.wantEvent(t, co1, "announcement", "create")
			e.wantFiles(t, 1)
			e.del(superv, fmt.Sprintf("/announcements/%d", up.ID)).wantStatus(t, http.StatusNoContent)
			e.wantEvent(t, co1, "announcement", "delete")
			e.wantFiles(t, 0)
		})
	})
}
