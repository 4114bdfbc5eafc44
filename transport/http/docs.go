package httpapi

import (
	"bytes"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// docName is a documentation file name: lower-case words, ".md".
var docName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}\.md$`)

// docsCSP lets a documentation page use its own inline style and nothing else: no
// script, image, font or connection (the Markdown renderer escapes raw HTML anyway).
const docsCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsHandler serves the project's documentation (docs.FS) as HTML pages: GET /docs/
// lists the files by their first heading, GET /docs/<name>.md renders one. Links
// between the files are relative ("api.md", "docs/api.md") and land on the same
// route. No login: the docs are the project's public documentation, and a plain link
// from the Support page carries no token. Each page is rendered once and kept.
type docsHandler struct {
	files fs.FS
	md    goldmark.Markdown

	mu    sync.Mutex
	pages map[string][]byte // guarded by mu: rendered pages by file name ("" is the index)
}

// DocsHandler returns the handler of GET /docs/ over files (Markdown at its root).
func DocsHandler(files fs.FS) http.Handler {
	return &docsHandler{files: files, pages: map[string][]byte{},
		md: goldmark.New(goldmark.WithExtensions(extension.GFM))}
}

var docsPage = template.Must(template.New("doc").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Atende docs</title>
<style>
body{font:16px/1.55 system-ui,sans-serif;color:#1a1a1a;background:#fff;margin:0}
main{max-width:60rem;margin:0 auto;padding:1rem 1.5rem 3rem}
nav{padding:.75rem 1.5rem;border-bottom:1px solid #ccc}
a{color:#0b57d0}
code,pre{font-family:ui-monospace,monospace;font-size:.9em;background:#f3f3f3}
pre{padding:.75rem;overflow:auto}
table{border-collapse:collapse;display:block;overflow:auto}
th,td{border:1px solid #bbb;padding:.3rem .5rem;text-align:left;vertical-align:top}
</style>
</head>
<body>
<nav aria-label="Documentation"><a href="/docs/">Atende documentation</a></nav>
<main>
{{.Body}}
</main>
</body>
</html>
`))

func (h *docsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/docs/")
	name = strings.TrimPrefix(name, "docs/") // a link written from the repository's root
	if name != "" && !docName.MatchString(name) {
		http.NotFound(w, r)
		return
	}
	page, ok, err := h.page(name)
	if err != nil {
		http.Error(w, "documentation unavailable", http.StatusInternalServerError)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", docsCSP)
	hd.Set("Cache-Control", "no-cache")
	_, _ = w.Write(page)
}

// page renders name ("" for the index), or reports that there is no such file.
func (h *docsHandler) page(name string) ([]byte, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.pages[name]; ok {
		return p, true, nil
	}
	var title string
	var body bytes.Buffer
	if name == "" {
		title = "Atende documentation"
		list, err := h.index()
		if err != nil {
			return nil, false, err
		}
		body.WriteString("<h1>Atende documentation</h1>\n<ul>\n")
		for _, d := range list {
			body.WriteString(`<li><a href="` + template.HTMLEscapeString(d.name) + `">` + template.HTMLEscapeString(d.title) + "</a></li>\n")
		}
		body.WriteString("</ul>\n")
	} else {
		src, err := fs.ReadFile(h.files, name)
		if err != nil {
			return nil, false, nil
		}
		title = docTitle(src, name)
		if err := h.md.Convert(src, &body); err != nil {
			return nil, false, err
		}
	}
	var out bytes.Buffer
	//nolint:gosec // Body is goldmark's output, which escapes the Markdown's raw HTML.
	if err := docsPage.Execute(&out, struct {
		Title string
		Body  template.HTML
	}{title, template.HTML(body.String())}); err != nil {
		return nil, false, err
	}
	h.pages[name] = out.Bytes()
	return out.Bytes(), true, nil
}

type docEntry struct{ name, title string }

// index lists the files with their titles, by title.
func (h *docsHandler) index() ([]docEntry, error) {
	entries, err := fs.ReadDir(h.files, ".")
	if err != nil {
		return nil, err
	}
	var out []docEntry
	for _, e := range entries {
		if e.IsDir() || !docName.MatchString(e.Name()) {
			continue
		}
		src, err := fs.ReadFile(h.files, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, docEntry{name: e.Name(), title: docTitle(src, e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].title < out[j].title })
	return out, nil
}

// docTitle is the file's first "# " heading, else its name without ".md".
func docTitle(src []byte, name string) string {
	for line := range strings.SplitSeq(string(src), "\n") {
		if t, ok := strings.CutPrefix(line, "# "); ok && strings.TrimSpace(t) != "" {
			return strings.TrimSpace(t)
		}
	}
	return strings.TrimSuffix(path.Base(name), ".md")
}
