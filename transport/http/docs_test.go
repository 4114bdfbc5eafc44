package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"atende/docs"
	httpapi "atende/transport/http"
)

func getDoc(t *testing.T, h http.Handler, method, target string) (int, string, http.Header) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b), rec.Result().Header
}

// TestDocsServesTheProjectDocs: the embedded docs render as HTML pages, the index
// lists them by title, and links written from the repository's root work.
func TestDocsServesTheProjectDocs(t *testing.T) {
	h := httpapi.DocsHandler(docs.FS())
	code, body, hd := getDoc(t, h, http.MethodGet, "/docs/")
	if code != 200 || !strings.Contains(body, `<a href="supervision.md">Supervision: wait panel`) ||
		!strings.Contains(body, `<a href="api.md">`) {
		t.Fatalf("index %d: %.400s", code, body)
	}
	if ct := hd.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	if csp := hd.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q", csp)
	}
	code, body, _ = getDoc(t, h, http.MethodGet, "/docs/supervision.md")
	if code != 200 || !strings.Contains(body, "<title>Supervision: wait panel") || !strings.Contains(body, "<table>") ||
		!strings.Contains(body, "<h2") {
		t.Fatalf("supervision.md %d: %.400s", code, body)
	}
	if code, body, _ := getDoc(t, h, http.MethodGet, "/docs/docs/dashboard.md"); code != 200 || !strings.Contains(body, "<h1") {
		t.Errorf("a link from the repository's root: %d", code)
	}
	if code, _, _ := getDoc(t, h, http.MethodHead, "/docs/api.md"); code != 200 {
		t.Errorf("HEAD: %d", code)
	}
}

// TestDocsHostile: names outside the docs, odd spellings and methods are refused, and
// raw HTML in a file is escaped, not run.
func TestDocsHostile(t *testing.T) {
	h := httpapi.DocsHandler(fstest.MapFS{
		"a.md":      {Data: []byte("# A\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[x](javascript:alert(3))\n")},
		"secret.go": {Data: []byte("package secret")},
	})
	for _, target := range []string{
		"/docs/../go.mod", "/docs/%2e%2e/go.mod", "/docs/..%2fgo.mod", "/docs/A.md", "/docs/b.md", "/docs/secret.go",
		"/docs/a.md%00", "/docs/a.md/", "/docs/.md", "/docs/" + strings.Repeat("a", 70) + ".md", "/docs/a%20.md",
		"/docs/docs/docs/a.md", "/docs/%3Cscript%3E.md",
	} {
		if code, _, _ := getDoc(t, h, http.MethodGet, target); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", target, code)
		}
	}
	if code, _, hd := getDoc(t, h, http.MethodPost, "/docs/a.md"); code != http.StatusMethodNotAllowed || hd.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d", code)
	}
	code, body, _ := getDoc(t, h, http.MethodGet, "/docs/a.md")
	if code != 200 {
		t.Fatalf("a.md: %d", code)
	}
	for _, bad := range []string{"<script>alert", "<img", "javascript:"} {
		if strings.Contains(body, bad) {
			t.Errorf("page carries %q: %s", bad, body)
		}
	}
}
