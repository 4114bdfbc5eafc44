package media

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"atende/engine"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// newTestStore builds a Store on a fresh folder with small limits and a fixed clock.
func newTestStore(t testing.TB, mutate func(*Config)) (*Store, string) {
	t.Helper()
	cfg := Config{
		Dir:         t.TempDir(),
		Secret:      testSecret,
		MaxImage:    4 << 10,
		MaxAudio:    4 << 10,
		MaxVideo:    8 << 10,
		MaxDocument: 16 << 10,
		Now:         func() time.Time { return time.Unix(1_800_000_000, 0) },
	}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, cfg.Dir
}

// filesUnder lists every regular file below dir, relative to it.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return out
}

// sized is head padded with filler to n bytes.
func sized(head []byte, n int) []byte {
	b := bytes.Repeat([]byte{0x42}, n)
	copy(b, head)
	return b
}

func TestNewConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{name: "no secret", cfg: Config{Dir: t.TempDir()}},
		{name: "short secret", cfg: Config{Dir: t.TempDir(), Secret: []byte("short")}},
		{name: "base url with query", cfg: Config{Dir: t.TempDir(), Secret: testSecret, BaseURL: "/media?x=1"}},
		{name: "relative base url", cfg: Config{Dir: t.TempDir(), Secret: testSecret, BaseURL: "media"}},
		{name: "negative limit", cfg: Config{Dir: t.TempDir(), Secret: testSecret, MaxVideo: -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if s, err := New(tc.cfg); err == nil {
				_ = s.Close()
				t.Fatal("New accepted an unusable config")
			}
		})
	}
}

func TestSave(t *testing.T) {
	s, dir := newTestStore(t, nil)
	ctx := context.Background()
	content := sized(jpegHead, 3000)
	f, err := s.Save(ctx, 7, bytes.NewReader(content), "../fachada.jpeg", "text/html")
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	if f.Type != engine.MediaImage || f.MIME != "image/jpeg" || f.Size != 3000 || f.Name != "fachada.jpeg" {
		t.Fatalf("file %+v", f)
	}
	if !strings.HasPrefix(f.Path, "7/") || !fileNameRE.MatchString(strings.TrimPrefix(f.Path, "7/")) || !strings.HasSuffix(f.Path, ".jpg") {
		t.Fatalf("path %q", f.Path)
	}
	onDisk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
	if err != nil || !bytes.Equal(onDisk, content) {
		t.Fatalf("stored content differs (err %v)", err)
	}
	if got := filesUnder(t, dir); len(got) != 1 || got[0] != f.Path {
		t.Fatalf("files on disk %v", got)
	}

	t.Run("tenants have their own folders and names are random", func(t *testing.T) {
		g, err := s.Save(ctx, 8, bytes.NewReader(content), "fachada.jpeg", "")
		if err != nil {
			t.Fatalf("Save: %v", err)
		}
		if !strings.HasPrefix(g.Path, "8/") || strings.TrimPrefix(g.Path, "8/") == strings.TrimPrefix(f.Path, "7/") {
			t.Fatalf("paths %q and %q", f.Path, g.Path)
		}
	})
	t.Run("open reads it back for its tenant only", func(t *testing.T) {
		rc, info, err := s.Open(ctx, 7, f.Path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		got, _ := io.ReadAll(rc)
		_ = rc.Close()
		if !bytes.Equal(got, content) || info.Size != 3000 || info.Type != engine.MediaImage || info.MIME != "image/jpeg" {
			t.Fatalf("open %+v", info)
		}
		if _, _, err := s.Open(ctx, 8, f.Path); !errors.Is(err, engine.E(engine.ErrNotFound)) {
			t.Fatalf("another tenant opened it: %v", err)
		}
		if _, _, err := s.Open(ctx, 7, "7/../7/"+strings.TrimPrefix(f.Path, "7/")); !errors.Is(err, engine.E(engine.ErrNotFound)) {
			t.Fatalf("dot segments accepted: %v", err)
		}
	})
}

func TestSaveRefusals(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		companyID engine.ID
		reader    func() io.Reader
		declared  string
		wantCode  engine.Code
		wantHTTP  int
	}{
		{
			name:      "image over its limit",
			companyID: 1,
			reader:    func() io.Reader { return bytes.NewReader(sized(pngHead, 4<<10+1)) },
			wantCode:  engine.ErrMediaTooLarge,
			wantHTTP:  413,
		},
		{
			name:      "audio over its limit",
			companyID: 1,
			reader:    func() io.Reader { return bytes.NewReader(sized(opusHead, 5<<10)) },
			wantCode:  engine.ErrMediaTooLarge,
			wantHTTP:  413,
		},
		{
			name:      "video over its limit, streamed in small reads",
			companyID: 1,
			reader:    func() io.Reader { return iotest.OneByteReader(bytes.NewReader(sized(mp4Head, 9<<10))) },
			wantCode:  engine.ErrMediaTooLarge,
			wantHTTP:  413,
		},
		{
			name:      "document over its limit",
			companyID: 1,
			reader:    func() io.Reader { return bytes.NewReader(sized(pdfHead, 17<<10)) },
			wantCode:  engine.ErrMediaTooLarge,
			wantHTTP:  413,
		},
		{
			name:      "executable",
			companyID: 1,
			reader:    func() io.Reader { return bytes.NewReader(sized([]byte("MZ\x90\x00"), 2000)) },
			declared:  "foto.jpg",
			wantCode:  engine.ErrMediaTypeNotAllowed,
			wantHTTP:  415,
		},
		{
			name:      "html",
			companyID: 1,
			reader:    func() io.Reader { return strings.NewReader("<html><script>alert(document.cookie)</script></html>") },
			declared:  "foto.jpg",
			wantCode:  engine.ErrMediaTypeNotAllowed,
			wantHTTP:  415,
		},
		{
			name:      "svg",
			companyID: 1,
			reader: func() io.Reader {
				return strings.NewReader(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>`)
			},
			declared: "logo.png",
			wantCode: engine.ErrMediaTypeNotAllowed,
			wantHTTP: 415,
		},
		{
			name:      "script named to run",
			companyID: 1,
			reader:    func() io.Reader { return strings.NewReader(`WScript.Shell.Run("calc")`) },
			declared:  "boleto.js",
			wantCode:  engine.ErrMediaTypeNotAllowed,
			wantHTTP:  415,
		},
		{
			name:      "empty",
			companyID: 1,
			reader:    func() io.Reader { return strings.NewReader("") },
			wantCode:  engine.ErrValidation,
			wantHTTP:  400,
		},
		{
			name:      "no tenant",
			companyID: 0,
			reader:    func() io.Reader { return bytes.NewReader(jpegHead) },
			wantCode:  engine.ErrValidation,
			wantHTTP:  400,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newTestStore(t, nil)
			f, err := s.Save(ctx, tc.companyID, tc.reader(), tc.declared, "image/png")
			if engine.CodeOf(err) != tc.wantCode {
				t.Fatalf("Save = %+v, %v; want %s", f, err, tc.wantCode)
			}
			if got := engine.CodeOf(err).HTTPStatus(); got != tc.wantHTTP {
				t.Fatalf("status %d, want %d", got, tc.wantHTTP)
			}
			if got := filesUnder(t, dir); len(got) != 0 {
				t.Fatalf("refused file left %v on disk", got)
			}
		})
	}
}

// failingReader yields data, then fails.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestSaveFailuresKeepNothing(t *testing.T) {
	t.Run("reader fails mid-stream", func(t *testing.T) {
		s, dir := newTestStore(t, nil)
		boom := errors.New("connection reset")
		_, err := s.Save(context.Background(), 1, &failingReader{data: sized(pdfHead, 3000), err: boom}, "a.pdf", "")
		if !errors.Is(err, boom) {
			t.Fatalf("Save: %v, want the reader's error", err)
		}
		if got := filesUnder(t, dir); len(got) != 0 {
			t.Fatalf("partial file left: %v", got)
		}
	})
	t.Run("context cancelled mid-stream", func(t *testing.T) {
		s, dir := newTestStore(t, nil)
		ctx, cancel := context.WithCancel(context.Background())
		r := io.MultiReader(bytes.NewReader(sized(pdfHead, 1000)), readerFunc(func(p []byte) (int, error) {
			cancel()
			return copy(p, "more"), nil
		}), bytes.NewReader(make([]byte, 1000)))
		_, err := s.Save(ctx, 1, r, "a.pdf", "")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Save: %v, want context.Canceled", err)
		}
		if got := filesUnder(t, dir); len(got) != 0 {
			t.Fatalf("partial file left: %v", got)
		}
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Config{Dir: dir, Secret: []byte(strings.Repeat("k", 32))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	f, err := s.Save(ctx, 1, bytes.NewReader(append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 64)...)), "a.png", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		company engine.ID
		path    string
	}{{2, f.Path}, {1, "1/../../etc/passwd"}, {1, "1/" + strings.Repeat("0", 32) + ".png"}, {1, ""}} {
		if err := s.Remove(ctx, bad.company, bad.path); engine.CodeOf(err) != engine.ErrNotFound {
			t.Errorf("remove %d %q: %v, want ErrNotFound", bad.company, bad.path, err)
		}
	}
	if _, _, err := s.Open(ctx, 1, f.Path); err != nil {
		t.Fatalf("a refused remove took the file: %v", err)
	}
	if err := s.Remove(ctx, 1, f.Path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Open(ctx, 1, f.Path); engine.CodeOf(err) != engine.ErrNotFound {
		t.Fatalf("after remove: %v", err)
	}
}
