package httpapi

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"atende/engine"
)

func TestQueryIDs(t *testing.T) {
	tests := []struct {
		query string
		want  []engine.ID
		bad   bool
	}{
		{"", nil, false},
		{"queueIds=", nil, false},
		{"queueIds=[]", nil, false},
		{"queueIds=[1,2]", []engine.ID{1, 2}, false},
		{"queueIds=%5B3%2C%201%5D", []engine.ID{1, 3}, false},
		{`queueIds=["4","2"]`, []engine.ID{2, 4}, false},
		{"queueIds=1&queueIds=2&queueIds=2", []engine.ID{1, 2}, false},
		{"queueIds=5,3", []engine.ID{3, 5}, false},
		{"queueIds=[1]&queueIds=7", []engine.ID{1, 7}, false},
		{"queueIds=abc", nil, true},
		{"queueIds=[1,", nil, true},
		{"queueIds=[0]", nil, true},
		{"queueIds=-1", nil, true},
		{"queueIds=[1.5]", nil, true},
		{`queueIds=[{"id":1}]`, nil, true},
		{"queueIds=1%3BDROP TABLE x", nil, true},
		{"queueIds=1;DROP TABLE x", nil, false}, // net/url drops pairs with a raw semicolon
		{"queueIds=99999999999999999999", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/x?"+strings.NewReplacer(`"`, "%22", " ", "%20", "{", "%7B", "}", "%7D").Replace(tc.query), nil)
			got, err := queryIDs(r, "queueIds")
			if tc.bad {
				var e *engine.Error
				if err == nil || engine.CodeOf(err) != engine.ErrValidation {
					t.Fatalf("got %v, %v; want a validation error", got, err)
				}
				if e, _ = err.(*engine.Error); e.Fields["queueIds"] != engine.MsgInvalidValue {
					t.Fatalf("fields %v", e.Fields)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	type body struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	tests := []struct {
		name string
		in   string
		code engine.Code // "" for success
	}{
		{"object", `{"name":"a","n":1}`, ""},
		{"white space around", " \n{\"name\":\"a\"}\n\t ", ""},
		{"unknown fields ignored", `{"name":"a","extra":[1,2]}`, ""},
		{"empty", ``, engine.ErrInvalidJSON},
		{"malformed", `{"name":`, engine.ErrInvalidJSON},
		{"wrong type", `{"n":"1"}`, engine.ErrInvalidJSON},
		{"overflow", `{"n":1e40}`, engine.ErrInvalidJSON},
		{"second value", `{"name":"a"}{"name":"b"}`, engine.ErrInvalidJSON},
		{"trailing garbage", `{"name":"a"} x`, engine.ErrInvalidJSON},
		{"trailing bracket", `{"name":"a"}]`, engine.ErrInvalidJSON},
		{"too large", `{"name":"` + strings.Repeat("a", 100) + `"}`, engine.ErrBodyTooLarge},
		{"too large after the value", `{"name":"a"}` + strings.Repeat(" ", 100), engine.ErrBodyTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/x", strings.NewReader(tc.in))
			r.Header.Set("Content-Type", "application/json")
			var b body
			err := decodeJSONLimit(r, &b, 64)
			if tc.code == "" {
				if err != nil || b.Name != "a" {
					t.Fatalf("got %+v, %v", b, err)
				}
				return
			}
			if engine.CodeOf(err) != tc.code {
				t.Fatalf("error %v, want %s", err, tc.code)
			}
		})
	}
}

func TestPathID(t *testing.T) {
	mux := http.NewServeMux()
	var got engine.ID
	var gotErr error
	mux.HandleFunc("GET /t/{id}", func(w http.ResponseWriter, r *http.Request) {
		got, gotErr = pathID(r, "id", engine.ErrNoTicketFound)
	})
	for path, want := range map[string]engine.ID{"/t/1": 1, "/t/9007199254740991": 9007199254740991,
		"/t/0": 0, "/t/-2": 0, "/t/x": 0, "/t/1.0": 0, "/t/%201": 0, "/t/99999999999999999999": 0} {
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		if got != want || (want == 0) != (engine.CodeOf(gotErr) == engine.ErrNoTicketFound) {
			t.Fatalf("%s: %d %v", path, got, gotErr)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	if _, err := pathID(r, "missing"); engine.CodeOf(err) != engine.ErrNotFound {
		t.Fatalf("default code %v", err)
	}
}

func TestQueryScalars(t *testing.T) {
	r := httptest.NewRequest("GET", "/x?a=%2042%20&b=x&c=true&d=2&s=%20hi%20", nil)
	if n, err := queryInt(r, "a", 0); err != nil || n != 42 {
		t.Fatalf("a %d %v", n, err)
	}
	if n, err := queryInt(r, "none", 7); err != nil || n != 7 {
		t.Fatalf("default %d %v", n, err)
	}
	if _, err := queryInt(r, "b", 0); engine.CodeOf(err) != engine.ErrValidation {
		t.Fatalf("b %v", err)
	}
	if v, err := queryBool(r, "c", false); err != nil || !v {
		t.Fatalf("c %v %v", v, err)
	}
	if _, err := queryBool(r, "d", false); engine.CodeOf(err) != engine.ErrValidation {
		t.Fatalf("d %v", err)
	}
	if s := queryString(r, "s"); s != "hi" {
		t.Fatalf("s %q", s)
	}
}

func TestFirstFieldMessageIsStable(t *testing.T) {
	f := map[string]string{"password": engine.MsgTooShort, "email": engine.MsgInvalidEmail, "name": engine.MsgRequired}
	for range 20 {
		if got := firstFieldMessage(f); got != engine.MsgInvalidEmail {
			t.Fatalf("first message %q", got)
		}
	}
}

func TestClientAddr(t *testing.T) {
	direct := &Server{}
	proxied := &Server{cfg: Config{TrustForwardedFor: true}}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.9:4242"
	r.Header.Add("X-Forwarded-For", "1.1.1.1, 2.2.2.2")
	r.Header.Add("X-Forwarded-For", "203.0.113.7")
	if got := direct.clientAddr(r); got != "10.0.0.9" {
		t.Fatalf("direct %q", got)
	}
	if got := proxied.clientAddr(r); got != "203.0.113.7" {
		t.Fatalf("proxied %q", got)
	}
	r.Header.Set("X-Forwarded-For", "not-an-ip")
	if got := proxied.clientAddr(r); got != "10.0.0.9" {
		t.Fatalf("bad header %q", got)
	}
}
