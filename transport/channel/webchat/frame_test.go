package webchat

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"atende/engine"
)

func TestParseClientFrame(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want ClientFrame
	}{
		{name: "ping", in: `{"type":"ping"}`, want: ClientFrame{Type: FramePing}},
		{name: "hello", in: `{"type":"hello","name":"  Ana Lúcia ","email":"ana@example.com.br"}`,
			want: ClientFrame{Type: FrameHello, Name: "Ana Lúcia", Email: "ana@example.com.br"}},
		{name: "empty hello", in: `{"type":"hello"}`, want: ClientFrame{Type: FrameHello}},
		{name: "message", in: `{"type":"message","id":"m-1_a","body":"Olá,\r\n  preciso de ajuda\t😀 "}`,
			want: ClientFrame{Type: FrameMessage, ID: "m-1_a", Body: "Olá,\n  preciso de ajuda\t😀"}},
		{name: "keys in any order, whitespace", in: " {\n \"body\" : \"oi\" , \"id\":\"x\", \"type\":\"message\" }\n",
			want: ClientFrame{Type: FrameMessage, ID: "x", Body: "oi"}},
		{name: "escaped unicode", in: `{"type":"message","id":"x","body":"\u00e9 \ud83d\ude00"}`,
			want: ClientFrame{Type: FrameMessage, ID: "x", Body: "é 😀"}},
		{name: "body of exactly 4096 characters", in: `{"type":"message","id":"x","body":"` + strings.Repeat("ç", 4096) + `"}`,
			want: ClientFrame{Type: FrameMessage, ID: "x", Body: strings.Repeat("ç", 4096)}},
		{name: "read", in: `{"type":"read","ids":["wc-out:1","wc-out:22"]}`,
			want: ClientFrame{Type: FrameRead, IDs: []string{"wc-out:1", "wc-out:22"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseClientFrame([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseClientFrame: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseClientFrameRefuses(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		code  engine.Code
		field string
	}{
		{name: "oversized frame", in: `{"type":"message","id":"x","body":"` + strings.Repeat("a", DefaultMaxFrameSize) + `"}`, code: engine.ErrBodyTooLarge},
		{name: "body over 4096 characters", in: `{"type":"message","id":"x","body":"` + strings.Repeat("ç", 4097) + `"}`, code: engine.ErrBodyTooLarge},
		{name: "invalid utf-8", in: "{\"type\":\"message\",\"id\":\"x\",\"body\":\"\xff\xfe\"}", code: engine.ErrInvalidJSON},
		{name: "empty", in: ``, code: engine.ErrInvalidJSON},
		{name: "not json", in: `hello`, code: engine.ErrInvalidJSON},
		{name: "truncated", in: `{"type":"message","id":"x","body":"oi`, code: engine.ErrInvalidJSON},
		{name: "array", in: `[{"type":"ping"}]`, code: engine.ErrInvalidJSON},
		{name: "string", in: `"ping"`, code: engine.ErrInvalidJSON},
		{name: "null", in: `null`, code: engine.ErrInvalidJSON},
		{name: "two objects", in: `{"type":"ping"}{"type":"ping"}`, code: engine.ErrInvalidJSON},
		{name: "trailing garbage", in: `{"type":"ping"} x`, code: engine.ErrInvalidJSON},
		{name: "duplicate key", in: `{"type":"message","id":"x","body":"a","body":"b"}`, code: engine.ErrInvalidJSON},
		{name: "body is a number", in: `{"type":"message","id":"x","body":42}`, code: engine.ErrInvalidJSON},
		{name: "body is null", in: `{"type":"message","id":"x","body":null}`, code: engine.ErrInvalidJSON},
		{name: "id is an object", in: `{"type":"message","id":{"a":1},"body":"oi"}`, code: engine.ErrInvalidJSON},
		{name: "type is a bool", in: `{"type":true}`, code: engine.ErrInvalidJSON},
		{name: "body is a list", in: `{"type":"message","id":"x","body":["oi"]}`, code: engine.ErrInvalidJSON},
		{name: "name is a list", in: `{"type":"hello","name":["Ana"]}`, code: engine.ErrInvalidJSON},
		{name: "ids is a string", in: `{"type":"read","ids":"wc-out:1"}`, code: engine.ErrInvalidJSON},
		{name: "ids holds numbers", in: `{"type":"read","ids":[1,2]}`, code: engine.ErrInvalidJSON},
		{name: "ids nested", in: `{"type":"read","ids":[["wc-out:1"]]}`, code: engine.ErrInvalidJSON},
		{name: "too many ids", in: `{"type":"read","ids":[` + strings.Repeat(`"a",`, MaxReadIDs) + `"a"]}`, code: engine.ErrInvalidJSON},
		{name: "too many keys", in: `{"type":"hello","name":"a","email":"a@b.c","x":"y","z":"w"}`, code: engine.ErrInvalidJSON},
		{name: "raw control character in a string", in: "{\"type\":\"message\",\"id\":\"x\",\"body\":\"a\x01b\"}", code: engine.ErrInvalidJSON},
		{name: "no type", in: `{"id":"x","body":"oi"}`, code: engine.ErrValidation, field: "type"},
		{name: "unknown type", in: `{"type":"typing"}`, code: engine.ErrValidation, field: "type"},
		{name: "type is case-sensitive", in: `{"type":"Message","id":"x","body":"oi"}`, code: engine.ErrValidation, field: "type"},
		{name: "keys are case-sensitive", in: `{"TYPE":"ping"}`, code: engine.ErrValidation, field: "type"},
		{name: "unknown key", in: `{"type":"ping","extra":"x"}`, code: engine.ErrValidation, field: "extra"},
		{name: "key of another type", in: `{"type":"hello","body":"x"}`, code: engine.ErrValidation, field: "body"},
		{name: "message without id", in: `{"type":"message","body":"oi"}`, code: engine.ErrValidation, field: "id"},
		{name: "id with a colon", in: `{"type":"message","id":"wc:x","body":"oi"}`, code: engine.ErrValidation, field: "id"},
		{name: "id too long", in: `{"type":"message","id":"` + strings.Repeat("a", 65) + `","body":"oi"}`, code: engine.ErrValidation, field: "id"},
		{name: "empty body", in: `{"type":"message","id":"x","body":"   \r\n\t "}`, code: engine.ErrValidation, field: "body"},
		{name: "escaped NUL in body", in: `{"type":"message","id":"x","body":"a\u0000b"}`, code: engine.ErrValidation, field: "body"},
		{name: "escape character in body", in: `{"type":"message","id":"x","body":"\u001b[31mred"}`, code: engine.ErrValidation, field: "body"},
		{name: "C1 control in body", in: `{"type":"message","id":"x","body":"a\u0085b"}`, code: engine.ErrValidation, field: "body"},
		{name: "lone surrogate in body", in: `{"type":"message","id":"x","body":"a\ud800b"}`, code: engine.ErrValidation, field: "body"},
		{name: "newline in name", in: `{"type":"hello","name":"Ana\nBob"}`, code: engine.ErrValidation, field: "name"},
		{name: "name too long", in: `{"type":"hello","name":"` + strings.Repeat("a", 51) + `"}`, code: engine.ErrValidation, field: "name"},
		{name: "bad email", in: `{"type":"hello","email":"ana at example"}`, code: engine.ErrValidation, field: "email"},
		{name: "email with markup", in: `{"type":"hello","email":"<a@b.c>"}`, code: engine.ErrValidation, field: "email"},
		{name: "empty read", in: `{"type":"read","ids":[]}`, code: engine.ErrValidation, field: "ids"},
		{name: "read id with control", in: `{"type":"read","ids":["a\u0007"]}`, code: engine.ErrValidation, field: "ids"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseClientFrame([]byte(tc.in))
			if err == nil {
				t.Fatalf("accepted: %+v", f)
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			if tc.field != "" && e.Fields[tc.field] == "" {
				t.Fatalf("fields %v, want one for %q", e.Fields, tc.field)
			}
		})
	}
}

// FuzzParseClientFrame checks that no input panics, that refusals are the three
// documented codes, and that whatever is accepted keeps the protocol's promises
// and survives a round trip.
func FuzzParseClientFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"ping"}`,
		`{"type":"hello","name":"Ana","email":"ana@example.com"}`,
		`{"type":"message","id":"abc","body":"Olá\n😀"}`,
		`{"type":"read","ids":["wc-out:1"]}`,
		`{"type":"message","id":"x","body":"\u0000"}`,
		`{"type":"message","id":"x","body":"\ud800"}`,
		`{"type":"read","ids":[[]]}`,
		`{"type":"message","id":"x","body":"a","body":"b"}`,
		`{"TYPE":"ping"}`,
		"{\"type\":\"message\",\"id\":\"x\",\"body\":\"\xff\"}",
		`[]`, `null`, `{`, `{"type":"ping"} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseClientFrame(data)
		if err != nil {
			switch c := engine.CodeOf(err); c {
			case engine.ErrBodyTooLarge, engine.ErrInvalidJSON, engine.ErrValidation:
			default:
				t.Fatalf("refusal with code %s: %v", c, err)
			}
			return
		}
		checkFrame(t, got)
		wire := map[string]any{"type": got.Type}
		switch got.Type {
		case FrameHello:
			wire["name"], wire["email"] = got.Name, got.Email
		case FrameMessage:
			wire["id"], wire["body"] = got.ID, got.Body
		case FrameRead:
			wire["ids"] = got.IDs
		}
		b, err := json.Marshal(wire)
		if err != nil {
			t.Fatalf("marshal %+v: %v", got, err)
		}
		again, err := ParseClientFrame(b)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("round trip of %+v: %+v, %v", got, again, err)
		}
	})
}

// checkFrame asserts the promises of an accepted frame.
func checkFrame(t *testing.T, f ClientFrame) {
	t.Helper()
	switch f.Type {
	case FramePing:
	case FrameHello:
		if utf8.RuneCountInString(f.Name) > MaxNameLength || hasControl(f.Name, false) || f.Name != strings.TrimSpace(f.Name) {
			t.Fatalf("bad name %q", f.Name)
		}
		if f.Email != "" && (!plausibleEmail(f.Email) || len(f.Email) > MaxEmailLength) {
			t.Fatalf("bad email %q", f.Email)
		}
	case FrameMessage:
		if !validClientID(f.ID) {
			t.Fatalf("bad id %q", f.ID)
		}
		if f.Body == "" || f.Body != strings.TrimSpace(f.Body) || utf8.RuneCountInString(f.Body) > DefaultMaxBodyLength ||
			hasControl(f.Body, true) || strings.Contains(f.Body, "\r") || !utf8.ValidString(f.Body) {
			t.Fatalf("bad body %q", f.Body)
		}
	case FrameRead:
		if len(f.IDs) == 0 || len(f.IDs) > MaxReadIDs {
			t.Fatalf("bad ids %q", f.IDs)
		}
	default:
		t.Fatalf("unknown type %q accepted", f.Type)
	}
}
