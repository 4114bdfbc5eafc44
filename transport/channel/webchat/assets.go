package webchat

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

//go:embed assets/widget.js assets/demo.html
var assets embed.FS

// The widget script, compressed once, and its ETag.
var (
	widgetJS   = mustRead("assets/widget.js")
	widgetGzip = gzipped(widgetJS)
	widgetETag = etag(widgetJS)
	demoPage   = template.Must(template.ParseFS(assets, "assets/demo.html"))
)

func mustRead(name string) []byte {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic("webchat: embedded " + name + ": " + err.Error())
	}
	return b
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// serveWidget answers GET|HEAD <Path>widget.js: the embeddable script, gzipped for
// clients that accept it, cacheable for five minutes and revalidated by ETag.
func (s *Server) serveWidget(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", widgetETag)
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, widgetETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := widgetJS
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		body = widgetGzip
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding value allows gzip.
func acceptsGzip(v string) bool {
	for _, part := range strings.Split(v, ",") {
		name, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !ok {
			return true
		}
		f, err := strconv.ParseFloat(q, 64)
		return err == nil && f > 0
	}
	return false
}

// demoText is the demo page's text per language.
type demoText struct{ Title, Intro, Ask, Label, Go string }

var demoTexts = map[string]demoText{
	"pt-BR": {
		Title: "Atende — demonstração do chat", Intro: "O botão no canto inferior direito abre o chat desta conexão. Para colocá-lo no seu site:",
		Ask: "Informe o número da conexão de web chat.", Label: "Conexão", Go: "Abrir",
	},
	"en": {
		Title: "Atende — web chat demo", Intro: "The button at the bottom right opens this connection's chat. To put it on your site:",
		Ask: "Enter the id of a web chat connection.", Label: "Connection", Go: "Open",
	},
	"es": {
		Title: "Atende — demostración del chat", Intro: "El botón abajo a la derecha abre el chat de esta conexión. Para ponerlo en tu sitio:",
		Ask: "Indica el número de la conexión de web chat.", Label: "Conexión", Go: "Abrir",
	},
}

// serveDemo answers GET <Path>demo?c=<connection id>[&lang=pt-BR|en|es]: a page that
// embeds the widget for the connection (or asks for one).
func (s *Server) serveDemo(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	lang := q.Get("lang")
	if _, ok := demoTexts[lang]; !ok {
		lang = "pt-BR"
	}
	data := struct {
		Lang, Conn, Script string
		T                  demoText
	}{Lang: lang, T: demoTexts[lang]}
	if id, ok := parseConnID(q.Get("c")); ok {
		data.Conn = strconv.FormatInt(id, 10)
		scheme := "http"
		if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
			scheme = "https"
		}
		data.Script = scheme + "://" + r.Host + s.cfg.Path + "widget.js"
	}
	var buf bytes.Buffer
	if err := demoPage.Execute(&buf, data); err != nil {
		s.log.Error().Err(err).Msg("webchat demo page")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "+
		"connect-src 'self' ws: wss:; img-src 'self' data: http: https:; media-src 'self' http: https:; frame-ancestors 'none'")
	_, _ = w.Write(buf.Bytes())
}
