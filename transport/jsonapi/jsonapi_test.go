package jsonapi

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"atende/engine"
)

func request(contentType, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

func TestDecodeJSONRefusesHostileBodies(t *testing.T) {
	type body struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	tests := []struct {
		name, contentType, body string
		limit                   int64
		want                    engine.Code // "" = accepted
	}{
		{"valid", "application/json", `{"name":"a","n":1}`, 100, ""},
		{"charset parameter", "application/json; charset=utf-8", `{"name":"a"}`, 100, ""},
		{"unknown fields ignored", "application/json", `{"name":"a","x":[1,2]}`, 100, ""},
		{"trailing white space", "application/json", "{\"n\":1}\n\t ", 100, ""},
		{"form post", "application/x-www-form-urlencoded", `name=a`, 100, engine.ErrUnsupportedMediaType},
		{"text/plain with JSON inside", "text/plain", `{"name":"a"}`, 100, engine.ErrUnsupportedMediaType},
		{"no content type", "", `{"name":"a"}`, 100, engine.ErrUnsupportedMediaType},
		{"malformed content type", "application/json;;=", `{}`, 100, engine.ErrUnsupportedMediaType},
		{"empty", "application/json", ``, 100, engine.ErrInvalidJSON},
		{"truncated", "application/json", `{"name":"a"`, 100, engine.ErrInvalidJSON},
		{"mistyped", "application/json", `{"n":"one"}`, 100, engine.ErrInvalidJSON},
		{"overflowing number", "application/json", `{"n":1e400}`, 100, engine.ErrInvalidJSON},
		{"two values", "application/json", `{"n":1}{"n":2}`, 100, engine.ErrInvalidJSON},
		{"garbage after", "application/json", `{"n":1} x`, 100, engine.ErrInvalidJSON},
		{"too large", "application/json", `{"name":"` + strings.Repeat("a", 200) + `"}`, 100, engine.ErrBodyTooLarge},
		{"too large after the value", "application/json", `{"n":1}` + strings.Repeat(" ", 200) + `x`, 100, engine.ErrBodyTooLarge},
		{"array instead of object", "application/json", `[1,2]`, 100, engine.ErrInvalidJSON},
		{"invalid UTF-8 string", "application/json", "{\"name\":\"\xff\"}", 100, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v body
			err := DecodeJSON(request(tt.contentType, tt.body), &v, tt.limit)
			if (err == nil) != (tt.want == "") || (err != nil && engine.CodeOf(err) != tt.want) {
				t.Errorf("DecodeJSON = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	w := httptest.NewRecorder()
	WriteJSON(w, http.StatusCreated, map[string]string{"html": "<b>&</b>"})
	if w.Code != http.StatusCreated || w.Header().Get("Content-Type") != "application/json; charset=utf-8" ||
		w.Header().Get("Cache-Control") != "no-store" || w.Body.String() != `{"html":"<b>&</b>"}`+"\n" {
		t.Errorf("answer %d %v %q", w.Code, w.Header(), w.Body.String())
	}
	w = httptest.NewRecorder()
	WriteJSON(w, http.StatusOK, math.Inf(1)) // cannot be encoded
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "ERR_INTERNAL") {
		t.Errorf("unencodable value answered %d %q", w.Code, w.Body.String())
	}
	w = httptest.NewRecorder()
	WriteJSON(w, http.StatusNoContent, nil)
	if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		t.Errorf("204 answered %d %q", w.Code, w.Body.String())
	}
}

func TestConnectionCreated(t *testing.T) {
	b, err := json.Marshal(ConnectionCreated(engine.Connection{ID: 7, Name: "Vendas"}))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Action   string `json:"action"`
		Whatsapp struct {
			ID     engine.ID       `json:"id"`
			Queues json.RawMessage `json:"queues"`
		} `json:"whatsapp"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Action != "update" || got.Whatsapp.ID != 7 || string(got.Whatsapp.Queues) != "[]" {
		t.Errorf("payload %s", b)
	}
}

// FuzzDecodeJSON: any body either decodes or answers one of the three body codes,
// never panics, and never reads past the limit.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"name":"a","n":1}`, ``, `{`, `{"n":1}{}`, `[]`, `null`, "\x00", `{"n":1e999}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var v struct {
			Name string `json:"name"`
			N    int    `json:"n"`
		}
		err := DecodeJSON(request("application/json", body), &v, 64)
		if err == nil {
			if len(body) > 64 {
				t.Fatalf("accepted %d bytes over a limit of 64", len(body))
			}
			return
		}
		if c := engine.CodeOf(err); c != engine.ErrInvalidJSON && c != engine.ErrBodyTooLarge {
			t.Fatalf("unexpected %v", err)
		}
	})
}
