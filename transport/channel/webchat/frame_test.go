package webchat

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"atende/engine"
	"atende/transport/call"
)

// A call token's shape (call.Tokens.Verify, not the parser, tells a real one).
const shapedToken = "call1.eyJjIjoiQUFBQUFBQUFBQUFBQUFBQUFBQUFBQSJ9.c2lnbmF0dXJl"

// callID is a well-formed call id.
const callID = "AAAAAAAAAAAAAAAAAAAAAA"

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
		{name: "message with seq", in: `{"type":"message","id":"m1","body":"oi","seq":7}`,
			want: ClientFrame{Type: FrameMessage, ID: "m1", Body: "oi", Seq: 7}},
		{name: "seq first, spaces", in: `{ "seq" : 1 , "type":"message","id":"m1","body":"oi"}`,
			want: ClientFrame{Type: FrameMessage, ID: "m1", Body: "oi", Seq: 1}},
		{name: "resume", in: `{"type":"resume","seq":12}`, want: ClientFrame{Type: FrameResume, Seq: 12}},
		{name: "largest seq", in: `{"type":"message","id":"m1","body":"oi","seq":9007199254740991}`,
			want: ClientFrame{Type: FrameMessage, ID: "m1", Body: "oi", Seq: MaxSeq}},
		{name: "read", in: `{"type":"read","ids":["wc-out:1","wc-out:22"]}`,
			want: ClientFrame{Type: FrameRead, IDs: []string{"wc-out:1", "wc-out:22"}}},
		{name: "call.join", in: `{"type":"call.join","id":"j1","token":"` + shapedToken + `"}`,
			want: ClientFrame{Type: FrameCallJoin, ID: "j1", Token: shapedToken}},
		{name: "call.signal answer", in: `{"type":"call.signal","id":"s1","signal":{"callId":"` + callID + `","type":"answer","sdp":"v=0\r\n"}}`,
			want: ClientFrame{Type: FrameCallSignal, ID: "s1", Signal: &call.Signal{CallID: callID, Type: call.TypeAnswer, SDP: "v=0\r\n"}}},
		{name: "call.signal candidate, spaces", in: ` { "signal" : {"callId":"` + callID + `","type":"candidate","candidate":{"candidate":"candidate:1 1 udp 1 10.0.0.1 5000 typ host","sdpMid":"0","sdpMLineIndex":0,"usernameFragment":null}} , "type":"call.signal","id":"s2" }`,
			want: ClientFrame{Type: FrameCallSignal, ID: "s2", Signal: &call.Signal{CallID: callID, Type: call.TypeCandidate,
				Candidate: &call.Candidate{Candidate: "candidate:1 1 udp 1 10.0.0.1 5000 typ host", SDPMid: ptr("0"), SDPMLineIndex: ptr(0)}}}},
		{name: "call.signal end", in: `{"type":"call.signal","id":"s3","signal":{"callId":"` + callID + `","type":"end"}}`,
			want: ClientFrame{Type: FrameCallSignal, ID: "s3", Signal: &call.Signal{CallID: callID, Type: call.TypeEnd}}},
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
		// seq, hostile
		{name: "seq zero", in: `{"type":"message","id":"x","body":"oi","seq":0}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq negative", in: `{"type":"message","id":"x","body":"oi","seq":-1}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq minus zero", in: `{"type":"message","id":"x","body":"oi","seq":-0}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq fraction", in: `{"type":"message","id":"x","body":"oi","seq":1.5}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq integral fraction", in: `{"type":"message","id":"x","body":"oi","seq":2.0}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq exponent", in: `{"type":"message","id":"x","body":"oi","seq":1e3}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq above 2^53-1", in: `{"type":"message","id":"x","body":"oi","seq":9007199254740992}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq above int64", in: `{"type":"message","id":"x","body":"oi","seq":99999999999999999999999}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq huge exponent", in: `{"type":"message","id":"x","body":"oi","seq":1e400}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq leading zero", in: `{"type":"message","id":"x","body":"oi","seq":07}`, code: engine.ErrInvalidJSON},
		{name: "seq is a string", in: `{"type":"message","id":"x","body":"oi","seq":"7"}`, code: engine.ErrInvalidJSON},
		{name: "seq not numeric", in: `{"type":"message","id":"x","body":"oi","seq":"abc"}`, code: engine.ErrInvalidJSON},
		{name: "seq is null", in: `{"type":"message","id":"x","body":"oi","seq":null}`, code: engine.ErrInvalidJSON},
		{name: "seq is true", in: `{"type":"message","id":"x","body":"oi","seq":true}`, code: engine.ErrInvalidJSON},
		{name: "seq is a list", in: `{"type":"message","id":"x","body":"oi","seq":[1]}`, code: engine.ErrInvalidJSON},
		{name: "seq is an object", in: `{"type":"message","id":"x","body":"oi","seq":{"n":1}}`, code: engine.ErrInvalidJSON},
		{name: "seq twice", in: `{"type":"message","id":"x","seq":1,"seq":2}`, code: engine.ErrInvalidJSON},
		{name: "seq NaN", in: `{"type":"message","id":"x","body":"oi","seq":NaN}`, code: engine.ErrInvalidJSON},
		{name: "resume without seq", in: `{"type":"resume"}`, code: engine.ErrValidation, field: "seq"},
		{name: "resume seq zero", in: `{"type":"resume","seq":0}`, code: engine.ErrValidation, field: "seq"},
		{name: "resume seq a string", in: `{"type":"resume","seq":"3"}`, code: engine.ErrInvalidJSON},
		{name: "resume with an id", in: `{"type":"resume","seq":3,"id":"x"}`, code: engine.ErrValidation, field: "id"},
		{name: "seq on a hello", in: `{"type":"hello","seq":1}`, code: engine.ErrValidation, field: "seq"},
		{name: "seq on a ping", in: `{"type":"ping","seq":1}`, code: engine.ErrValidation, field: "seq"},
		{name: "a number under another key", in: `{"type":"message","id":"x","body":"oi","id2":1}`, code: engine.ErrInvalidJSON},
		{name: "id is a number", in: `{"type":"message","id":7,"body":"oi","seq":7}`, code: engine.ErrInvalidJSON},
		// call frames
		{name: "call.join without id", in: `{"type":"call.join","token":"` + shapedToken + `"}`, code: engine.ErrValidation, field: "id"},
		{name: "call.join without token", in: `{"type":"call.join","id":"j"}`, code: engine.ErrValidation, field: "token"},
		{name: "call.join empty token", in: `{"type":"call.join","id":"j","token":""}`, code: engine.ErrValidation, field: "token"},
		{name: "call.join token too long", in: `{"type":"call.join","id":"j","token":"` + strings.Repeat("a", MaxCallToken+1) + `"}`, code: engine.ErrValidation, field: "token"},
		{name: "call.join token with a space", in: `{"type":"call.join","id":"j","token":"call1.a b"}`, code: engine.ErrValidation, field: "token"},
		{name: "call.join token with NUL", in: `{"type":"call.join","id":"j","token":"call1.\u0000"}`, code: engine.ErrValidation, field: "token"},
		{name: "call.join token is a number", in: `{"type":"call.join","id":"j","token":1}`, code: engine.ErrInvalidJSON},
		{name: "call.join token is an object", in: `{"type":"call.join","id":"j","token":{"a":"b"}}`, code: engine.ErrInvalidJSON},
		{name: "call.join with a signal", in: `{"type":"call.join","id":"j","token":"t","signal":{}}`, code: engine.ErrValidation, field: "signal"},
		{name: "call.join twice the token", in: `{"type":"call.join","id":"j","token":"a","token":"b"}`, code: engine.ErrInvalidJSON},
		{name: "call.join id with a dot", in: `{"type":"call.join","id":"j.1","token":"` + shapedToken + `"}`, code: engine.ErrValidation, field: "id"},
		{name: "call.join type case", in: `{"type":"Call.Join","id":"j","token":"` + shapedToken + `"}`, code: engine.ErrValidation, field: "type"},
		{name: "call.end is not a frame", in: `{"type":"call.end","id":"j"}`, code: engine.ErrValidation, field: "type"},
		{name: "call.signal without signal", in: `{"type":"call.signal","id":"s"}`, code: engine.ErrValidation, field: "signal"},
		{name: "call.signal signal is a string", in: `{"type":"call.signal","id":"s","signal":"{}"}`, code: engine.ErrInvalidJSON},
		{name: "call.signal signal is null", in: `{"type":"call.signal","id":"s","signal":null}`, code: engine.ErrInvalidJSON},
		{name: "call.signal signal is a list", in: `{"type":"call.signal","id":"s","signal":[{}]}`, code: engine.ErrInvalidJSON},
		{name: "call.signal signal truncated", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `"`, code: engine.ErrInvalidJSON},
		{name: "call.signal twice the signal", in: `{"type":"call.signal","id":"s","signal":{},"signal":{}}`, code: engine.ErrInvalidJSON},
		{name: "signal on a message", in: `{"type":"message","id":"x","signal":{}}`, code: engine.ErrValidation, field: "signal"},
		{name: "call.signal unknown key in the signal", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"end","x":1}}`, code: engine.ErrValidation},
		{name: "call.signal bad call id", in: `{"type":"call.signal","id":"s","signal":{"callId":"short","type":"end"}}`, code: engine.ErrValidation},
		{name: "call.signal unknown type", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"joined"}}`, code: engine.ErrValidation},
		{name: "call.signal offer without sdp", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"offer"}}`, code: engine.ErrValidation},
		{name: "call.signal end with sdp", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"end","sdp":"x"}}`, code: engine.ErrValidation},
		{name: "call.signal NUL in sdp", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"answer","sdp":"v=0\u0000"}}`, code: engine.ErrValidation},
		{name: "call.signal duplicate key in the signal", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"end","type":"hold"}}`, code: engine.ErrValidation},
		{name: "call.signal candidate index too big", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"candidate","candidate":{"candidate":"c","sdpMLineIndex":99999}}}`, code: engine.ErrValidation},
		{name: "call.signal deep nesting", in: `{"type":"call.signal","id":"s","signal":{"callId":` + strings.Repeat("[", 4000) + strings.Repeat("]", 4000) + `}}`, code: engine.ErrValidation},
		{name: "call.signal oversized sdp", in: `{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"answer","sdp":"` + strings.Repeat("a", DefaultMaxFrameSize) + `"}}`, code: engine.ErrBodyTooLarge},
		{name: "call.signal signal and a fifth key", in: `{"type":"call.signal","id":"s","signal":{},"a":"b","c":"d"}`, code: engine.ErrInvalidJSON},
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
		`{"type":"proof","nonce":"1z9"}`,
		`{"type":"call.join","id":"j1","token":"` + shapedToken + `"}`,
		`{"type":"call.signal","id":"s1","signal":{"callId":"` + callID + `","type":"answer","sdp":"v=0\r\n"}}`,
		`{"type":"call.signal","id":"s2","signal":{"callId":"` + callID + `","type":"candidate","candidate":{"candidate":"c","sdpMid":null,"sdpMLineIndex":1}}}`,
		`{"type":"call.signal","id":"s3","signal":{"callId":"` + callID + `","type":"hold"}}`,
		`{"type":"call.signal","id":"s","signal":{"callId":"` + callID + `","type":"end","type":"end"}}`,
		`{"type":"call.signal","id":"s","signal":"x"}`,
		`{"type":"call.join","id":"j","signal":{"a":{"b":[1,{"c":null}]}}}`,
		`{"type":"message","id":"m","body":"oi","seq":42}`,
		`{"type":"message","id":"m","body":"","seq":3}`,
		`{"type":"message","id":"m","body":"oi","seq":-3}`,
		`{"type":"message","id":"m","body":"oi","seq":9007199254740993}`,
		`{"type":"message","id":"m","body":"oi","seq":4.0e1}`,
		`{"type":"message","id":"m","body":"oi","seq":"4"}`,
		`{"type":"hello","name":"a","seq":4}`,
		`{"type":"resume","seq":12}`,
		`{"type":"resume","seq":0}`,
		`{"type":"resume"}`,
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
			// A refusal names nothing, or a call frame or a message by its valid id
			// (a message with its valid seq, if it had one).
			named := got.Type == FrameCallJoin || got.Type == FrameCallSignal || got.Type == FrameMessage
			if got.Token != "" || got.Signal != nil || !reflect.DeepEqual(got, ClientFrame{Type: got.Type, ID: got.ID, Seq: got.Seq}) ||
				(got.Type != "" && (!named || !validClientID(got.ID))) || (got.Type == "" && got.ID != "") ||
				got.Seq < 0 || got.Seq > MaxSeq || (got.Seq != 0 && got.Type != FrameMessage) {
				t.Fatalf("refusal came with %+v", got)
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
			if got.Seq != 0 {
				wire["seq"] = got.Seq
			}
		case FrameRead:
			wire["ids"] = got.IDs
		case FrameProof:
			wire["nonce"] = got.Nonce
		case FrameResume:
			wire["seq"] = got.Seq
		case FrameCallJoin:
			wire["id"], wire["token"] = got.ID, got.Token
		case FrameCallSignal:
			wire["id"], wire["signal"] = got.ID, got.Signal
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
		if f.Seq < 0 || f.Seq > MaxSeq {
			t.Fatalf("bad seq %d", f.Seq)
		}
	case FrameRead:
		if len(f.IDs) == 0 || len(f.IDs) > MaxReadIDs {
			t.Fatalf("bad ids %q", f.IDs)
		}
	case FrameResume:
		if f.Seq < 1 || f.Seq > MaxSeq {
			t.Fatalf("bad resume seq %d", f.Seq)
		}
	case FrameProof:
		if !validClientID(f.Nonce) {
			t.Fatalf("bad nonce %q", f.Nonce)
		}
	case FrameCallJoin:
		if !validClientID(f.ID) || !validCallToken(f.Token) || f.Signal != nil {
			t.Fatalf("bad call.join %+v", f)
		}
	case FrameCallSignal:
		if !validClientID(f.ID) || f.Signal == nil || f.Token != "" {
			t.Fatalf("bad call.signal %+v", f)
		}
		// What was accepted is what call.ParseSignal accepts again.
		b, err := json.Marshal(f.Signal)
		if err != nil {
			t.Fatal(err)
		}
		if s, err := call.ParseSignal(b); err != nil || !reflect.DeepEqual(&s, f.Signal) {
			t.Fatalf("signal %+v does not parse again: %+v, %v", f.Signal, s, err)
		}
	default:
		t.Fatalf("unknown type %q accepted", f.Type)
	}
}

func ptr[T any](v T) *T { return &v }
