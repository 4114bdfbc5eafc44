package meta

import (
	"strings"
	"testing"

	"atende/engine"
)

// FuzzParsePageNotification: no body panics the parser or the translation; every
// message has a mid and a prefixed customer.
func FuzzParsePageNotification(f *testing.F) {
	f.Add([]byte(pageEvent("page", "1", `[{"sender":{"id":"2"},"recipient":{"id":"1"},"message":{"mid":"m","text":"x","reply_to":{"mid":"q"}}}]`)))
	f.Add([]byte(pageEvent("instagram", "1", `[{"sender":{"id":"1"},"recipient":{"id":"2"},"message":{"mid":"m","is_echo":true,"attachments":[{"type":"video","payload":{"url":"https://x/y"}},{"type":"fallback"}]}}]`)))
	f.Add([]byte(pageEvent("page", "1", `[{"delivery":{"mids":["a",""]},"read":{"watermark":1}}]`)))
	f.Add([]byte(`{"object":"page","entry":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := parsePageNotification(body)
		if err != nil {
			return
		}
		for _, e := range n.Entry {
			for _, ev := range e.Messaging {
				for _, in := range ev.inbounds(PrefixFacebook, 1) {
					if in.msg.ProviderID == "" || !strings.HasPrefix(in.msg.From.Number, PrefixFacebook) || len(in.msg.From.Number) == len(PrefixFacebook) {
						t.Fatalf("inbound %+v", in.msg)
					}
				}
			}
		}
	})
}

func FuzzCheckSignature(f *testing.F) {
	f.Add([]byte(`{}`), "sha256=00")
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		if CheckSignature("secret", body, header) && header != Sign("secret", body) && !strings.EqualFold(header, Sign("secret", body)) {
			t.Fatalf("accepted a header that is not the signature: %q", header)
		}
	})
}

// FuzzConnectionName: whatever a provider calls a page, a bot or a number, the name
// made of it passes the connection rule, so registering it never fails on it.
func FuzzConnectionName(f *testing.F) {
	f.Add("Loja\nCentro", "123")
	f.Add("", "bot\x00name")
	f.Add("\xff\xfe x", "+55 65 3333-0000")
	f.Add("😀", "")
	f.Fuzz(func(t *testing.T, name, id string) {
		for _, prefix := range []string{"Facebook", "Instagram", "Telegram", "WABA"} { // the adapters' words
			got := ConnectionName(name, prefix, id)
			if _, err := engine.ValidateConnection(engine.ConnectionInput{Name: got, Channel: engine.ChannelFacebook}); err != nil {
				t.Fatalf("ConnectionName(%q, %q, %q) = %q, refused: %v", name, prefix, id, got, err)
			}
		}
	})
}
