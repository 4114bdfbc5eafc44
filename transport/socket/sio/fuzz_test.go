package sio

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// seeds are wire frames socket.io-client really sends, plus hostile variations.
var seeds = []string{
	"3", "1", "6", "2", "3probe",
	"40", `40{"token":"Bearer abc","lastSeq":12}`, `40{"token":"t","pid":"p","offset":"17"}`,
	`40/admin,{"token":"abc"}`, "41",
	`42["joinChatBox","42"]`, `4217["joinTickets","open"]`, `42["joinNotification"]`,
	`431[{"ok":true}]`, `451-["a",{"_placeholder":true,"num":0}]`,
	`429007199254740992["x"]`, `42["a",`, `42[]`, `42[1]`, `42{"a":1}`,
	"4\xff", `42["` + "\xc3\x28" + `"]`, `42/,["x"]`, `42/a`, `4`, ``,
}

func FuzzDecodeFrame(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := DecodeFrame(b)
		if err != nil {
			return
		}
		if !utf8.Valid(b) {
			t.Fatalf("DecodeFrame accepted invalid UTF-8 %q", b)
		}
		if fr.Type < EngineOpen || fr.Type > EngineNoop {
			t.Fatalf("DecodeFrame(%q) type %v out of range", b, fr.Type)
		}
		if fr.Type == EngineMessage {
			_, _ = DecodePacket(fr.Data)
		}
	})
}

func FuzzDecodePacket(f *testing.F) {
	for _, s := range seeds {
		if len(s) > 0 && s[0] == '4' {
			f.Add([]byte(s[1:]))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePacket(b)
		if err != nil {
			if p.Type == PacketBinaryEvent || p.Type == PacketBinaryAck {
				if !errors.Is(err, ErrBinaryUnsupported) {
					t.Fatalf("binary packet %q: error %v, want ErrBinaryUnsupported", b, err)
				}
			}
			return
		}
		if p.Data != nil && !json.Valid(p.Data) {
			t.Fatalf("DecodePacket(%q) accepted invalid JSON %q", b, p.Data)
		}
		if p.HasID && p.ID > MaxAckID {
			t.Fatalf("DecodePacket(%q) accepted ack id %d", b, p.ID)
		}
		switch p.Type {
		case PacketEvent:
			name, args, err := DecodeEvent(p.Data)
			if err != nil {
				t.Fatalf("DecodePacket(%q) accepted an EVENT DecodeEvent refuses: %v", b, err)
			}
			// What we decode, we can encode and decode again to the same event.
			again := AppendEvent(nil, name, args...)
			q, err := DecodePacket(again[1:])
			if err != nil {
				t.Fatalf("re-encoded event %q does not decode: %v", again, err)
			}
			name2, args2, err := DecodeEvent(q.Data)
			if err != nil || name2 != name || len(args2) != len(args) {
				t.Fatalf("re-encoded event %q decodes as %q %d args (%v), want %q %d args", again, name2, len(args2), err, name, len(args))
			}
			for i := range args {
				if !bytes.Equal(args[i], args2[i]) {
					t.Fatalf("arg %d changed: %q -> %q", i, args[i], args2[i])
				}
			}
		case PacketAck:
			again := AppendAck(nil, p.ID, mustSplit(t, p.Data)...)
			if q, err := DecodePacket(again[1:]); err != nil || q.ID != p.ID {
				t.Fatalf("re-encoded ack %q: %+v %v", again, q, err)
			}
		}
	})
}

func FuzzDecodeEvent(f *testing.F) {
	for _, s := range []string{`["a"]`, `["joinChatBox","1"]`, ` [ "e" , 1 , {"a":[1,"]"]} ] `, `["a",]`, `[1]`, `[`, `["\u0000"]`, `["a","\"\\"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		name, args, err := DecodeEvent(b)
		if err != nil {
			return
		}
		if !ValidEventName(name) {
			t.Fatalf("DecodeEvent(%q) returned invalid name %q", b, name)
		}
		for _, a := range args {
			if !json.Valid(a) {
				t.Fatalf("DecodeEvent(%q) returned invalid arg %q", b, a)
			}
		}
	})
}

// FuzzSplitArray holds SplitArray to encoding/json on every valid array.
func FuzzSplitArray(f *testing.F) {
	for _, s := range []string{`[]`, `[1,2]`, `[ {"a":"]"} , [[]], "x\\\"" ]`, `[1,]`, `[tru]`, `[1 2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := SplitArray(b, 1<<20)
		var want []json.RawMessage
		if json.Unmarshal(b, &want) != nil || !json.Valid(b) {
			return // SplitArray only promises structure; it must just not panic
		}
		if err != nil {
			t.Fatalf("SplitArray(%q) refused a valid array: %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("SplitArray(%q) = %d elements, encoding/json %d", b, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(bytes.TrimSpace(got[i]), bytes.TrimSpace(want[i])) {
				t.Fatalf("element %d = %q, encoding/json %q", i, got[i], want[i])
			}
		}
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\x00\xff", "✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("AppendString(%q) = %q is not JSON: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("AppendString(%q) round trips to %q", s, back)
		}
	})
}

func mustSplit(t *testing.T, a json.RawMessage) []json.RawMessage {
	t.Helper()
	el, err := SplitArray(a, MaxArgs)
	if err != nil {
		t.Fatalf("SplitArray(%q): %v", a, err)
	}
	return el
}

// FuzzObjectFields holds ObjectFields to encoding/json on every valid object.
func FuzzObjectFields(f *testing.F) {
	for _, s := range []string{`{}`, `{"token":"x","lastSeq":1}`, `{"a":{"b":"}"},"c":[1,{}]}`, `{"a\u0062":1}`, `{"a":1,}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := map[string]json.RawMessage{}
		err := ObjectFields(b, func(k string, v json.RawMessage) { got[k] = v })
		var want map[string]json.RawMessage
		if !json.Valid(b) || json.Unmarshal(b, &want) != nil {
			return // only structure is promised on invalid input: no panic
		}
		if err != nil {
			t.Fatalf("ObjectFields(%q) refused a valid object: %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("ObjectFields(%q) = %d keys, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Fatalf("key %q = %q, encoding/json %q", k, got[k], v)
			}
		}
	})
}

func FuzzDecodeString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9"`, `"\ud800"`, `""`, `"a\"b"`, `x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := DecodeString(b)
		var want string
		wantOK := json.Unmarshal(b, &want) == nil && jsonKind(b) == '"'
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("DecodeString(%q) = %q %v, encoding/json %q %v", b, got, ok, want, wantOK)
		}
	})
}
