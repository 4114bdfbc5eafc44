package media

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serve runs one request through the store's handler directly (no mux cleaning).
func serve(s *Store, method, target string, header map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://atende.test/", nil)
	r.URL = &url.URL{Path: strings.SplitN(target, "?", 2)[0]}
	if i := strings.IndexByte(target, '?'); i >= 0 {
		r.URL.RawQuery = target[i+1:]
	}
	r.RequestURI = target
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func TestServe(t *testing.T) {
	s, _ := newTestStore(t, nil)
	ctx := context.Background()
	img := sized(pngHead, 2000)
	pic, err := s.Save(ctx, 3, bytes.NewReader(img), "mapa.png", "")
	if err != nil {
		t.Fatal(err)
	}
	doc := sized(pdfHead, 5000)
	pdf, err := s.Save(ctx, 3, bytes.NewReader(doc), "contrato.pdf", "")
	if err != nil {
		t.Fatal(err)
	}
	picURL, err := s.URL(3, pic.Path, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pdfURL, err := s.NamedURL(3, pdf.Path, "Contrato de serviço.pdf", time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("image inline", func(t *testing.T) {
		w := serve(s, "GET", picURL, nil)
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), img) {
			t.Fatalf("status %d, %d bytes", w.Code, w.Body.Len())
		}
		h := w.Header()
		for k, want := range map[string]string{
			"Content-Type":           "image/png",
			"X-Content-Type-Options": "nosniff",
			"Content-Disposition":    `inline; filename=` + strings.TrimPrefix(pic.Path, "3/"),
			"Cache-Control":          "private, max-age=3600",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		if !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("CSP %q", h.Get("Content-Security-Policy"))
		}
	})
	t.Run("document as attachment under its name", func(t *testing.T) {
		w := serve(s, "GET", pdfURL, nil)
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), doc) {
			t.Fatalf("status %d", w.Code)
		}
		if got := w.Header().Get("Content-Disposition"); got != `attachment; filename*=utf-8''Contrato%20de%20servi%C3%A7o.pdf` {
			t.Fatalf("Content-Disposition %q", got)
		}
		if got := w.Header().Get("Content-Type"); got != "application/pdf" {
			t.Fatalf("Content-Type %q", got)
		}
	})
	t.Run("head and range", func(t *testing.T) {
		if w := serve(s, "HEAD", picURL, nil); w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") != "2000" {
			t.Fatalf("HEAD status %d, length %q", w.Code, w.Header().Get("Content-Length"))
		}
		w := serve(s, "GET", picURL, map[string]string{"Range": "bytes=0-7"})
		if w.Code != 206 || !bytes.Equal(w.Body.Bytes(), img[:8]) {
			t.Fatalf("range status %d body %q", w.Code, w.Body.Bytes())
		}
	})

	now := time.Unix(1_800_000_000, 0)
	// A URL is /media/<exp>.<sig>[.<name>]/<cid>/<file>.
	picGrant, picTail := splitGrant(t, picURL)
	pdfGrant, pdfTail := splitGrant(t, pdfURL)
	picExp, picSig, _ := strings.Cut(picGrant, ".")
	pdfParts := strings.Split(pdfGrant, ".")
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	cases := []struct {
		name   string
		target func() string
		method string
		want   int
	}{
		{name: "no signature", target: func() string { return "/media/" + pic.Path }, want: 403},
		{name: "bad signature", target: func() string { return "/media/" + picExp + ".A" + picSig + picTail }, want: 403},
		{name: "truncated signature", target: func() string { return "/media/" + picGrant[:len(picGrant)-2] + picTail }, want: 403},
		{name: "empty signature", target: func() string { return "/media/" + picExp + "." + picTail }, want: 403},
		{name: "no grant parts", target: func() string { return "/media/" + picExp + picTail }, want: 403},
		{name: "too many grant parts", target: func() string { return "/media/" + picGrant + "." + b64("x.png") + ".x" + picTail }, want: 403},
		{name: "signature of another file", target: func() string {
			return strings.Replace(picURL, strings.TrimPrefix(pic.Path, "3/"), strings.TrimPrefix(pdf.Path, "3/"), 1)
		}, want: 403},
		{name: "another tenant's path with a valid signature", target: func() string {
			return strings.Replace(picURL, "/3/", "/4/", 1)
		}, want: 403},
		{name: "expiry moved forward", target: func() string {
			return "/media/" + fmt.Sprint(now.Add(48*time.Hour).Unix()) + "." + picSig + picTail
		}, want: 403},
		{name: "name changed", target: func() string {
			return "/media/" + pdfParts[0] + "." + pdfParts[1] + "." + b64("Outro.pdf") + pdfTail
		}, want: 403},
		{name: "name dropped", target: func() string { return "/media/" + pdfParts[0] + "." + pdfParts[1] + pdfTail }, want: 403},
		{name: "name added", target: func() string { return "/media/" + picGrant + "." + b64("x.pdf") + picTail }, want: 403},
		{name: "name not base64url", target: func() string { return "/media/" + picGrant + ".x+y" + picTail }, want: 403},
		{name: "query added to a grant", target: func() string { return picURL + "?n=x.pdf" }, want: 403},
		{name: "grant too long", target: func() string { return "/media/" + picGrant + "." + b64(strings.Repeat("a", 2000)) + picTail }, want: 403},
		{name: "legacy form: duplicated exp", target: func() string {
			return "/media/" + pic.Path + "?exp=" + picExp + "&exp=99999999999&sig=" + picSig
		}, want: 403},
		{name: "legacy form: name added", target: func() string { return "/media/" + pic.Path + "?exp=" + picExp + "&sig=" + picSig + "&n=x.pdf" }, want: 403},
		{name: "legacy form still served", target: func() string { return "/media/" + pic.Path + "?exp=" + picExp + "&sig=" + picSig }, want: 200},
		{name: "post", method: "POST", target: func() string { return picURL }, want: 405},
		{name: "unknown file with valid shape", target: func() string {
			u, _ := s.URL(3, "3/0123456789abcdef0123456789abcdef.png", time.Hour)
			return u
		}, want: 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.method
			if m == "" {
				m = "GET"
			}
			w := serve(s, m, tc.target(), nil)
			if w.Code != tc.want {
				t.Fatalf("status %d, want %d (%s)", w.Code, tc.want, w.Body.String())
			}
			if tc.want != 200 && (bytes.Contains(w.Body.Bytes(), img[:16]) || bytes.Contains(w.Body.Bytes(), doc[:16])) {
				t.Fatal("refused request got file content")
			}
		})
	}

	t.Run("expired", func(t *testing.T) {
		later, _ := newTestStore(t, func(c *Config) {
			c.Dir = s.cfg.Dir
			c.Now = func() time.Time { return now.Add(3 * time.Hour) }
		})
		if w := serve(later, "GET", picURL, nil); w.Code != 403 {
			t.Fatalf("status %d, want 403", w.Code)
		}
	})
	t.Run("urls end in the file's extension", func(t *testing.T) {
		// whaticket's client and others tell an image by the end of its URL.
		if !strings.HasSuffix(picURL, ".png") || !strings.HasSuffix(pdfURL, ".pdf") || strings.Contains(picURL, "?") {
			t.Fatalf("urls %s, %s", picURL, pdfURL)
		}
		if !strings.HasPrefix(picTail, "/3/") {
			t.Fatalf("tail %s", picTail)
		}
	})
	t.Run("urls built close together are equal", func(t *testing.T) {
		again, _ := s.URL(3, pic.Path, time.Hour)
		if again != picURL {
			t.Fatalf("%s != %s", again, picURL)
		}
	})
}

// splitGrant splits a media URL into its grant segment and the "/<cid>/<file>" rest.
func splitGrant(t *testing.T, u string) (grant, tail string) {
	t.Helper()
	rest, ok := strings.CutPrefix(u, "/media/")
	if !ok {
		t.Fatalf("url %q", u)
	}
	grant, tail, ok = strings.Cut(rest, "/")
	if !ok {
		t.Fatalf("url %q", u)
	}
	return grant, "/" + tail
}

// TestServeTraversal tries to reach files outside a tenant's folder, or outside the
// media folder, both straight into the handler (no path cleaning) and over a real
// listener with raw request lines behind a ServeMux.
func TestServeTraversal(t *testing.T) {
	parent := t.TempDir()
	secret := []byte("TOP-SECRET-CONTENT")
	if err := os.WriteFile(filepath.Join(parent, "secret.txt"), secret, 0o600); err != nil {
		t.Fatal(err)
	}
	s, dir := newTestStore(t, func(c *Config) { c.Dir = filepath.Join(parent, "media") })
	other, err := s.Save(context.Background(), 2, bytes.NewReader(sized(pngHead, 100)), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2", "plain.txt"), secret, 0o600); err != nil {
		t.Fatal(err)
	}
	// A symlink with a valid stored name, planted in tenant 1's folder.
	link := "0123456789abcdef0123456789abcdef.txt"
	if err := os.MkdirAll(filepath.Join(dir, "1"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "secret.txt"), filepath.Join(dir, "1", link)); err != nil {
		t.Fatal(err)
	}
	linkURL, err := s.URL(1, "1/"+link, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	otherFile := strings.TrimPrefix(other.Path, "2/")
	signed := func(cid, file string) string {
		return "?exp=1900000000&sig=" + s.sign(cid, file, "1900000000", "")
	}
	granted := func(cid, file string) string {
		return "/media/1900000000." + s.sign(cid, file, "1900000000", "") + "/" + cid + "/" + file
	}
	targets := []string{
		linkURL,
		granted("1", "../secret.txt"),
		granted("1", "../2/"+otherFile),
		"/media/1900000000." + s.sign("1", "../2/"+otherFile, "1900000000", "") + "/1/%2e%2e/2/" + otherFile,
		"/media/1900000000." + s.sign("1", "../2/"+otherFile, "1900000000", "") + "/1/..%2f2%2f" + otherFile,
		granted("2", "plain.txt"),
		granted("02", otherFile),
		granted("2", "./"+otherFile),
		granted("-2", otherFile),
		granted("2", strings.ToUpper(otherFile)),
		"/media/" + "1900000000." + s.sign("2", otherFile, "1900000000", "") + "/..//2/" + otherFile,
		"/media/../1900000000." + s.sign("2", otherFile, "1900000000", "") + "/2/" + otherFile,
		"/media/1/../secret.txt" + signed("1", "../secret.txt"),
		"/media/1/../../secret.txt" + signed("1", "../../secret.txt"),
		"/media/1/../2/" + otherFile + signed("1", "../2/"+otherFile),
		"/media/1/%2e%2e/2/" + otherFile + signed("1", "../2/"+otherFile),
		"/media/1/..%2f2%2f" + otherFile + signed("1", "../2/"+otherFile),
		"/media/../secret.txt",
		"/media/2/plain.txt" + signed("2", "plain.txt"),
		"/media//2/" + otherFile + signed("2", otherFile),
		"/media/02/" + otherFile + signed("02", otherFile),
		"/media/2/./" + otherFile + signed("2", "./"+otherFile),
		"/media/2/" + otherFile + "/" + signed("2", otherFile+"/"),
		"/media/2/" + otherFile + "%00.txt" + signed("2", otherFile+"\x00.txt"),
		"/media/-2/" + otherFile + signed("-2", otherFile),
		"/media/2/" + strings.ToUpper(otherFile) + signed("2", strings.ToUpper(otherFile)),
	}
	for _, target := range targets {
		t.Run("handler "+target[:min(len(target), 60)], func(t *testing.T) {
			u, err := url.Parse(target)
			if err != nil {
				t.Skipf("not a parseable URL: %v", err)
			}
			r := httptest.NewRequest("GET", "http://atende.test/", nil)
			r.URL = u
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code == 200 || bytes.Contains(w.Body.Bytes(), secret) {
				t.Fatalf("status %d body %q", w.Code, w.Body.String())
			}
		})
	}

	mux := http.NewServeMux()
	mux.Handle("/media/", s)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, target := range targets {
		t.Run("raw "+target[:min(len(target), 60)], func(t *testing.T) {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: atende.test\r\nConnection: close\r\n\r\n", target)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == 200 || bytes.Contains(body, secret) {
				t.Fatalf("status %d body %q", resp.StatusCode, body)
			}
		})
	}
}

func TestURLRefusesForeignPaths(t *testing.T) {
	s, _ := newTestStore(t, nil)
	for _, p := range []string{
		"4/0123456789abcdef0123456789abcdef.png",
		"3/../4/0123456789abcdef0123456789abcdef.png",
		"0123456789abcdef0123456789abcdef.png",
		"3/0123456789abcdef0123456789abcdef.exe",
		"3/0123456789abcdef0123456789abcdef.png.part",
	} {
		if u, err := s.URL(3, p, time.Minute); err == nil {
			t.Errorf("URL(3, %q) = %q", p, u)
		}
	}
	if _, err := s.URL(3, "3/0123456789abcdef0123456789abcdef.png", 0); err == nil {
		t.Error("URL accepted a zero ttl")
	}
}

// FuzzServeGrant: no request path, grant or query serves a file without the signature
// of that very file, tenant, expiry and name.
func FuzzServeGrant(f *testing.F) {
	s, _ := newTestStore(f, nil)
	pic, err := s.Save(context.Background(), 3, bytes.NewReader(sized(pngHead, 100)), "a.png", "")
	if err != nil {
		f.Fatal(err)
	}
	good, _ := s.URL(3, pic.Path, time.Hour)
	named, _ := s.NamedURL(3, pic.Path, "foto.png", time.Hour)
	for _, seed := range []string{good, named, good + "?n=x", "/media/" + pic.Path, "/media/1.2.3/3/" + strings.TrimPrefix(pic.Path, "3/")} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.Parse(target)
		if err != nil {
			return
		}
		r := httptest.NewRequest("GET", "http://atende.test/", nil)
		r.URL = u
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			return
		}
		// Served: the path must be one this store signed for that file.
		if u.Path != good && u.Path != strings.SplitN(named, "?", 2)[0] &&
			!(u.Path == "/media/"+pic.Path && strings.Contains(u.RawQuery, "sig=")) {
			t.Fatalf("served %q", target)
		}
	})
}
