package call

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"atende/engine"
)

const cid = "AAAAAAAAAAAAAAAAAAAAAA"

func TestParseSignalAcceptsWhatBrowsersSend(t *testing.T) {
	for name, raw := range map[string]string{
		"offer":            `{"callId":"` + cid + `","type":"offer","sdp":"v=0\r\na=group:BUNDLE 0 1\r\n"}`,
		"answer":           `{"type":"answer","sdp":"v=0\r\n","callId":"` + cid + `"}`,
		"candidate":        `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"candidate:1 1 udp 1 10.0.0.1 5000 typ host","sdpMid":"0","sdpMLineIndex":0,"usernameFragment":"abcd"}}`,
		"end of gathering": `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","sdpMid":null,"sdpMLineIndex":null}}`,
		"hold":             `{"callId":"` + cid + `","type":"hold"}`,
		"unhold":           `{"callId":"` + cid + `","type":"unhold"}`,
		"end":              `{"callId":"` + cid + `","type":"end"}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSignal([]byte(raw))
			if err != nil {
				t.Fatalf("ParseSignal: %v", err)
			}
			if s.CallID != cid {
				t.Fatalf("call id %q", s.CallID)
			}
		})
	}
}

func TestParseSignalRefusesHostileFrames(t *testing.T) {
	big := strings.Repeat("a", MaxSDP+1)
	for _, c := range []struct {
		name string
		raw  string
		code engine.Code
	}{
		{"not json", `{"callId":`, engine.ErrInvalidJSON},
		{"array", `["offer"]`, engine.ErrInvalidJSON},
		{"string", `"offer"`, engine.ErrInvalidJSON},
		{"null", `null`, engine.ErrInvalidJSON},
		{"empty object", `{}`, engine.ErrValidation},
		{"unknown key", `{"callId":"` + cid + `","type":"hold","to":"customer"}`, engine.ErrValidation},
		{"duplicate key", `{"callId":"` + cid + `","type":"hold","type":"end"}`, engine.ErrValidation},
		{"duplicate call id", `{"callId":"` + cid + `","callId":"BBBBBBBBBBBBBBBBBBBBBB","type":"hold"}`, engine.ErrValidation},
		{"unknown type", `{"callId":"` + cid + `","type":"joined"}`, engine.ErrValidation},
		{"type case", `{"callId":"` + cid + `","type":"Offer","sdp":"v=0"}`, engine.ErrValidation},
		{"type a number", `{"callId":"` + cid + `","type":1}`, engine.ErrValidation},
		{"short call id", `{"callId":"abc","type":"hold"}`, engine.ErrValidation},
		{"call id with a slash", `{"callId":"AAAAAAAAAAAAAAAAAAAAA/","type":"hold"}`, engine.ErrValidation},
		{"call id a number", `{"callId":12,"type":"hold"}`, engine.ErrValidation},
		{"offer without sdp", `{"callId":"` + cid + `","type":"offer"}`, engine.ErrValidation},
		{"offer with empty sdp", `{"callId":"` + cid + `","type":"offer","sdp":""}`, engine.ErrValidation},
		{"sdp an object", `{"callId":"` + cid + `","type":"offer","sdp":{"a":1}}`, engine.ErrValidation},
		{"sdp with NUL", `{"callId":"` + cid + `","type":"offer","sdp":"v=0\u0000"}`, engine.ErrValidation},
		{"sdp with escape", `{"callId":"` + cid + `","type":"offer","sdp":"v=0\u001b[2J"}`, engine.ErrValidation},
		{"sdp too long", `{"callId":"` + cid + `","type":"offer","sdp":"` + big + `"}`, engine.ErrBodyTooLarge},
		{"frame too long", `{"callId":"` + cid + `","type":"offer","sdp":"` + strings.Repeat("a", MaxSignal) + `"}`, engine.ErrBodyTooLarge},
		{"hold with sdp", `{"callId":"` + cid + `","type":"hold","sdp":"v=0"}`, engine.ErrValidation},
		{"end with empty sdp", `{"callId":"` + cid + `","type":"end","sdp":""}`, engine.ErrValidation},
		{"offer with candidate", `{"callId":"` + cid + `","type":"offer","sdp":"v=0","candidate":{"candidate":""}}`, engine.ErrValidation},
		{"candidate missing", `{"callId":"` + cid + `","type":"candidate"}`, engine.ErrValidation},
		{"candidate a string", `{"callId":"` + cid + `","type":"candidate","candidate":"candidate:1"}`, engine.ErrValidation},
		{"candidate without candidate", `{"callId":"` + cid + `","type":"candidate","candidate":{"sdpMid":"0"}}`, engine.ErrValidation},
		{"candidate unknown key", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","port":1}}`, engine.ErrValidation},
		{"candidate duplicate key", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","candidate":"x"}}`, engine.ErrValidation},
		{"candidate with newline", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"a\r\na=x"}}`, engine.ErrValidation},
		{"candidate too long", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"` + strings.Repeat("c", MaxCandidate+1) + `"}}`, engine.ErrValidation},
		{"mline negative", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","sdpMLineIndex":-1}}`, engine.ErrValidation},
		{"mline huge", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","sdpMLineIndex":1e9}}`, engine.ErrValidation},
		{"mline fraction", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","sdpMLineIndex":0.5}}`, engine.ErrValidation},
		{"mid too long", `{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"","sdpMid":"` + strings.Repeat("m", MaxMid+1) + `"}}`, engine.ErrValidation},
		{"trailing data", `{"callId":"` + cid + `","type":"hold"} {}`, engine.ErrInvalidJSON},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSignal([]byte(c.raw))
			if got := engine.CodeOf(err); got != c.code {
				t.Fatalf("code %q (%v), want %q", got, err, c.code)
			}
		})
	}
}

// FuzzParseSignal: the parser never panics, and what it accepts is within the
// limits and survives the relay's encoding and the bus unchanged.
func FuzzParseSignal(f *testing.F) {
	for _, s := range []string{
		`{"callId":"` + cid + `","type":"offer","sdp":"v=0\r\n"}`,
		`{"callId":"` + cid + `","type":"candidate","candidate":{"candidate":"c","sdpMid":"0","sdpMLineIndex":1}}`,
		`{"callId":"` + cid + `","type":"end"}`,
		`{"callId":"` + cid + `","type":"hold","type":"hold"}`,
		`{"a":[1,{"b":null}]}`, `[]`, `"`, `{"callId":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := ParseSignal(raw)
		if err != nil {
			if c := engine.CodeOf(err); c != engine.ErrValidation && c != engine.ErrInvalidJSON && c != engine.ErrBodyTooLarge {
				t.Fatalf("code %q for %q", c, raw)
			}
			return
		}
		if !validCallID(s.CallID) || len(s.SDP) > MaxSDP {
			t.Fatalf("accepted %+v", s)
		}
		frame, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseSignal(frame)
		if err != nil {
			t.Fatalf("re-encoded %q refused: %v", frame, err)
		}
		if again.CallID != s.CallID || again.Type != s.Type || again.SDP != s.SDP {
			t.Fatalf("round trip %+v → %+v", s, again)
		}
		b, err := marshalWire(wire{Kind: kindSignal, Call: s.CallID, Tenant: 1, Role: Customer, Peer: "p", Frame: frame})
		if err != nil {
			t.Fatalf("bus encoding: %v", err)
		}
		if _, err := unmarshalWire(b); err != nil {
			t.Fatalf("bus decoding %q: %v", b, err)
		}
	})
}

func TestUnmarshalWireRefusesWhatMarshalDidNotWrite(t *testing.T) {
	ok := `{"k":"join","c":"` + cid + `","t":1,"r":"customer","p":"x"}`
	if _, err := unmarshalWire([]byte(ok)); err != nil {
		t.Fatalf("valid message refused: %v", err)
	}
	for _, raw := range []string{
		`{"k":"join","c":"` + cid + `","t":1,"r":"customer","p":"x","z":1}`,
		`{"k":"join","c":"` + cid + `","t":0,"r":"customer","p":"x"}`,
		`{"k":"join","c":"` + cid + `","t":1,"r":"boss","p":"x"}`,
		`{"k":"join","c":"short","t":1,"r":"customer","p":"x"}`,
		`{"k":"join","c":"` + cid + `","t":1,"r":"customer","p":""}`,
		`{"k":"here","c":"` + cid + `","t":1,"r":"customer","p":"x"}`,
		`{"k":"gone","c":"` + cid + `","t":1,"r":"customer","p":"x","f":{"type":"end"}}`,
		`{"k":"signal","c":"` + cid + `","t":1,"r":"customer","p":"x","f":{"type":"bogus"}}`,
		`{"k":"boom","c":"` + cid + `","t":1,"r":"customer","p":"x"}`,
		ok + ` {}`, `[]`, ``,
	} {
		if _, err := unmarshalWire([]byte(raw)); err == nil {
			t.Errorf("accepted %s", raw)
		}
	}
}

func TestTokens(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tokens, err := NewTokens(testSecret, clock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTokens([]byte("short"), nil); err == nil {
		t.Fatal("a short secret was accepted")
	}
	inv, err := tokens.Issue(3, 44, 5, 30*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := tokens.Issue(3, 44, 5, 30*time.Minute)
	if inv.Call == again.Call || !validCallID(inv.Call) {
		t.Fatalf("call ids %q and %q", inv.Call, again.Call)
	}
	c, err := tokens.Verify(inv.Customer)
	if err != nil || c.Call != inv.Call || c.Tenant != 3 || c.Ticket != 44 || c.User != 5 || c.Role != Customer || !c.ExpiresAt.Equal(now.Add(30*time.Minute)) {
		t.Fatalf("customer claims %+v, %v", c, err)
	}
	if c, err := tokens.Verify(inv.Attendant); err != nil || c.Role != Attendant {
		t.Fatalf("attendant claims %+v, %v", c, err)
	}
	if p, err := GuestPrincipal(tokens, inv.Customer); err != nil || p.Call != inv.Call || p.CompanyID != 3 || p.UserID != 0 || !p.Guest() {
		t.Fatalf("guest principal %+v, %v", p, err)
	}
	if _, err := GuestPrincipal(tokens, inv.Attendant); engine.CodeOf(err) != engine.ErrInvalidToken {
		t.Fatalf("an attendant token made a guest: %v", err)
	}
	for _, bad := range []string{"", "call1.", "call1..", inv.Customer + "x", strings.Replace(inv.Customer, "call1.", "call2.", 1),
		inv.Customer[:len(inv.Customer)-1], "call1." + strings.Repeat("A", 600)} {
		if _, err := tokens.Verify(bad); err != ErrBadToken {
			t.Errorf("Verify(%.40q) = %v, want ErrBadToken", bad, err)
		}
	}
	now = now.Add(30 * time.Minute)
	if _, err := tokens.Verify(inv.Customer); err != ErrExpired {
		t.Fatalf("expired token: %v", err)
	}
}
