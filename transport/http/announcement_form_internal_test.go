package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"atende/engine"
)

// announcementMemMedia is an in-memory media store that refuses what does not start like a PNG
// (as the real store refuses unknown active content) and remembers what it keeps.
type announcementMemMedia struct {
	mu    sync.Mutex
	files map[string]bool
	n     int
}

func (m *announcementMemMedia) Save(_ context.Context, companyID engine.ID, r io.Reader, name, _ string) (engine.MediaFile, error) {
	b, err := io.ReadAll(io.LimitReader(r, 1<<16+1))
	if err != nil {
		return engine.MediaFile{}, err
	}
	if !bytes.HasPrefix(b, []byte("\x89PNG")) {
		return engine.MediaFile{}, engine.E(engine.ErrMediaTypeNotAllowed)
	}
	if len(b) > 1<<16 {
		return engine.MediaFile{}, engine.E(engine.ErrMediaTooLarge)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n++
	p := fmt.Sprintf("%d/%032x.png", companyID, m.n)
	m.files[p] = true
	return engine.MediaFile{Path: p, Name: name, Type: engine.MediaImage, MIME: "image/png", Size: int64(len(b))}, nil
}

func (m *announcementMemMedia) Remove(_ context.Context, _ engine.ID, p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, p)
	return nil
}

func (m *announcementMemMedia) kept() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.files)
}

func (m *announcementMemMedia) Open(context.Context, engine.ID, string) (io.ReadSeekCloser, engine.MediaFile, error) {
	return nil, engine.MediaFile{}, engine.E(engine.ErrNotFound)
}
func (m *announcementMemMedia) URL(_ engine.ID, p string, _ time.Duration) (string, error) {
	return "/media/" + p, nil
}
func (m *announcementMemMedia) NamedURL(_ engine.ID, p, _ string, _ time.Duration) (string, error) {
	return "/media/" + p, nil
}

// FuzzAnnouncementForm feeds hostile multipart bodies to the announcement form: it
// never panics, answers a form or a catalogue error (never a bare one), keeps at most
// one file for a form it accepts and none for one it refuses.
func FuzzAnnouncementForm(f *testing.F) {
	png := "\x89PNG\r\n\x1a\nrest"
	for _, s := range []string{
		"",
		"--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nAviso\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"medias\"; filename=\"a.png\"\r\n\r\n" + png + "\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"medias\"; filename=\"a.png\"\r\n\r\n" + png + "\r\n--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.png\"\r\n\r\n" + png + "\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"medias\"; filename=\"a.png\"\r\n\r\n" + png + "\r\n--x\r\nContent-Disposition: form-data; name=\"priority\"\r\n\r\nalta\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"status\"\r\n\r\nmaybe\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"media\"; filename=\"x.html\"\r\n\r\n<script>\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"removeMedia\"\r\n\r\ntrue\r\n--x--\r\n",
		"--x\r\nContent-Disposition: form-data; name=\"medias\"; filename=\"a.png\"\r\n\r\n" + png,
		strings.Repeat("--x\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nv\r\n", maxAnnouncementParts+2) + "--x--\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		media := &announcementMemMedia{files: map[string]bool{}}
		s := &Server{deps: Deps{TicketDeps: TicketDeps{Media: media, MaxUploadBytes: 1 << 20}}}
		r := httptest.NewRequest("POST", "/announcements", strings.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		in, err := s.readAnnouncementForm(httptest.NewRecorder(), r, engine.Principal{UserID: 1, CompanyID: 1})
		if err != nil {
			if engine.CodeOf(err) == engine.ErrInternal {
				t.Fatalf("bare error %v for %q", err, body)
			}
			if media.kept() != 0 {
				t.Fatalf("refused form kept %d files: %q", media.kept(), body)
			}
			return
		}
		switch {
		case in.Media == nil || in.Media.Path == "":
			if media.kept() != 0 {
				t.Fatalf("a form without an attachment kept %d files", media.kept())
			}
		case media.kept() != 1 || !media.files[in.Media.Path]:
			t.Fatalf("attachment %+v, kept %v", in.Media, media.files)
		}
	})
}
