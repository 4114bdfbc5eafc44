package meta

import (
	"strings"
	"testing"
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
