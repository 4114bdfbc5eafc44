package engine

import (
	"strings"
	"testing"
)

func TestValidateAPIToken(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, field string
	}{
		{"trimmed", "  ERP  ", "ERP", ""},
		{"empty", "   ", "", MsgRequired},
		{"one char", "a", "", MsgTooShort},
		{"fifty", strings.Repeat("x", 50), strings.Repeat("x", 50), ""},
		{"fifty-one", strings.Repeat("x", 51), "", MsgTooLong},
		{"two lines", "a\nb", "", MsgInvalidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ValidateAPIToken(APITokenInput{Name: tc.in})
			if tc.field == "" {
				if err != nil || out.Name != tc.want {
					t.Fatalf("got %q, %v; want %q", out.Name, err, tc.want)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Code != ErrValidation || e.Fields["name"] != tc.field {
				t.Fatalf("error %v, want %s on name", err, tc.field)
			}
		})
	}
}

func TestAPIRecipient(t *testing.T) {
	for _, tc := range []struct {
		name, channel, number, want string
		create, bad                 bool
	}{
		{"whatsapp formatted", ChannelWhatsApp, "+55 (65) 99999-0000", "5565999990000", true, false},
		{"waba digits", ChannelWABA, "5511988887777", "5511988887777", true, false},
		{"too short", ChannelWhatsApp, "1234567", "", false, true},
		{"too long", ChannelWhatsApp, "1234567890123456", "", false, true},
		{"letters", ChannelWhatsApp, "55abc99999", "", false, true},
		{"empty", ChannelWhatsApp, "", "", false, true},
		{"jid", ChannelWhatsApp, "5511988887777@s.whatsapp.net", "", false, true},
		{"web chat id", ChannelSocket, " webchat:abc ", "webchat:abc", false, false},
		{"telegram empty", ChannelTelegram, "  ", "", false, true},
		{"telegram newline", ChannelTelegram, "12\n34", "", false, true},
		{"facebook long", ChannelFacebook, strings.Repeat("1", 51), "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, create, err := APIRecipient(tc.channel, tc.number)
			if tc.bad {
				if CodeOf(err) != ErrWappInvalidContact {
					t.Fatalf("error %v, want %s", err, ErrWappInvalidContact)
				}
				return
			}
			if err != nil || got != tc.want || create != tc.create {
				t.Fatalf("got %q create=%v err=%v; want %q create=%v", got, create, err, tc.want, tc.create)
			}
		})
	}
}

func TestValidIdempotencyKey(t *testing.T) {
	for k, want := range map[string]bool{
		"":                                       false,
		"order-42":                               true,
		"3f2b8c1e-9d4a-4c2b-8e7f-1a2b3c4d5e6f":   true,
		"with space":                             false,
		"tab\t":                                  false,
		"ção":                                    false,
		strings.Repeat("k", MaxIdempotencyKey):   true,
		strings.Repeat("k", MaxIdempotencyKey+1): false,
	} {
		if got := ValidIdempotencyKey(k); got != want {
			t.Errorf("ValidIdempotencyKey(%.20q) = %v, want %v", k, got, want)
		}
	}
}
