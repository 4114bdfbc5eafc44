package webchat

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func get(t *testing.T, e *env, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", e.http.URL+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// A bare transport: no transparent gzip, so that the test sees what was sent.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestWidgetScript(t *testing.T) {
	e := newEnv(t, nil)
	// The budget is on what a visitor downloads: the script is served gzipped.
	if len(widgetGzip) >= 8<<10 {
		t.Fatalf("widget.js is %d bytes gzipped, the budget is 8 KiB", len(widgetGzip))
	}
	resp, body := get(t, e, "/webchat/widget.js", nil)
	if resp.StatusCode != 200 || !bytes.Equal(body, widgetJS) {
		t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
	}
	for k, want := range map[string]string{
		"Content-Type":           "text/javascript; charset=utf-8",
		"X-Content-Type-Options": "nosniff",
		"ETag":                   widgetETag,
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	resp, body = get(t, e, "/webchat/widget.js", map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("not gzipped: %v", resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !bytes.Equal(plain, widgetJS) {
		t.Fatal("gzipped widget differs")
	}
	if resp, _ := get(t, e, "/webchat/widget.js", map[string]string{"Accept-Encoding": "gzip;q=0"}); resp.Header.Get("Content-Encoding") != "" {
		t.Fatal("gzip sent to a client that refuses it")
	}
	if resp, _ := get(t, e, "/webchat/widget.js", map[string]string{"If-None-Match": widgetETag}); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation answered %d", resp.StatusCode)
	}
}

// TestWidgetDictionaries keeps the three languages of the widget's dictionary in
// step: same keys, no empty text.
func TestWidgetDictionaries(t *testing.T) {
	src := string(widgetJS)
	keysOf := func(lang string) []string {
		start := strings.Index(src, "    "+lang+": {")
		if start < 0 {
			t.Fatalf("no %s dictionary", lang)
		}
		end := strings.Index(src[start:], "' }") + 1 // texts may hold {placeholders}
		var keys []string
		for _, m := range regexp.MustCompile(`(\w+): '([^']*)'`).FindAllStringSubmatch(src[start:start+end], -1) {
			if m[2] == "" {
				t.Errorf("%s.%s is empty", lang, m[1])
			}
			keys = append(keys, m[1])
		}
		slices.Sort(keys)
		return keys
	}
	pt := keysOf("pt")
	if len(pt) < 15 {
		t.Fatalf("pt has %d keys", len(pt))
	}
	for _, lang := range []string{"en", "es"} {
		if got := keysOf(lang); !slices.Equal(got, pt) {
			t.Errorf("%s keys %v differ from pt %v", lang, got, pt)
		}
	}
}

// TestWidgetSyntax parses the widget with Node, when Node is installed.
func TestWidgetSyntax(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if out, err := exec.Command(node, "--check", "assets/widget.js").CombinedOutput(); err != nil {
		t.Fatalf("node --check: %v\n%s", err, out)
	}
}

// TestWidgetTimes runs the widget's time formatter in Node for a visitor whose locale
// keeps a 12-hour clock and whose zone is not the tenant's: times are the tenant's
// (the welcome's timeZone), HH:mm on a 24-hour clock. Without a zone, or with one the
// browser does not know, they are the visitor's own, still on a 24-hour clock.
func TestWidgetTimes(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	src := string(widgetJS)
	i := strings.Index(src, "function hhmm(")
	if i < 0 {
		t.Fatal("widget.js has no hhmm formatter")
	}
	fn := src[i : i+strings.Index(src[i:], "\n")]
	script := fn + `
console.log(JSON.stringify([
  hhmm('2026-11-26T18:05:00Z', 'America/Cuiaba'),
  hhmm('2026-11-26T03:07:00.123Z', 'America/Cuiaba'),
  hhmm('2026-11-26T12:00:00Z', ''),
  hhmm('2026-11-26T18:05:00Z', 'Not/AZone'),
  hhmm('not a date', 'America/Cuiaba'),
]));`
	cmd := exec.Command(node, "-e", script)
	cmd.Env = append(cmd.Environ(), "TZ=Asia/Kolkata", "LANG=en_US.UTF-8", "LC_ALL=en_US.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	want := `["14:05","23:07","17:30","23:35",""]`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("widget times %s, want %s", got, want)
	}
}

func TestDemoPage(t *testing.T) {
	e := newEnv(t, nil)
	cases := []struct {
		name    string
		query   string
		want    []string
		notWant []string
	}{
		{name: "embeds the widget", query: "?c=7", want: []string{`<html lang="pt-BR">`, `<script src="widget.js" data-connection="7" async>`, "demonstração"}},
		{name: "english", query: "?c=7&lang=en", want: []string{`<html lang="en">`, "web chat demo"}},
		{name: "spanish", query: "?c=7&lang=es", want: []string{`<html lang="es">`, "demostración"}},
		{name: "unknown language falls back", query: "?c=7&lang=xx", want: []string{`<html lang="pt-BR">`}},
		{name: "no connection asks for one", query: "", want: []string{`<form method="get" action="demo">`}, notWant: []string{"data-connection"}},
		{name: "injection attempt", query: `?c=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&lang=%22%3E%3Cb%3E`,
			want: []string{`<html lang="pt-BR">`}, notWant: []string{"alert(1)", "<b>", "data-connection"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, e, "/webchat/demo"+tc.query, nil)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Fatalf("CSP %q", resp.Header.Get("Content-Security-Policy"))
			}
			for _, w := range tc.want {
				if !strings.Contains(string(body), w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(string(body), w) {
					t.Errorf("page holds %q", w)
				}
			}
		})
	}
}

// TestWidgetCallLinks runs the widget's message text renderer in Node: a video
// call link of the widget's own server in an attendant's message becomes a link
// to the call page's web chat mode (connection and visitor token in the fragment);
// a link to another origin, and the visitor's own text, stay plain text.
func TestWidgetCallLinks(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	src := string(widgetJS)
	i, j := strings.Index(src, "  var CALL = "), strings.Index(src, "  function add(")
	if i < 0 || j < i {
		t.Fatal("widget.js has no call link renderer")
	}
	script := `
var base = 'https://atende.example/webchat/', conn = '7', st = { v: 'AbC.sig+' };
var document = { createTextNode: function (s) { return { text: s }; } };
function el(tag, cls, text, parent, props) { var e = { tag: tag, text: text }; for (var k in props) e[k] = props[k]; parent.appendChild(e); return e; }
function box() { var b = { parts: [] }; b.appendChild = function (n) { b.parts.push(n.tag ? { a: n.href, text: n.text, target: n.target } : n.text); }; return b; }
` + src[i:j] + `
var out = [];
[['Entre na chamada:\nhttps://atende.example/call/call1.abc.def', true],
 ['https://evil.example/call/call1.abc.def and https://atende.example/call/x.y', true],
 ['https://atende.example/call/call1.abc.def', false],
 ['no link https://atende.example/calls/x', true]].forEach(function (c) { var b = box(); text(b, c[0], c[1]); out.push(b.parts); });
console.log(JSON.stringify(out));`
	out, err := exec.Command(node, "-e", script).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	want := `[["Entre na chamada:\n",{"a":"https://atende.example/call/call1.abc.def#via=webchat&c=7&v=AbC.sig%2B","text":"https://atende.example/call/call1.abc.def","target":"_blank"},""],` +
		`["https://evil.example/call/call1.abc.def and ",{"a":"https://atende.example/call/x.y#via=webchat&c=7&v=AbC.sig%2B","text":"https://atende.example/call/x.y","target":"_blank"},""],` +
		`["https://atende.example/call/call1.abc.def"],` +
		`["no link https://atende.example/calls/x"]]`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("widget call links\n got %s\nwant %s", got, want)
	}
}
